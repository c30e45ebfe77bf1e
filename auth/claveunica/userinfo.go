package claveunica

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sobre-sign/sobre/envelope"
)

// maxUserInfo bounds the userinfo answer read; Clave Única's is a few hundred bytes.
const maxUserInfo = 64 << 10

// userInfo is Clave Única's userinfo answer:
//
//	{"sub":"1234567","RolUnico":{"DV":"9","numero":12345678,"tipo":"RUN"},
//	 "name":{"apellidos":["Del Río","Gonzalez"],"nombres":["María","Carmen"]}}
type userInfo struct {
	Sub      string `json:"sub"`
	RolUnico *struct {
		Numero json.Number `json:"numero"` // a JSON number; a string of digits is accepted too
		DV     string      `json:"DV"`
		Tipo   string      `json:"tipo"`
	} `json:"RolUnico"`
	Name struct {
		Nombres   []string `json:"nombres"`
		Apellidos []string `json:"apellidos"`
	} `json:"name"`
}

// parseUserInfo decodes a userinfo body. It checks the shape only; person checks the RUN.
func parseUserInfo(body []byte) (userInfo, error) {
	var info userInfo
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&info); err != nil {
		return userInfo{}, fmt.Errorf("%w: userinfo is not the expected JSON: %w", ErrUserInfo, err)
	}
	if info.Sub == "" {
		return userInfo{}, fmt.Errorf("%w: userinfo has no sub", ErrUserInfo)
	}
	return info, nil
}

// person is the Person userinfo names, identified by RolUnico with its check digit verified.
func (u userInfo) person() (Person, error) {
	r := u.RolUnico
	if r == nil || r.Numero == "" || r.DV == "" {
		return Person{}, fmt.Errorf("%w: no RolUnico in userinfo", ErrUserInfo)
	}
	if r.Tipo != "" && r.Tipo != "RUN" {
		return Person{}, fmt.Errorf("%w: RolUnico of type %q, not RUN", ErrUserInfo, r.Tipo)
	}
	n, err := strconv.ParseInt(r.Numero.String(), 10, 64)
	if err != nil || n < 1 || n > 99_999_999 {
		return Person{}, fmt.Errorf("%w: RolUnico.numero %q", ErrRUN, r.Numero)
	}
	if len(r.DV) != 1 {
		return Person{}, fmt.Errorf("%w: RolUnico.DV %q", ErrRUN, r.DV)
	}
	run, err := envelope.NormalizeRUT(strconv.FormatInt(n, 10) + "-" + r.DV)
	if err != nil {
		return Person{}, fmt.Errorf("%w: %d-%s: %w", ErrRUN, n, r.DV, err)
	}
	return Person{RUN: run, GivenNames: u.Name.Nombres, Surnames: u.Name.Apellidos, Subject: u.Sub}, nil
}
