package claveunica

import (
	"errors"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

func TestUserInfoPerson(t *testing.T) {
	cases := []struct {
		name, body string
		want       Person
		err        error
	}{
		{name: "the manual's example",
			body: `{"sub":"1234567","RolUnico":{"DV":"5","numero":12345678,"tipo":"RUN"},"name":{"apellidos":["Del Río","Gonzalez"],"nombres":["María","Carmen"]}}`,
			want: Person{RUN: "12345678-5", GivenNames: []string{"María", "Carmen"}, Surnames: []string{"Del Río", "Gonzalez"}, Subject: "1234567"}},
		{name: "K as check digit, lower case", body: `{"sub":"1","RolUnico":{"DV":"k","numero":10000013,"tipo":"RUN"}}`,
			want: Person{RUN: "10000013-K", Subject: "1"}},
		{name: "numero as a string", body: `{"sub":"1","RolUnico":{"DV":"4","numero":"44444444","tipo":"RUN"}}`,
			want: Person{RUN: "44444444-4", Subject: "1"}},
		{name: "no tipo", body: `{"sub":"1","RolUnico":{"DV":"9","numero":1}}`, want: Person{RUN: "1-9", Subject: "1"}},
		{name: "wrong check digit", body: `{"sub":"1","RolUnico":{"DV":"0","numero":12345678,"tipo":"RUN"}}`, err: ErrRUN},
		{name: "no RolUnico", body: `{"sub":"1","name":{"nombres":["Ana"]}}`, err: ErrUserInfo},
		{name: "RolUnico null", body: `{"sub":"1","RolUnico":null}`, err: ErrUserInfo},
		{name: "no DV", body: `{"sub":"1","RolUnico":{"numero":12345678,"tipo":"RUN"}}`, err: ErrUserInfo},
		{name: "DV of two characters", body: `{"sub":"1","RolUnico":{"numero":12345678,"DV":"55","tipo":"RUN"}}`, err: ErrRUN},
		{name: "numero of nine digits", body: `{"sub":"1","RolUnico":{"numero":123456789,"DV":"2","tipo":"RUN"}}`, err: ErrRUN},
		{name: "numero zero", body: `{"sub":"1","RolUnico":{"numero":0,"DV":"0","tipo":"RUN"}}`, err: ErrRUN},
		{name: "numero negative", body: `{"sub":"1","RolUnico":{"numero":-5,"DV":"5","tipo":"RUN"}}`, err: ErrRUN},
		{name: "numero fractional", body: `{"sub":"1","RolUnico":{"numero":12345678.5,"DV":"5","tipo":"RUN"}}`, err: ErrRUN},
		{name: "a passport, not a RUN", body: `{"sub":"1","RolUnico":{"numero":12345678,"DV":"5","tipo":"PASAPORTE"}}`, err: ErrUserInfo},
		{name: "no sub", body: `{"RolUnico":{"numero":12345678,"DV":"5","tipo":"RUN"}}`, err: ErrUserInfo},
		{name: "not JSON", body: `<html>`, err: ErrUserInfo},
		{name: "name of the wrong shape", body: `{"sub":"1","RolUnico":{"numero":12345678,"DV":"5"},"name":"Ana"}`, err: ErrUserInfo},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := parseUserInfo([]byte(tc.body))
			var got Person
			if err == nil {
				got, err = info.person()
			}
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err == nil && (got.RUN != tc.want.RUN || got.Subject != tc.want.Subject || got.FullName() != tc.want.FullName()) {
				t.Fatalf("person %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzUserInfo: any body either fails with one of the package's errors or names a person whose
// RUN is normalised and has a right check digit.
func FuzzUserInfo(f *testing.F) {
	f.Add(`{"sub":"1234567","RolUnico":{"DV":"9","numero":12345678,"tipo":"RUN"},"name":{"apellidos":["Del Río"],"nombres":["María"]}}`)
	f.Add(`{"sub":"1","RolUnico":{"DV":"k","numero":"10000013"}}`)
	f.Add(`{"sub":"1","RolUnico":{"DV":"0","numero":1e3}}`)
	f.Fuzz(func(t *testing.T, body string) {
		info, err := parseUserInfo([]byte(body))
		if err != nil {
			if !errors.Is(err, ErrUserInfo) {
				t.Fatalf("parse error %v is not ErrUserInfo", err)
			}
			return
		}
		p, err := info.person()
		if err != nil {
			if !errors.Is(err, ErrRUN) && !errors.Is(err, ErrUserInfo) {
				t.Fatalf("person error %v is neither ErrRUN nor ErrUserInfo", err)
			}
			return
		}
		again, err := info.person()
		if err != nil || again.RUN != p.RUN || p.Subject == "" {
			t.Fatalf("person %+v then %+v, %v", p, again, err)
		}
		if n := len(p.RUN); n < 3 || n > 10 || p.RUN[n-2] != '-' || p.RUN[0] == '0' {
			t.Fatalf("RUN %q is not normalised", p.RUN)
		}
		if _, err := envelope.ParseRUT(p.RUN); err != nil {
			t.Fatalf("RUN %q accepted: %v", p.RUN, err)
		}
	})
}
