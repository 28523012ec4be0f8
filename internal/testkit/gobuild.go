package testkit

import (
	"bytes"
	"go/scanner"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GoBuild builds the Go program pkg (a package path or a .go file as `go
// build` takes it, resolved from the module root, so that its imports
// are this module's) into a directory the test removes, and returns the
// binary's path: with the race detector when the test binary has it, so
// that the program is checked too.
func GoBuild(tb testing.TB, pkg string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), strings.TrimSuffix(filepath.Base(pkg), ".go"))
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = ModuleRoot(tb)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go %v %s: %v\n%s", args, pkg, err, out)
	}
	return bin
}

// CodeLines counts the lines of Go source src that hold code: neither
// blank nor only comment, as cloc and scc count. A line with code and a
// comment counts; every line of a raw string literal counts.
func CodeLines(src []byte) (int, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0) // comments skipped
	code := map[int]bool{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line end, not written
		}
		start := file.Line(pos)
		end := start + bytes.Count([]byte(lit), []byte("\n")) // a raw string spans lines
		for l := start; l <= end; l++ {
			code[l] = true
		}
	}
	return len(code), errs.Err()
}
