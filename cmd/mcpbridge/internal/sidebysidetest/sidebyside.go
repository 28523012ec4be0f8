package sidebysidetest

import (
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
	return filepath.Join(testkit.ModuleRoot(tb), "cmd", "mcpbridge", "internal", "sidebysidetest", name, "main.go")
}

// Build builds server name (testkit.GoBuild) and returns the binary's
// path.
func Build(tb testing.TB, name string) string {
	tb.Helper()
	return testkit.GoBuild(tb, "./cmd/mcpbridge/internal/sidebysidetest/"+name)
}
