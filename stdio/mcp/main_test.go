package mcp_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain re-executes the test binary as a fixture server when
// MCP_TEST_FIXTURE names one, and otherwise runs the tests with a
// goroutine leak check.
func TestMain(m *testing.M) {
	if name := os.Getenv("MCP_TEST_FIXTURE"); name != "" {
		f, ok := fixtures[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown fixture %q\n", name)
			os.Exit(2)
		}
		os.Exit(f())
	}
	goleak.VerifyTestMain(m)
}

// fixtures are the programs a test can run as a child.
var fixtures = map[string]func() int{}
