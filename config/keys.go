package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sobre-sign/sobre/internal/keyring"
)

// devKeysFile is the name of the development key file, in SealDevDir.
const devKeysFile = "payload-keys.dev"

// Keyring loads the keys of SOBRE_PAYLOAD_KEYS_FILE or, when it is empty, those of a development
// key file kept in SealDevDir (made on first use; created reports that). Every process of one
// deployment must load the same keys.
func (c Config) Keyring() (ring *keyring.Ring, created bool, err error) {
	path := c.PayloadKeysFile
	if path == "" {
		if path, created, err = devKeyFile(c.SealDevDir, devKeysFile, "SOBRE_PAYLOAD_KEYS_FILE"); err != nil {
			return nil, false, err
		}
	}
	ring, err = keyring.Load(path)
	return ring, created, err
}

// devAuditKeyFile is the name of the development audit key file, in SealDevDir.
const devAuditKeyFile = "audit-key.dev"

// AuditKeyPath returns the audit key file: SOBRE_AUDIT_KEY_FILE or, when it is empty, a
// development key file kept in SealDevDir (made on first use; created reports that). Every
// process of one deployment must use the same keys.
func (c Config) AuditKeyPath() (path string, created bool, err error) {
	if c.AuditKeyFile != "" {
		return c.AuditKeyFile, false, nil
	}
	return devKeyFile(c.SealDevDir, devAuditKeyFile, "SOBRE_AUDIT_KEY_FILE")
}

// devKeyFile returns the development key file name in dir, making it with one new key when it
// does not exist yet (created reports that); variable is what replaces it in production.
func devKeyFile(dir, name, variable string) (path string, created bool, err error) {
	path = filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return path, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("config: development key file %s: %w", name, err)
	}
	text := "# development keys of Sobre: " + variable + " replaces them in production\n" + keyring.NewKeyLine("dev1") + "\n"
	// Written aside, then linked into place: of two processes starting at once, one makes the
	// file and both read it whole.
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return "", false, fmt.Errorf("config: development key file %s: %w", name, err)
	}
	err = os.Link(tmp, path)
	_ = os.Remove(tmp)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", false, fmt.Errorf("config: development key file %s: %w", name, err)
	}
	return path, err == nil, nil
}
