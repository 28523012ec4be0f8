package testkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// replyTimeout bounds the wait for one reply; node takes about 0.4 s to
	// start, more under -race on a busy machine.
	replyTimeout = 30 * time.Second
	// exitGrace is how long a peer gets after stdin EOF, and then after
	// each signal, before the next step of SIGTERM, SIGKILL.
	exitGrace = 10 * time.Second
)

// peerProcess is a peer started by a test and driven over its stdio one
// JSON-RPC line at a time.
type peerProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// lines carries stdout lines from the reader goroutine, which
	// startPeer starts and which ends at stdout EOF; close drains lines
	// until then. Its buffer is small: a full one blocks the reader and so
	// the peer's writes, which is fine for tests that read every reply.
	lines  chan []byte
	stderr bytes.Buffer // written by os/exec; read only after Wait

	closeOnce sync.Once
	waitErr   error
}

// startPeer starts argv and arranges for it to be stopped when the test
// ends.
func startPeer(t *testing.T, argv []string) *peerProcess {
	t.Helper()
	p := &peerProcess{t: t, cmd: exec.Command(argv[0], argv[1:]...), lines: make(chan []byte, 16)}
	p.cmd.Stderr = &p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatalf("stdin pipe: %v", err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %q: %v", argv, err)
	}
	p.stdin = stdin
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { p.close() })
	return p
}

// send writes one JSON-RPC message as a line on the peer's stdin.
func (p *peerProcess) send(msg string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, msg+"\n"); err != nil {
		p.t.Fatalf("writing to peer: %v", err)
	}
}

// response reads lines until the response with the given id, skipping
// notifications and server requests, and returns its result. It fails the
// test on an error response, on EOF and after replyTimeout.
func (p *peerProcess) response(id int) json.RawMessage {
	p.t.Helper()
	timer := time.NewTimer(replyTimeout)
	defer timer.Stop()
	for {
		var line []byte
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("peer closed stdout before answering request %d", id)
			}
			line = l
		case <-timer.C:
			p.t.Fatalf("no answer to request %d within %v", id, replyTimeout)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			p.t.Fatalf("peer wrote a line that is not JSON: %v\n%s", err, line)
		}
		if msg.Method != "" || msg.ID == nil || *msg.ID != id {
			p.t.Logf("skipping %s", bytes.TrimSpace(line))
			continue
		}
		if msg.Error != nil {
			p.t.Fatalf("request %d: error %s", id, msg.Error)
		}
		return msg.Result
	}
}

// close closes the peer's stdin and waits for it to exit, sending SIGTERM
// and then SIGKILL to a peer that ignores EOF. It returns the error of
// [exec.Cmd.Wait], so nil means the peer exited with status 0 on EOF. It is
// idempotent, and logs the peer's stderr if the test failed.
func (p *peerProcess) close() error {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		signals := []os.Signal{syscall.SIGTERM, os.Kill}
		timer := time.NewTimer(exitGrace)
		defer timer.Stop()
	drain:
		for {
			select {
			case _, ok := <-p.lines:
				if !ok {
					break drain
				}
			case <-timer.C:
				p.t.Logf("peer still running %v after the last step; sending %v", exitGrace, signals[0])
				p.cmd.Process.Signal(signals[0])
				if signals = signals[1:]; len(signals) > 0 {
					timer.Reset(exitGrace)
				}
			}
		}
		p.waitErr = p.cmd.Wait()
		if p.t.Failed() {
			p.t.Logf("peer stderr:\n%s", p.stderr.Bytes())
		}
	})
	return p.waitErr
}
