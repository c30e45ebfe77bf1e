package pdf

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	os.MkdirAll("/tmp/woc", 0o755)
	n := 0
	filepath.WalkDir("/root/go/pkg/mod", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".pdf") {
			return nil
		}
		data, _ := os.ReadFile(p)
		ms, err := FindText(data, "e")
		if err != nil {
			return nil
		}
		if len(ms) > 20 {
			ms = ms[:20]
		}
		if len(ms) == 0 {
			ms = []Match{{Page: 1, X: 10, Y: 10, Width: 10, Height: 10}}
		}
		out, err := WhiteOut(data, ms)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		n++
		base := fmt.Sprintf("/tmp/woc/%03d", n)
		os.WriteFile(base+"-in.pdf", data, 0o644)
		os.WriteFile(base+"-out.pdf", out, 0o644)
		os.WriteFile(base+".name", []byte(p+fmt.Sprintf(" appended=%v", strings.HasPrefix(string(out), string(data)))), 0o644)
		return nil
	})
}
