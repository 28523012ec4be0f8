package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// rawFixtures makes fixtureConfig reach the fixture through Config.Open,
// on a raw connection (procConn), instead of a Client: TestRawConn runs
// the adapter's tests that way.
var rawFixtures bool

// procConn is a Conn over a child process, one message a line: the
// fixture reached raw, as the bridge reaches its sessions.
type procConn struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	once sync.Once
	err  error
}

// openFixture is the OpenFunc of the raw fixture.
func openFixture(t *testing.T) OpenFunc {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(context.Context, *http.Request, string, []byte) (Conn, error) {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), testkit.FixtureEnv+"=server", testkit.QuickRaceExit())
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &procConn{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
	}
}

func (c *procConn) Send(msg []byte) error {
	if bytes.ContainsAny(msg, "\r\n") {
		panic("procConn: a message with a line break: " + string(msg))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.in.Write(append(append(make([]byte, 0, len(msg)+1), msg...), '\n'))
	return err
}

func (c *procConn) Recv() ([]byte, error) {
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// Close ends the fixture as a session's end does: its input closes, and
// it is killed should it linger.
func (c *procConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.in.Close()
		c.mu.Unlock()
		t := time.AfterFunc(5*time.Second, func() { c.cmd.Process.Kill() })
		c.err = c.cmd.Wait()
		t.Stop()
	})
	return nil
}

// TestRawConn runs the adapter's tests with every connection a raw one
// (Config.Open), as the bridge's are: ids, progress, cancellations,
// server requests, listens, limits and refusals behave as through a
// Client.
func TestRawConn(t *testing.T) {
	rawFixtures = true
	defer func() { rawFixtures = false }()
	for name, test := range map[string]func(*testing.T){
		"EndpointGuards": TestEndpointGuards, "HeaderValidation": TestHeaderValidation, "ErrorStatus": TestErrorStatus,
		"ResultFormat": TestResultFormat, "ModernIDsAndRouting": TestModernIDsAndRouting, "ModernProgress": TestModernProgress,
		"ModernDisconnectCancels": TestModernDisconnectCancels, "Listen": TestListen, "ParamHeaders": TestParamHeaders,
		"CallerSessionIsolation": TestCallerSessionIsolation, "ModernConnectionPerCaller": TestModernConnectionPerCaller,
		"ModernCancelIsCallersOwn": TestModernCancelIsCallersOwn, "ServerPaths": TestServerPaths, "Origins": TestOrigins,
		"StartHTTPError": TestStartHTTPError, "StartHTTPErrorWithoutErr": TestStartHTTPErrorWithoutErr,
		"MaxSessions": TestMaxSessions, "ExpireIdle": TestExpireIdle, "IdleSweeper": TestIdleSweeper,
		"Session": TestSession, "Close": TestClose,
	} {
		t.Run(name, test)
	}
}

// TestStartOrOpen: a Config opens its connections one way, Start or Open.
func TestStartOrOpen(t *testing.T) {
	start := func(context.Context, *http.Request, string, []byte, stdio.ClientConfig) (*stdio.Client, error) {
		return nil, nil
	}
	for name, cfg := range map[string]Config{
		"neither": {},
		"both":    {Start: start, Open: openFixture(t)},
	} {
		if a, err := New(cfg); err == nil {
			a.Close()
			t.Errorf("New with %s of Start and Open: no error", name)
		}
	}
}
