package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/stdio/sandbox"
)

// mcpbridgeBin is the mcpbridge binary TestMain builds: the tests run
// `mcpbridge demo` as a real child process, the way a host runs it.
var mcpbridgeBin string

// TestMain builds the binary into a temporary directory (with -race when
// the tests run with it, so that the child is checked too), runs the tests,
// and fails them if a goroutine leaked.
func TestMain(m *testing.M) {
	// The benchmarks wrap children in sandboxes from this process: the
	// test binary is their entry (sandbox_bench_test.go).
	sandbox.Main()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpbridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	mcpbridgeBin = filepath.Join(dir, "mcpbridge")
	build := []string{"build", "-o", mcpbridgeBin}
	if raceEnabled {
		build = append(build, "-race")
		// A race-enabled program sleeps a second at exit by default, which
		// every child would add to its test; the report does not need it.
		if os.Getenv("GORACE") == "" {
			os.Setenv("GORACE", "atexit_sleep_ms=0")
		}
	}
	cmd := exec.Command("go", append(build, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go %v: %v\n%s", build, err, out)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	return code
}
