package stdio

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// Scenario numbers in this package's tests are those of docs/stdio.md,
// "Acceptance scenarios".

// fixtures are the programs a test can run as a child; each test file
// registers its own from init.
var fixtures = testkit.Fixtures{}

func TestMain(m *testing.M) {
	reaper.Main() // the test binary is the reaper of the children its tests start
	fixtures.Main(m)
}
