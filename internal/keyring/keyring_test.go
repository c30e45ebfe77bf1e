package keyring

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealOpenRotate(t *testing.T) {
	line1 := NewKeyLine("k1")
	old, err := Parse([]byte("# the first key\n" + line1 + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	id, sealed := old.Seal([]byte("secret token"), []byte("recipient 7"))
	if id != "k1" || bytes.Contains(sealed, []byte("secret token")) {
		t.Fatalf("sealed with %q: %q", id, sealed)
	}
	if got, err := old.Open(id, sealed, []byte("recipient 7")); err != nil || string(got) != "secret token" {
		t.Fatalf("open: %q, %v", got, err)
	}
	if _, err := old.Open(id, sealed, []byte("recipient 8")); err == nil {
		t.Error("opened with another context")
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	if _, err := old.Open(id, tampered, []byte("recipient 7")); err == nil {
		t.Error("opened a tampered value")
	}

	// Rotation: a new first key seals; the old one still opens what it sealed.
	rotated, err := Parse([]byte(NewKeyLine("k2") + "\n" + line1 + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rotated.PrimaryID() != "k2" {
		t.Errorf("primary %q, want k2", rotated.PrimaryID())
	}
	if got, err := rotated.Open("k1", sealed, []byte("recipient 7")); err != nil || string(got) != "secret token" {
		t.Errorf("open the old value after rotation: %q, %v", got, err)
	}
	if _, err := rotated.Open("k9", sealed, nil); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("unknown key: %v", err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tt := range []struct{ name, file string }{
		{"empty", "# nothing\n\n"},
		{"no key", "k1\n"},
		{"not base64", "k1 !!!\n"},
		{"short", "k1 AAAA\n"},
		{"twice", NewKeyLine("k1") + "\n" + NewKeyLine("k1") + "\n"},
	} {
		if _, err := Parse([]byte(tt.file)); err == nil {
			t.Errorf("%s: parsed", tt.name)
		}
	}
}
