package bridge

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestArchitectureNamesEveryFile holds docs/architecture.md to the
// module's layout. Every package of the module (a directory with non-test
// Go files, outside testdata, node_modules, examples and the modules of
// its own, such as deploy/validate) has a row in the package table, whose
// first cell names its path. Every non-test Go file of a package, of any
// GOOS or build tag, is named where the doc describes the package: in its
// file table (the table after "The files of `path`" or "The files of
// package `path`") when it has one, else in its row; a name may be a
// pattern (`*.pb.go`, `process*.go`). Nothing named is gone: every path
// of the package table exists, and every file a row or a file table
// names is in its package, every pattern matching one.
func TestArchitectureNamesEveryFile(t *testing.T) {
	root := testkit.ModuleRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)

	// The package table: a row's paths, and the row of each path.
	rows := map[string]string{}
	for _, row := range tableAfter(t, doc, "| Path | Package | What it owns |") {
		first, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
		paths := codeSpans(first)
		if len(paths) == 0 {
			t.Errorf("docs/architecture.md's package table has a row that names no path: %s", row)
		}
		for _, p := range paths {
			p = strings.TrimSuffix(p, "/")
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				t.Errorf("docs/architecture.md's package table names %s, which is not there", p)
			}
			rows[p] = row
		}
		// The files the row names are in one of its packages.
		for _, f := range goNames(row) {
			if !slices.ContainsFunc(paths, func(p string) bool { return matchesIn(root, strings.TrimSuffix(p, "/"), f) }) {
				t.Errorf("docs/architecture.md's package table names %s in the row of %s, which is in none of them", f, strings.Join(paths, ", "))
			}
		}
	}

	// The file tables: the table of each package that has one.
	fileTables := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^The files of (?:package )?`([^`]+)`").FindAllStringSubmatchIndex(doc, -1) {
		p := strings.TrimSuffix(doc[m[2]:m[3]], "/")
		table := strings.Join(tableAfter(t, doc[m[0]:], doc[m[0]:m[1]]), "\n")
		fileTables[p] = table
		for _, f := range goNames(table) {
			if !matchesIn(root, p, f) {
				t.Errorf("docs/architecture.md's file table of %s names %s, which is not there", p, f)
			}
		}
	}

	for _, pkg := range modulePackages(t, root) {
		row, ok := rows[pkg.path]
		if !ok {
			t.Errorf("docs/architecture.md's package table has no row for %s (files %s)", pkg.path, strings.Join(pkg.files, ", "))
			continue
		}
		where, what := row, "in its row of the package table"
		if table, ok := fileTables[pkg.path]; ok {
			where, what = table, "in its file table"
		}
		names := goNames(where)
		for _, f := range pkg.files {
			if !slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(n, f); return ok }) {
				t.Errorf("docs/architecture.md does not name %s/%s %s", pkg.path, f, what)
			}
		}
	}
}

// A modulePackage is a directory of the module with non-test Go files.
type modulePackage struct {
	path  string   // slash-separated, relative to the module root
	files []string // its non-test Go files, of every GOOS and build tag
}

// modulePackages are the packages of the module at root.
func modulePackages(t *testing.T, root string) []modulePackage {
	t.Helper()
	var out []modulePackage
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if p != root {
			if name == "testdata" || name == "node_modules" || name == "vendor" || rel == "examples" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
		}
		if files := sources(t, p); len(files) > 0 {
			out = append(out, modulePackage{path: rel, files: files})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goNames are the Go file names and patterns that text names in code
// spans: `x.go`, `x_*.go`.
func goNames(text string) []string {
	var out []string
	for _, s := range codeSpans(text) {
		if regexp.MustCompile(`^[A-Za-z0-9_.*]+\.go$`).MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}

// matchesIn reports whether name, a file name or a pattern, names a file
// of the directory pkg of the module at root.
func matchesIn(root, pkg, name string) bool {
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(pkg), name))
	return len(matches) > 0
}

// codeSpans are the texts of the code spans of s.
func codeSpans(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
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

// tableAfter returns the rows (header and separator left out) of the
// first table after the line of doc that holds start; the table may be
// that line itself, its header.
func tableAfter(t *testing.T, doc, start string) []string {
	t.Helper()
	i := strings.Index(doc, start)
	if i < 0 {
		t.Fatalf("docs/architecture.md has no %q", start)
	}
	lines := strings.Split(doc[i:], "\n")
	header := -1
	for j, line := range lines {
		if strings.HasPrefix(line, "|") {
			header = j
			break
		}
	}
	if header < 0 || header+1 >= len(lines) || !strings.HasPrefix(lines[header+1], "|---") {
		t.Fatalf("docs/architecture.md has no table after %q", start)
	}
	var rows []string
	for _, line := range lines[header+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, line)
	}
	return rows
}

// Every package with tests checks them for leaked goroutines in its
// TestMain (docs/testing.md, "Leaks and races"): with goleak directly, or
// through testkit.Fixtures.Main, which ends in goleak.VerifyTestMain.
func TestEveryPackageChecksLeaks(t *testing.T) {
	root := testkit.ModuleRoot(t)
	checks := regexp.MustCompile(`goleak\.VerifyTestMain\(m|goleak\.Find\(\)|fixtures\.Main\(m`)
	for _, pkg := range modulePackages(t, root) {
		tests, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pkg.path), "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(tests) == 0 {
			continue
		}
		var main, checked bool
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			main = main || bytes.Contains(b, []byte("\nfunc TestMain(m *testing.M) {"))
			checked = checked || checks.Match(b)
		}
		if !main || !checked {
			t.Errorf("%s has tests but no TestMain that checks for leaks (goleak.VerifyTestMain, goleak.Find or fixtures.Main)", pkg.path)
		}
	}
}
