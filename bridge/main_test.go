package bridge

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain re-executes the test binary as a fixture MCP server when
// BRIDGE_TEST_FIXTURE names one, and otherwise runs the tests with a
// goroutine leak check.
func TestMain(m *testing.M) {
	if name := os.Getenv("BRIDGE_TEST_FIXTURE"); name != "" {
		os.Exit(runFixture(name))
	}
	goleak.VerifyTestMain(m)
}

// fixtures are the programs a test can run as a child; each test file
// registers its own from init.
var fixtures = map[string]func() int{}

func runFixture(name string) int {
	f, ok := fixtures[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown fixture %q\n", name)
		return 2
	}
	return f()
}
