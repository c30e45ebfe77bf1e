package account

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sobre-sign/sobre/envelope"
)

func TestCheckPassword(t *testing.T) {
	t.Parallel()
	const email = "Tomas.Perez@Ejemplo.cl"
	for _, c := range []struct {
		name, password string
		ok             bool
	}{
		{"empty", "", false},
		{"nine characters", "abcdefgh9", false},
		{"ten characters", "kq7-vrt-zw", true},
		{"the email", "tomas.perez@ejemplo.cl", false},
		{"the email, other case", "TOMAS.PEREZ@EJEMPLO.CL", false},
		{"the email's local part", "tomas.perez", false},
		{"common", "1234567890", false},
		{"common, other case", "QwertyUiop", false},
		{"common, Spanish", "Contraseña123", false},
		{"common password with a suffix", "password123!x", true},
		{"long passphrase", "correct horse battery staple", true},
		{"200 characters", strings.Repeat("ab", 100), true},
		{"201 characters", strings.Repeat("ab", 100) + "c", false},
		// Characters, not bytes: ten two-byte runes pass, nine do not.
		{"ten accented letters", "ñáéíóúüçàè", true},
		{"nine accented letters", "ñáéíóúüçà", false},
		{"emoji", "🔐🔑🗝️🔒🔓🛡️🧷🪪", true},
		{"decomposed ñ counts as one character", "ban" + "n\u0303" + "o-caliente", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckPassword(email, c.password)
			if (err == nil) != c.ok {
				t.Fatalf("CheckPassword(%q) = %v, want ok=%v", c.password, err, c.ok)
			}
			if err == nil {
				return
			}
			var e *envelope.Error
			if !errors.As(err, &e) || e.Code != envelope.CodeInvalidBody || len(e.Issues) != 1 || e.Issues[0].Path != "password" {
				t.Fatalf("CheckPassword(%q) = %#v, want one INVALID_BODY issue at password", c.password, err)
			}
		})
	}
}

// The decomposed form of a password is the composed one: the same characters typed on another
// keyboard count and match the same.
func TestPasswordNormalised(t *testing.T) {
	t.Parallel()
	composed, decomposed := "mañana-temprano", "man\u0303ana-temprano"
	if utf8.RuneCountInString(normalisePassword(decomposed)) != utf8.RuneCountInString(composed) {
		t.Fatalf("decomposed %q counts %d characters", decomposed, utf8.RuneCountInString(normalisePassword(decomposed)))
	}
	if err := CheckPassword("x@y.cl", "contrasen\u0303a"); err == nil {
		t.Fatal("a decomposed common password passed")
	}
}

func TestCommonPasswordList(t *testing.T) {
	t.Parallel()
	lines := strings.Split(strings.TrimSuffix(commonPasswordsFile, "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("common-passwords.txt has %d lines, want 1000", len(lines))
	}
	seen := map[string]int{}
	for i, l := range lines {
		if l == "" || l != strings.TrimSpace(l) {
			t.Errorf("line %d %q is empty or padded", i+1, l)
		}
		k := strings.ToLower(l)
		if j, dup := seen[k]; dup {
			t.Errorf("line %d %q repeats line %d", i+1, l, j)
		}
		seen[k] = i + 1
	}
	if len(commonPasswords) != 1000 {
		t.Errorf("%d common passwords loaded, want 1000", len(commonPasswords))
	}
	for _, w := range []string{"123456", "password", "qwerty", "contraseña", "chile123", "1q2w3e4r5t"} {
		if _, ok := commonPasswords[w]; !ok {
			t.Errorf("%q is not in the list", w)
		}
	}
}

func TestCleanNext(t *testing.T) {
	t.Parallel()
	for next, want := range map[string]string{
		"/sign/abc":                 "/sign/abc",
		"/sign/abc?lang=es":         "/sign/abc?lang=es",
		"/account":                  "/account",
		"/account/totp":             "/account/totp",
		"/account?lang=es":          "/account?lang=es",
		"":                          "",
		"/":                         "",
		"/accounts":                 "",
		"/api/v2/envelope":          "",
		"//evil.example/sign/x":     "",
		"https://evil.example/sign": "",
		"/sign/\\evil":              "",
		"/sign/x\r\nSet-Cookie: a":  "",
		"sign/abc":                  "",
		"javascript:alert(1)":       "",
	} {
		if got := CleanNext(next); got != want {
			t.Errorf("CleanNext(%q) = %q, want %q", next, got, want)
		}
	}
}
