package loadtest

import "testing"

func TestCheckLocal(t *testing.T) {
	for _, base := range []string{"http://127.0.0.1:18481", "http://localhost:8080", "http://[::1]:8080", "https://127.0.0.2"} {
		if err := CheckLocal(base); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
	for _, base := range []string{"https://sobre.example.com", "http://10.0.0.5:8080", "http://localhost.example.com", "127.0.0.1:8080", "ftp://127.0.0.1", "http://0.0.0.0:8080"} {
		if err := CheckLocal(base); err == nil {
			t.Errorf("%s: accepted", base)
		}
	}
}
