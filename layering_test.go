// Package sobre_test holds the tests of the module as a whole. It has no code of its own: the
// module root is no package of Sobre.
package sobre_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path of Sobre's module; package names in the layout table are relative
// to it.
const module = "github.com/sobre-sign/sobre"

// TestImportsFollowTheLayoutTable reads the README's layout table and the real import graph of
// the module's packages (their non-test imports, from go list) and fails on every difference:
// an import the table does not allow, an allowance no package uses, a package without a row,
// a row naming a package that does not exist.
func TestImportsFollowTheLayoutTable(t *testing.T) {
	table := readLayoutTable(t)
	graph := readImportGraph(t)
	for _, problem := range layoutProblems(table, graph) {
		t.Error(problem)
	}
}

// TestLayoutProblemsFindsEveryDifference feeds the checker today's table with graphs that differ
// from it, so the test above is known to fail when an arrow is added against the table.
func TestLayoutProblemsFindsEveryDifference(t *testing.T) {
	table := readLayoutTable(t)
	graph := readImportGraph(t)
	baseline := layoutProblems(table, graph)

	tests := []struct {
		name   string
		change func(g importGraph)
		want   string
	}{
		{
			name:   "the domain imports the store",
			change: func(g importGraph) { g.add("envelope", module+"/persistence") },
			want:   "envelope imports persistence, but its row allows the standard library only",
		},
		{
			name:   "the configuration imports the mail",
			change: func(g importGraph) { g.add("config", module+"/mail") },
			want:   "config imports mail, which the layout table does not allow",
		},
		{
			name:   "a helper that must import nothing of Sobre imports the domain",
			change: func(g importGraph) { g.add("pdf", module+"/envelope") },
			want:   "pdf imports envelope, which the layout table does not allow",
		},
		{
			name:   "the workflow imports the store",
			change: func(g importGraph) { g.add("workflows", module+"/persistence") },
			want:   "workflows imports persistence, which the layout table does not allow",
		},
		{
			name:   "the domain imports a library",
			change: func(g importGraph) { g.add("envelope", "github.com/jackc/pgx/v5") },
			want:   "envelope imports github.com/jackc/pgx/v5, but its row allows the standard library only",
		},
		{
			name:   "the store imports the API",
			change: func(g importGraph) { g.add("persistence", module+"/api") },
			want:   "persistence imports api, which the layout table does not allow",
		},
		{
			name:   "a package without a row",
			change: func(g importGraph) { g["internal/newthing"] = nil },
			want:   "internal/newthing has no row in the layout table",
		},
		{
			name:   "an allowance nobody uses",
			change: func(g importGraph) { g["mail"] = nil },
			want:   "the layout table lets mail import envelope, but it does not",
		},
		{
			name:   "a row naming no package",
			change: func(g importGraph) { delete(g, "internal/webauthntest") },
			want:   "the layout table has a row for internal/webauthntest, which holds no Go package",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.clone()
			tt.change(g)
			got := layoutProblems(table, g)
			if !slices.Contains(got, tt.want) {
				t.Errorf("problems = %q, want one to be %q", got, tt.want)
			}
			if len(got) != len(baseline)+1 {
				t.Errorf("got %d problems, want the %d of the real graph and one more: %q", len(got), len(baseline), got)
			}
		})
	}
}

// layoutRow is one row of the README's layout table: a folder and what its packages may import.
type layoutRow struct {
	folder string // relative to the module root, without a trailing slash
	// kind says how to read imports: one of the kinds below.
	kind    rowKind
	imports []string // packages of Sobre, relative to the module root (kind listed)
}

// rowKind is what a row's "may import" column says.
type rowKind int

const (
	listed       rowKind = iota // a list of Sobre's packages in backquotes
	stdlibOnly                  // "the standard library only": no library either
	nothingSobre                // "nothing of Sobre": libraries, but no package of Sobre
	noPackage                   // "—": the folder holds no Go package
)

// readLayoutTable parses the table under the README's "## Layout" heading.
func readLayoutTable(t *testing.T) []layoutRow {
	t.Helper()
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatalf("open the README: %v", err)
	}
	defer f.Close()
	rows, err := parseLayoutTable(f)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	return rows
}

