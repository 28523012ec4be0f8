package mcphttp

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// fixtures are the programs a test can run as a child: the fixture MCP
// server of fixture_test.go.
var fixtures = testkit.Fixtures{"server": runFixture}

func TestMain(m *testing.M) {
	reaper.Main() // the test binary is the reaper of the children its tests start
	fixtures.Main(m)
}
