package envelope

import (
	"errors"
	"strconv"
	"strings"
)

// RUT is a Chilean national tax identifier (Rol Único Tributario, also the RUN of a person): a
// body number and a check digit computed modulo 11, where 10 is written K.
type RUT struct {
	Number int // the body, 1 to 99.999.999 (at most 8 digits)
	DV     byte
}

// Errors returned by ParseRUT.
var (
	ErrRUTFormat     = errors.New("not a RUT: expected digits with a check digit, like 12.345.678-5")
	ErrRUTCheckDigit = errors.New("the RUT's check digit does not match its number")
)

// ParseRUT reads a RUT written in any common way: "12.345.678-5", "12345678-5", "123456785",
// " 12 345 678 - 5 ", with a lower- or upper-case K. It verifies the check digit.
func ParseRUT(s string) (RUT, error) {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == 'k' || r == 'K':
			b.WriteByte('K')
		case r == '.' || r == '-' || r == ' ' || r == '\u2010' || r == '\u2011' || r == '\u2013':
			// separators people write; ignored
		default:
			return RUT{}, ErrRUTFormat
		}
	}
	compact := b.String()
	if len(compact) < 2 || len(compact) > 9 {
		return RUT{}, ErrRUTFormat
	}
	body, dv := compact[:len(compact)-1], compact[len(compact)-1]
	if strings.ContainsRune(body, 'K') {
		return RUT{}, ErrRUTFormat
	}
	n, err := strconv.Atoi(body)
	if err != nil || n < 1 {
		return RUT{}, ErrRUTFormat
	}
	if RUTCheckDigit(n) != dv {
		return RUT{}, ErrRUTCheckDigit
	}
	return RUT{Number: n, DV: dv}, nil
}

// RUTCheckDigit returns the check digit of a RUT body: '0'..'9' or 'K'.
func RUTCheckDigit(number int) byte {
	sum, factor := 0, 2
	for n := number; n > 0; n /= 10 {
		sum += (n % 10) * factor
		factor++
		if factor > 7 {
			factor = 2
		}
	}
	switch d := 11 - sum%11; d {
	case 11:
		return '0'
	case 10:
		return 'K'
	default:
		return byte('0' + d)
	}
}

// String returns the normal form Sobre stores: the body without dots, a hyphen, the check digit
// (upper-case K), as in "12345678-5".
func (r RUT) String() string {
	return strconv.Itoa(r.Number) + "-" + string(r.DV)
}

// NormalizeRUT parses s and returns its normal form.
func NormalizeRUT(s string) (string, error) {
	r, err := ParseRUT(s)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}
