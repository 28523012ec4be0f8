package mcphttp

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// fixtureEnv, when set, makes the test binary run as the fixture MCP server
// of fixture_test.go instead of running tests.
const fixtureEnv = "MCPHTTP_TEST_FIXTURE"

// TestMain re-executes the test binary as the fixture server when
// fixtureEnv is set, and otherwise runs the tests with a goroutine leak
// check.
func TestMain(m *testing.M) {
	if os.Getenv(fixtureEnv) != "" {
		os.Exit(runFixture())
	}
	goleak.VerifyTestMain(m)
}
