//go:build linux

package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/stdio/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main() // the test binary is the entry of the sandboxes its tests start
	goleak.VerifyTestMain(m)
}

// run runs argv inside p and returns its output and error.
func run(t *testing.T, p sandbox.Profile, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	f, err := sandbox.Wrap(cmd, p, t.TempDir())
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	defer f.Release()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestFences: a sandboxed command reads what its profile lets it (the
// defaults, its declared paths) and nothing else, writes only its
// temporary directory and declared paths, has no network but its own
// loopback and no capabilities, and a declared path that does not exist
// refuses the start naming it.
func TestFences(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := t.TempDir()
	p := sandbox.Profile{Network: sandbox.NetworkNone, Write: []string{shared}, Limits: sandbox.Limits{OpenFiles: 64}}
	for _, c := range []struct {
		script string
		ok     bool
	}{
		{"cat /etc/os-release >/dev/null", true},                         // a default read path
		{"cat " + secret, false},                                         // outside every list
		{"echo x > $TMPDIR/f && cat $TMPDIR/f", true},                    // its temporary directory
		{"echo x > " + shared + "/f", true},                              // a declared write path
		{"echo x > " + filepath.Dir(secret) + "/g", false},               // outside the write list
		{"grep -q '^CapEff:\t0000000000000000' /proc/self/status", true}, // no capabilities
		{"grep -q '^NoNewPrivs:\t1' /proc/self/status", true},
		{"grep -q '^Seccomp:\t2' /proc/self/status", true},
		{"[ \"$(ulimit -n)\" = 64 ]", true},
		{"grep -q '^ *lo:' /proc/net/dev && [ $(grep -c : /proc/net/dev) = 1 ]", true}, // lo alone
	} {
		out, err := run(t, p, sh, "-c", c.script)
		if (err == nil) != c.ok {
			t.Errorf("%q in the sandbox: %v %q, want success %v", c.script, err, out, c.ok)
		}
	}
	out, err := run(t, sandbox.Profile{Read: []string{"/no/such/path"}}, sh, "-c", "true")
	if err == nil || !strings.Contains(out, "mcpbridge sandbox: filesystem: /no/such/path cannot be granted") {
		t.Errorf("a missing declared path: %v %q, want a refusal naming it", err, out)
	}
}
