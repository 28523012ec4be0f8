package bridge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestArchitectureNamesEveryFile holds docs/architecture.md to the
// module's layout. Every package of the project (projectPackages: a
// directory with non-test Go files that git tracks, outside testdata,
// node_modules, examples and the modules of its own, such as
// deploy/validate) has a row in the package table, whose first cell names
// its path. Every non-test Go file of a package, of any GOOS or build
// tag, is named where the doc describes the package: in its file table
// (the table after "The files of `path`" or "The files of package
// `path`") when it has one, else in its row; a name may be a pattern
// (`*.pb.go`, `process*.go`). Nothing named is gone: every path of the
// package table exists, and every file a row or a file table names is in
// its package, every pattern matching one.
func TestArchitectureNamesEveryFile(t *testing.T) {
	checkArchitecture(t, testkit.ModuleRoot(t), t.Errorf)
}

// checkArchitecture reports through errorf each way in which the module
// at root and its docs/architecture.md disagree.
func checkArchitecture(t testing.TB, root string, errorf func(format string, args ...any)) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)

	// The package table: a row's paths, and the row of each path.
	rows := map[string]string{}
	for _, row := range tableAfter(t, doc, packageTable) {
		first, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
		paths := codeSpans(first)
		if len(paths) == 0 {
			errorf("docs/architecture.md's package table has a row that names no path: %s", row)
		}
		for _, p := range paths {
			p = strings.TrimSuffix(p, "/")
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				errorf("docs/architecture.md's package table names %s, which is not there", p)
			}
			rows[p] = row
		}
		// The files the row names are in one of its packages.
		for _, f := range goNames(row) {
			if !slices.ContainsFunc(paths, func(p string) bool { return matchesIn(root, strings.TrimSuffix(p, "/"), f) }) {
				errorf("docs/architecture.md's package table names %s in the row of %s, which is in none of them", f, strings.Join(paths, ", "))
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
				errorf("docs/architecture.md's file table of %s names %s, which is not there", p, f)
			}
		}
	}

	for _, pkg := range projectPackages(t, root) {
		row, ok := rows[pkg.path]
		if !ok {
			errorf("docs/architecture.md's package table has no row for %s (files %s)", pkg.path, strings.Join(pkg.files, ", "))
			continue
		}
		where, what := row, "in its row of the package table"
		if table, ok := fileTables[pkg.path]; ok {
			where, what = table, "in its file table"
		}
		names := goNames(where)
		for _, f := range pkg.files {
			if !slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(n, f); return ok }) {
				errorf("docs/architecture.md does not name %s/%s %s", pkg.path, f, what)
			}
		}
	}
}

// packageTable is the header of docs/architecture.md's package table.
const packageTable = "| Path | Package | What it owns |"

