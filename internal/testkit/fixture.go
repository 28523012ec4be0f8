package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// FixtureEnv names the fixture that a re-executed test binary runs instead
// of its tests.
const FixtureEnv = "MCPBRIDGE_TEST_FIXTURE"

// Fixtures are the programs a package's test binary can run as a child
// process of its own tests: a misbehaving MCP server, a host that dies, a
// tap. Each test file adds its own from init; the package's TestMain calls
// [Fixtures.Main], and a test starts one with [FixtureCommand].
type Fixtures map[string]func() int

// Main is a package's TestMain. A package whose tests start children
// under the reaper calls stdio/reaper's Main before it, so that the test
// binary can be the reaper of those children (a reaper runs its command
// and exits there): test support imports nothing of stdio. In a process
// started by
// [FixtureCommand] it runs the fixture FixtureEnv names and exits with its
// status (2 for an unknown name); otherwise it runs the tests and fails
// them when a goroutine leaked.
func (f Fixtures) Main(m *testing.M, opts ...goleak.Option) {
	if name := os.Getenv(FixtureEnv); name != "" {
		run, ok := f[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown fixture %q\n", name)
			os.Exit(2)
		}
		os.Exit(run())
	}
	goleak.VerifyTestMain(m, opts...)
}

// FixtureCommand returns a command that runs fixture name: this test binary
// again, with FixtureEnv=name and env ("KEY=value") added to the test's own
// environment. The fixture must be registered in the package's Fixtures.
// Under -race the child skips the race detector's one-second sleep at exit.
func FixtureCommand(tb testing.TB, name string, env ...string) *exec.Cmd {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatalf("finding the test binary: %v", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), FixtureEnv+"="+name, QuickRaceExit())
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// QuickRaceExit is the GORACE setting ("GORACE=...") that keeps a
// race-enabled child from sleeping a second at exit, which every test that
// waits for a child would add; the report does not need it.
func QuickRaceExit() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}
