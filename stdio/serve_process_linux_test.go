package stdio

import (
	"bytes"
	"io"
	"strings"
	"syscall"
	"testing"
)

// TestServeProcessLongLine is scenario 83: a 64 MB line without LF against
// a 1 MB limit is refused before its LF is sent, the next line is served,
// and the server's peak RSS grows by less than 16 MB over a baseline run.
func TestServeProcessLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MB through a pipe")
	}
	const limit = "1000000"
	ping := reqLine(2, "echo", `{"after":true}`) + "\n"
	wantPing := `{"jsonrpc":"2.0","id":2,"result":{"after":true}}` + "\n"

	run := func(t *testing.T, long bool) int64 {
		cmd := serverFixtureCmd(t, "serve", "STDIO_TEST_MAX_LINE="+limit)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := procLines(stdout)
		if long {
			wrote := make(chan error, 1)
			go func() {
				chunk := bytes.Repeat([]byte("x"), 1<<20)
				var err error
				for i := 0; i < 64 && err == nil; i++ {
					_, err = stdin.Write(chunk)
				}
				wrote <- err
			}()
			// The refusal arrives while the line is still being written:
			// no LF has been sent yet.
			refusal := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Line exceeds the 1000000-byte limit"}}` + "\n"
			if got := procLine(t, lines, "refusal"); got != refusal {
				t.Fatalf("got %q, want the refusal %q", got, refusal)
			}
			if err := <-wrote; err != nil {
				t.Fatalf("writing the long line: %v", err)
			}
			io.WriteString(stdin, "\n")
		}
		io.WriteString(stdin, ping)
		if got := procLine(t, lines, "response"); got != wantPing {
			t.Errorf("got %q, want %q", got, wantPing)
		}
		stdin.Close()
		for line := range lines {
			t.Errorf("unexpected output %q", line)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("fixture: %v\n%s", err, stderr.String())
		}
		if strings.Contains(stderr.String(), "fixture:") {
			t.Errorf("fixture stderr:\n%s", stderr.String())
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // KiB on Linux
	}

	base := run(t, false)
	peak := run(t, true)
	growth := peak - base
	t.Logf("peak RSS: baseline %d KiB, 64 MB line %d KiB, growth %d KiB", base>>10, peak>>10, growth>>10)
	if growth >= 16<<20 {
		t.Errorf("peak RSS grew by %d KiB, want under 16 MiB", growth>>10)
	}
}