// parseLayoutTable reads the first Markdown table after the "## Layout" heading: each row's
// first column is a folder in backquotes, its last the packages the folder may import.
func parseLayoutTable(r io.Reader) ([]layoutRow, error) {
	var rows []layoutRow
	inSection, inTable := false, false
	scanner := bufio.NewScanner(r)
	for line := 0; scanner.Scan(); {
		line++
		text := scanner.Text()
		switch {
		case strings.HasPrefix(text, "## "):
			if inTable {
				return rows, nil
			}
			inSection = text == "## Layout"
			continue
		case !inSection:
			continue
		case !strings.HasPrefix(text, "|"):
			if inTable {
				return rows, nil
			}
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		if !inTable { // the header row
			if len(cells) < 2 || strings.TrimSpace(cells[len(cells)-1]) != "may import" {
				return nil, fmt.Errorf("line %d: the layout table's last column is not \"may import\": %q", line, text)
			}
			inTable = true
			continue
		}
		if strings.HasPrefix(text, "|---") {
			continue
		}
		row, err := parseLayoutRow(cells[0], cells[len(cells)-1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		rows = append(rows, row)
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New(`no table under "## Layout"`)
	}
	return rows, nil
}

// parseLayoutRow reads a row's folder and "may import" cells.
func parseLayoutRow(folderCell, importsCell string) (layoutRow, error) {
	folder, ok := strings.CutPrefix(strings.TrimSpace(folderCell), "`")
	folder, ok2 := strings.CutSuffix(folder, "`")
	if !ok || !ok2 || folder == "" {
		return layoutRow{}, fmt.Errorf("the folder %q is not in backquotes", folderCell)
	}
	row := layoutRow{folder: strings.TrimSuffix(folder, "/")}
	switch cell := strings.TrimSpace(importsCell); cell {
	case "the standard library only":
		row.kind = stdlibOnly
	case "nothing of Sobre":
		row.kind = nothingSobre
	case "—":
		row.kind = noPackage
	default:
		row.kind = listed
		for item := range strings.SplitSeq(cell, ",") {
			name, ok := strings.CutPrefix(strings.TrimSpace(item), "`")
			name, ok2 := strings.CutSuffix(name, "`")
			if !ok || !ok2 || name == "" {
				return layoutRow{}, fmt.Errorf("%s: %q is not a package in backquotes, \"the standard library only\", \"nothing of Sobre\" or \"—\"", row.folder, item)
			}
			row.imports = append(row.imports, name)
		}
	}
	return row, nil
}

// importGraph maps each package of the module (relative to the module root) to the import paths
// of its non-test files.
type importGraph map[string][]string

func (g importGraph) add(pkg, imported string) { g[pkg] = append(g[pkg], imported) }

func (g importGraph) clone() importGraph {
	c := make(importGraph, len(g))
	for pkg, imports := range g {
		c[pkg] = slices.Clone(imports)
	}
	return c
}

// readImportGraph lists the module's packages and their imports with go list.
func readImportGraph(t *testing.T) importGraph {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	graph := importGraph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&pkg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("read go list's output: %v", err)
		}
		name, ok := strings.CutPrefix(pkg.ImportPath, module+"/")
		if !ok {
			continue // the module root: this test only
		}
		graph[name] = pkg.Imports
	}
	return graph
}

// layoutProblems compares the table with the graph. A package follows the row of its folder or,
// when its folder has none, of the nearest folder above it with one.
func layoutProblems(table []layoutRow, graph importGraph) []string {
	var problems []string
	rows := map[string]layoutRow{}
	for _, row := range table {
		rows[row.folder] = row
	}
	used := map[string]map[string]bool{} // folder → allowed package → imported by one of its packages
	governed := map[string]bool{}        // folder → follows at least one package

	pkgs := make([]string, 0, len(graph))
	for pkg := range graph {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		row, ok := rowOf(rows, pkg)
		if !ok {
			problems = append(problems, pkg+" has no row in the layout table")
			continue
		}
		governed[row.folder] = true
		for _, imported := range graph[pkg] {
			own, ofSobre := strings.CutPrefix(imported, module+"/")
			switch {
			case row.kind == stdlibOnly && !isStandard(imported):
				problems = append(problems, fmt.Sprintf("%s imports %s, but its row allows the standard library only", pkg, strings.TrimPrefix(imported, module+"/")))
			case !ofSobre:
			case row.kind == noPackage:
				// reported below, once for the row
			case !slices.Contains(row.imports, own):
				problems = append(problems, fmt.Sprintf("%s imports %s, which the layout table does not allow", pkg, own))
			default:
				if used[row.folder] == nil {
					used[row.folder] = map[string]bool{}
				}
				used[row.folder][own] = true
			}
		}
	}
	for _, row := range table {
		switch {
		case row.kind == noPackage && governed[row.folder]:
			problems = append(problems, fmt.Sprintf("the layout table marks %s as holding no Go package (—), but it holds one", row.folder))
		case row.kind != noPackage && !governed[row.folder]:
			problems = append(problems, fmt.Sprintf("the layout table has a row for %s, which holds no Go package", row.folder))
		}
		for _, allowed := range row.imports {
			switch {
			case !slices.Contains(pkgs, allowed):
				problems = append(problems, fmt.Sprintf("the layout table lets %s import %s, which is no package", row.folder, allowed))
			case governed[row.folder] && !used[row.folder][allowed]:
				problems = append(problems, fmt.Sprintf("the layout table lets %s import %s, but it does not", row.folder, allowed))
			}
		}
	}
	return problems
}

// rowOf finds the row a package follows: its folder's, or the nearest folder's above it.
func rowOf(rows map[string]layoutRow, pkg string) (layoutRow, bool) {
	for folder := pkg; ; {
		if row, ok := rows[folder]; ok {
			return row, true
		}
		i := strings.LastIndex(folder, "/")
		if i < 0 {
			return layoutRow{}, false
		}
		folder = folder[:i]
	}
}

// isStandard reports whether an import path is of the standard library: its first element has
// no dot, as go list's own rule has it for paths outside GOROOT's vendor tree.
func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
