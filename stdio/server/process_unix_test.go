//go:build unix

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

func init() {
	fixtures["serve"] = serveFixture
}

// serveFixture is a stdio MCP server process: it takes stdout first thing,
// as a server binary's main does, and serves the test runtime over stdin
// and the taken descriptor. STDIO_TEST_MAX_LINE sets MaxLineBytes.
func serveFixture() int {
	out, err := TakeStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 1
	}
	flags, err := unix.FcntlInt(out.Fd(), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		fmt.Fprintf(os.Stderr, "fixture: the protocol descriptor is not close-on-exec (%#x, %v)\n", flags, err)
		return 3
	}
	if _, err := TakeStdout(); err == nil {
		fmt.Fprintln(os.Stderr, "fixture: a second TakeStdout succeeded")
		return 3
	}
	cfg := Config{}
	if n, err := strconv.Atoi(os.Getenv("STDIO_TEST_MAX_LINE")); err == nil {
		cfg.MaxLineBytes = n
	}
	rt := newFakeRuntime()
	rt.handle = func(ctx context.Context, req *seam.Request) (json.RawMessage, error) {
		if req.Method != "noisy" {
			return rt.fixture(ctx, req)
		}
		// Everything here must land on stderr, never on the protocol output.
		fmt.Println("stray println")
		os.Stdout.WriteString("stray os.Stdout write\n")
		slog.Info("slog line")
		cmd := exec.Command("sh", "-c", "echo spawned echo; ls /proc/self/fd 2>/dev/null | wc -l >/dev/null")
		cmd.Stdout = os.Stdout // descriptor 1, inherited by the child
		if err := cmd.Run(); err != nil {
			return nil, err
		}
		return json.RawMessage(`{"ok":true}`), nil
	}
	if err := Serve(context.Background(), rt, os.Stdin, out, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "fixture: Serve:", err)
		return 1
	}
	return 0
}

// serverFixtureCmd returns the test binary re-executed as the named fixture.
func serverFixtureCmd(tb testing.TB, name string, env ...string) *exec.Cmd {
	tb.Helper()
	cmd := testkit.FixtureCommand(tb, name, env...)
	cmd.WaitDelay = serveWait
	return cmd
}

func TestServeProcessStdoutHygiene(t *testing.T) { // scenario 82
	cmd := serverFixtureCmd(t, "serve")
	cmd.Stdin = strings.NewReader(reqLine(1, "noisy", "") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fixture: %v\nstderr:\n%s", err, stderr.String())
	}
	if got, want := stdout.String(), `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`+"\n"; got != want {
		t.Errorf("stdout = %q, want exactly %q", got, want)
	}
	for _, s := range []string{"stray println", "stray os.Stdout write", "slog line", "spawned echo"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
}

func TestServeProcessLocale(t *testing.T) { // scenario 86, in the C locale
	text := "héllo 日本 😀 line\u2028separator"
	params, _ := json.Marshal(map[string]string{"s": text})
	for _, locale := range []string{"C", "en_US.UTF-8"} {
		t.Run(locale, func(t *testing.T) {
			cmd := serverFixtureCmd(t, "serve", "LANG="+locale, "LC_ALL="+locale)
			cmd.Stdin = strings.NewReader(reqLine(1, "echo", string(params)) + "\n")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("fixture: %v\n%s", err, stderr.String())
			}
			want := `{"jsonrpc":"2.0","id":1,"result":` + string(params) + "}\n"
			if string(out) != want {
				t.Errorf("output %q, want %q", out, want)
			}
			var got struct{ Result struct{ S string } }
			if err := json.Unmarshal(out, &got); err != nil || got.Result.S != text {
				t.Errorf("decoded %q, %v", got.Result.S, err)
			}
		})
	}
}
