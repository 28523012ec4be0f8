package sidebyside

import (
	"bytes"
	"go/scanner"
	"go/token"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// Servers are the names of the two programs, their directories here.
var Servers = []string{"sdk", "mcpbridge"}

// Source returns the path of server name's source file, main.go in its
// directory.
func Source(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(testkit.ModuleRoot(tb), "internal", "testkit", "sidebyside", name, "main.go")
}

// Build builds server name into tb's temporary directory and returns the
// binary's path: with the race detector when the test binary has it, so
// that the server is checked too.
func Build(tb testing.TB, name string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), name)
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./internal/testkit/sidebyside/"+name)...)
	cmd.Dir = testkit.ModuleRoot(tb)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go %v: %v\n%s", args, err, out)
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
