// Command featestca writes the test certification authority of FAO_HASH into a folder
// (testdata/fea): a root and an intermediate CA, advanced-signature certificates for sandbox
// RUNs (the RUT in a subjectAltName otherName 1.3.6.1.4.1.8321.1, as Decreto 181 puts it), an
// expired one, and one from a root nobody trusts. Holder keys are written too: they are test
// keys, committed on purpose, for tests that sign digests with openssl. CA keys are not kept.
// The certificates are made by package featest, which tests also use to make certificates of
// other shapes (key usages, policies, OCSP responders) when they need them.
//
//	go run ./scripts/featestca testdata/fea
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/sobre-sign/sobre/auth/fea/featest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: featestca DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "featestca:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(24 * time.Hour)
	long := now.AddDate(30, 0, 0)
	root, err := featest.NewRoot("Sobre Test FEA Root CA", now.AddDate(-1, 0, 0), long)
	if err != nil {
		return err
	}
	inter, err := root.IssueCA("Sobre Test FEA Issuing CA", now.AddDate(-1, 0, 0), long)
	if err != nil {
		return err
	}
	stranger, err := featest.NewRoot("Untrusted Test Root CA", now.AddDate(-1, 0, 0), long)
	if err != nil {
		return err
	}
	expired := featest.Advanced("María Carmen Del Río González", "44444444-4", now)
	expired.NotBefore, expired.NotAfter = now.AddDate(-3, 0, 0), now.AddDate(-1, 0, 0)
	holders := []struct {
		file   string
		holder featest.Holder
		issuer *featest.Issued
	}{
		{"holder-44444444-4", featest.Advanced("María Carmen Del Río González", "44444444-4", now), inter},
		{"holder-55555555-5", featest.Advanced("José Miguel Ñúñez Pérez", "55555555-5", now), inter},
		{"holder-expired", expired, inter},
		{"untrusted-holder", featest.Advanced("María Carmen Del Río González", "44444444-4", now), stranger},
	}
	for _, h := range holders {
		leaf, err := h.issuer.Issue(h.holder)
		if err != nil {
			return err
		}
		if err := leaf.WriteFiles(dir, h.file, true); err != nil {
			return err
		}
	}
	for file, c := range map[string]*featest.Issued{"root": root, "intermediate": inter, "untrusted-root": stranger} {
		if err := c.WriteFiles(dir, file, false); err != nil {
			return err
		}
	}
	return nil
}
