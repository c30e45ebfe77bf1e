// Command fuzztargets prints every fuzz test of the module as "package:FuzzName", one a line,
// for `make test` to give each a short run.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var fuzzFunc = regexp.MustCompile(`^func (Fuzz\w+)\(`)

func main() {
	var targets []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := fuzzFunc.FindStringSubmatch(sc.Text()); m != nil {
				targets = append(targets, "./"+filepath.Dir(path)+":"+m[1])
			}
		}
		return sc.Err()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzztargets:", err)
		os.Exit(1)
	}
	sort.Strings(targets)
	for _, t := range targets {
		fmt.Println(t)
	}
}
