package testkit

import (
	"os"
	"testing"
)

// MissingPeer ends a test that cannot run because a peer is not installed.
// what names the peer and install is the command that installs it, run from
// the module root.
//
// Normally it skips the test with tb.Skipf, so go test ./... passes on a
// fresh clone with only Go. When the environment variable CI is exactly
// "true" it fails the test with tb.Fatalf instead: CI installs every peer,
// and a skip there would hide a broken install step.
//
// With a real [testing.TB] MissingPeer does not return; callers that may be
// given another TB return right after it.
func MissingPeer(tb testing.TB, what, install string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s not installed; run: %s (CI=true makes a missing peer a failure)", what, install)
		return
	}
	tb.Skipf("%s not installed; run: %s", what, install)
}
