package mcphttp

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// fixtures are the programs a test can run as a child: the fixture MCP
// server of fixture_test.go.
var fixtures = testkit.Fixtures{"server": runFixture}

func TestMain(m *testing.M) { fixtures.Main(m) }