// TestLayoutLeavesAUsersOwnPackageAlone: a user who writes a server of
// their own in the checkout, as the README's server section says
// (weather/main.go), does not fail the layout tests, since their package
// is not the project's; the same package once git tracks it is the
// project's, and fails them until docs/architecture.md has its row. The
// checkout is copied, with git's index of it, to a temporary directory.
func TestLayoutLeavesAUsersOwnPackageAlone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: without it every package under the doc's top-level directories is the project's")
	}
	root := testkit.ModuleRoot(t)
	tracked, err := gitOutput(root, "ls-files", "-z")
	if err != nil {
		t.Skipf("%s is not a git checkout (%v)", root, err)
	}
	tmp := t.TempDir()
	var files []string
	for f := range strings.SplitSeq(strings.TrimSuffix(tracked, "\x00"), "\x00") {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(tmp, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, args := range [][]string{{"init", "-q"}, append([]string{"add", "--"}, files...)} {
		if _, err := gitOutput(tmp, args...); err != nil {
			t.Fatalf("git %s: %v", args[0], err)
		}
	}
	if err := os.MkdirAll(filepath.Join(tmp, "weather"), 0o755); err != nil {
		t.Fatal(err)
	}
	mainGo := "package main\n\nfunc main() {}\n"
	if err := os.WriteFile(filepath.Join(tmp, "weather", "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "weather", "main_test.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	check := func() (found []string) {
		collect := func(format string, args ...any) { found = append(found, fmt.Sprintf(format, args...)) }
		checkArchitecture(t, tmp, collect)
		checkLeakChecks(t, tmp, collect)
		return found
	}
	if found := check(); len(found) != 0 {
		t.Errorf("with the user's own weather/main.go the layout checks found:\n%s", strings.Join(found, "\n"))
	}
	if _, err := gitOutput(tmp, "add", "--", "weather"); err != nil {
		t.Fatal(err)
	}
	found := strings.Join(check(), "\n")
	for _, want := range []string{"package table has no row for weather (files main.go)", "weather has tests but no TestMain"} {
		if !strings.Contains(found, want) {
			t.Errorf("weather tracked by git: the layout checks found %q, want %q", found, want)
		}
	}

	// A copy without git: weather is outside the doc's top-level
	// directories, a new package inside them is the project's.
	if err := os.RemoveAll(filepath.Join(tmp, ".git")); err != nil {
		t.Fatal(err)
	}
	if found := check(); len(found) != 0 {
		t.Errorf("without git, with weather/main.go the layout checks found:\n%s", strings.Join(found, "\n"))
	}
	if err := os.MkdirAll(filepath.Join(tmp, "internal", "extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "internal", "extra", "extra.go"), []byte("package extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, want := strings.Join(check(), "\n"), "package table has no row for internal/extra"; !strings.Contains(found, want) {
		t.Errorf("without git, a new internal/extra: the layout checks found %q, want %q", found, want)
	}
}

// A modulePackage is a directory of the module with non-test Go files.
type modulePackage struct {
	path  string   // slash-separated, relative to the module root
	files []string // its non-test Go files, of every GOOS and build tag
}

// projectPackages are the project's own packages of the module at root:
// those with a Go file that git tracks (or has been asked to, git add).
// A package someone adds to the checkout for themselves, such as the
// README's weather/main.go, is not the project's layout; a new package of
// the project's is held to the docs once it is added to git, and at the
// latest in CI's clean clone. Without git (a copy of the tree, not a
// checkout) the project's packages are those at the root and under the
// top-level directories that docs/architecture.md's package table names.
func projectPackages(t testing.TB, root string) []modulePackage {
	t.Helper()
	all := modulePackages(t, root)
	var ours func(modulePackage) bool
	if out, err := gitOutput(root, "ls-files", "-z", "--", "*.go"); err == nil {
		dirs := map[string]bool{}
		for f := range strings.SplitSeq(out, "\x00") {
			if f != "" {
				dirs[path.Dir(f)] = true
			}
		}
		ours = func(p modulePackage) bool { return dirs[p.path] }
	} else {
		raw, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
		if err != nil {
			t.Fatal(err)
		}
		tops := map[string]bool{".": true}
		for _, row := range tableAfter(t, string(raw), packageTable) {
			first, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
			for _, p := range codeSpans(first) {
				top, _, _ := strings.Cut(strings.TrimSuffix(p, "/"), "/")
				tops[top] = true
			}
		}
		ours = func(p modulePackage) bool { top, _, _ := strings.Cut(p.path, "/"); return tops[top] }
	}
	var out []modulePackage
	for _, p := range all {
		if ours(p) {
			out = append(out, p)
		} else {
			t.Logf("%s is not the project's (git does not track it): its layout is not checked", p.path)
		}
	}
	return out
}

// gitOutput runs git in dir and returns its standard output.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// modulePackages are the packages of the module at root.
func modulePackages(t testing.TB, root string) []modulePackage {
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
func sources(t testing.TB, dir string) []string {
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
func tableAfter(t testing.TB, doc, start string) []string {
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
	checkLeakChecks(t, testkit.ModuleRoot(t), t.Errorf)
}

// checkLeakChecks reports through errorf each package of the project at
// root with tests and no TestMain that checks for leaks.
func checkLeakChecks(t testing.TB, root string, errorf func(format string, args ...any)) {
	t.Helper()
	checks := regexp.MustCompile(`goleak\.VerifyTestMain\(m|goleak\.Find\(\)|fixtures\.Main\(m`)
	for _, pkg := range projectPackages(t, root) {
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
			errorf("%s has tests but no TestMain that checks for leaks (goleak.VerifyTestMain, goleak.Find or fixtures.Main)", pkg.path)
		}
	}
}
