package testkit

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// readmeProgram is a fenced Go block of README.md that is a whole program.
var readmeProgram = regexp.MustCompile("(?s)```go\n(package main\n.*?)```")

// READMEProgram builds the one Go program README.md prints (the server of
// "Writing a stdio MCP server in Go"), as printed, and returns the path
// of the binary, in a directory the test removes.
func READMEProgram(tb testing.TB) string {
	tb.Helper()
	root := ModuleRoot(tb)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		tb.Fatal(err)
	}
	blocks := readmeProgram.FindAllSubmatch(readme, -1)
	if len(blocks) != 1 {
		tb.Fatalf("README.md has %d Go blocks that are programs, want 1", len(blocks))
	}
	src := filepath.Join(tb.TempDir(), "main.go")
	if err := os.WriteFile(src, blocks[0][1], 0o644); err != nil {
		tb.Fatal(err)
	}
	bin := GoBuild(tb, src)
	return bin
}
