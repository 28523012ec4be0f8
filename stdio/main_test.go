package stdio

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// fixtures are programs that tests run by re-executing the test binary with
// STDIO_TEST_FIXTURE set to a name. Each test file registers its own from
// an init function, so that this file never needs editing.
var fixtures = map[string]func() int{}

func runFixture(name string) int {
	f, ok := fixtures[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "stdio test: unknown fixture %q\n", name)
		return 2
	}
	return f()
}

func TestMain(m *testing.M) {
	if name := os.Getenv("STDIO_TEST_FIXTURE"); name != "" {
		os.Exit(runFixture(name))
	}
	goleak.VerifyTestMain(m)
}
