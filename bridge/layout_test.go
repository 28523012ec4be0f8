package bridge

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestArchitectureNamesEveryFile holds docs/architecture.md to the
// layout: every package under bridge/ is in its package table, every
// source file of package bridge is in its file table, and every file of
// an internal package is named in that package's row; the file table
// names no file that is gone.
func TestArchitectureNamesEveryFile(t *testing.T) {
	root := testkit.ModuleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // a package path's row of the package table
	for _, line := range strings.Split(string(doc), "\n") {
		if m := regexp.MustCompile("^\\| `([a-z/]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[strings.TrimSuffix(m[1], "/")] = line
		}
	}
	fileTable := section(t, string(doc), "The files of package `bridge`", "\n\n")
	dirs, err := filepath.Glob(filepath.Join(root, "bridge", "*"))
	if err != nil {
		t.Fatal(err)
	}
	internal, _ := filepath.Glob(filepath.Join(root, "bridge", "internal", "*"))
	for _, dir := range append(append([]string{filepath.Join(root, "bridge")}, dirs...), internal...) {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		files := sources(t, dir)
		if len(files) == 0 {
			continue // not a package
		}
		row, ok := rows[rel]
		if !ok {
			t.Errorf("docs/architecture.md's package table has no row for %s", rel)
			continue
		}
		where := row
		if rel == "bridge" {
			where = fileTable
		} else if !strings.HasPrefix(rel, "bridge/internal/") {
			continue // a public package: its row says what it owns, not its files
		}
		for _, f := range files {
			if !strings.Contains(where, "`"+f+"`") {
				t.Errorf("docs/architecture.md does not name %s/%s where it describes %s", rel, f, rel)
			}
		}
	}
	for _, m := range regexp.MustCompile("`([a-z_]+\\.go)`").FindAllStringSubmatch(fileTable, -1) {
		if _, err := os.Stat(filepath.Join(root, "bridge", m[1])); err != nil {
			t.Errorf("docs/architecture.md's table of package bridge names %s, which is not there", m[1])
		}
	}
}

// sources are the non-test Go files of dir.
func sources(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			out = append(out, filepath.Base(m))
		}
	}
	return out
}

// section is the text of doc from the line that holds start to the next
// end.
func section(t *testing.T, doc, start, end string) string {
	t.Helper()
	i := strings.Index(doc, start)
	if i < 0 {
		t.Fatalf("docs/architecture.md has no %q", start)
	}
	rest := doc[i:]
	// The table starts after the heading's paragraph.
	j := strings.Index(rest, "\n|")
	if j < 0 {
		t.Fatalf("no table after %q", start)
	}
	if k := strings.Index(rest[j+1:], end); k >= 0 {
		return rest[:j+1+k]
	}
	return rest
}
