package config

import (
	"strings"
	"testing"
)

func TestWebhookSettings(t *testing.T) {
	tests := []struct {
		name         string
		vars         map[string]string
		allowPrivate bool
		proxy        string // the proxy read; empty: none
		refused      string // the variable named in the error; empty: accepted
	}{
		{"the defaults: public https only, no proxy", nil, false, "", ""},
		{"private addresses allowed", map[string]string{"SOBRE_WEBHOOK_ALLOW_PRIVATE": "true"}, true, "", ""},
		{"not a bool", map[string]string{"SOBRE_WEBHOOK_ALLOW_PRIVATE": "yes please"}, false, "", "SOBRE_WEBHOOK_ALLOW_PRIVATE"},
		{"an http proxy", map[string]string{"SOBRE_WEBHOOK_PROXY": "http://proxy.example.cl:3128"}, false, "http://proxy.example.cl:3128", ""},
		{"an https proxy with a password and a slash", map[string]string{"SOBRE_WEBHOOK_PROXY": "https://u:p@proxy.example.cl/"}, false, "https://u:p@proxy.example.cl/", ""},
		{"a SOCKS proxy", map[string]string{"SOBRE_WEBHOOK_PROXY": "socks5://u:pw@hidden.example.net:1080"}, false, "", "SOBRE_WEBHOOK_PROXY"},
		{"no host", map[string]string{"SOBRE_WEBHOOK_PROXY": "http://u:pw@:3128"}, false, "", "SOBRE_WEBHOOK_PROXY"},
		{"a host alone", map[string]string{"SOBRE_WEBHOOK_PROXY": "u:pw@hidden.example.net:3128"}, false, "", "SOBRE_WEBHOOK_PROXY"},
		{"a path", map[string]string{"SOBRE_WEBHOOK_PROXY": "http://u:pw@hidden.example.net/hooks"}, false, "", "SOBRE_WEBHOOK_PROXY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(env(tt.vars))
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused+": ") {
					t.Fatalf("error %v, want one naming %s", err, tt.refused)
				}
				if strings.Contains(err.Error(), "pw") {
					t.Errorf("the error quotes the proxy URL, which may hold a password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			proxy := ""
			if c.WebhookProxy != nil {
				proxy = c.WebhookProxy.String()
			}
			if c.WebhookAllowPrivate != tt.allowPrivate || proxy != tt.proxy {
				t.Errorf("allow private %v, proxy %q; want %v, %q", c.WebhookAllowPrivate, proxy, tt.allowPrivate, tt.proxy)
			}
		})
	}
}
