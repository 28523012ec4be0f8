package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// mcpbridgeBin is the mcpbridge binary TestMain builds for the end-to-end
// tests, which run it as a real process.
var mcpbridgeBin string

// TestMain re-executes the test binary as a fixture program when
// MCPBRIDGE_TEST_FIXTURE names one; otherwise it builds the mcpbridge
// binary into a temporary directory and runs the tests with a goroutine
// leak check.
func TestMain(m *testing.M) {
	if name := os.Getenv("MCPBRIDGE_TEST_FIXTURE"); name != "" {
		os.Exit(runFixture(name))
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpbridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	mcpbridgeBin = filepath.Join(dir, "mcpbridge")
	build := exec.Command("go", "build", "-o", mcpbridgeBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcpbridge:", err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
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
