package peer

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests start no child processes (a Client's runs over in-memory
// pipes), so no reaper.Main.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
