package peer

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// clientLink is a Client over a real stdio.Client connected (2026-07-28)
// to a scripted in-process peer, on pipes: no child process.
func clientLink(t *testing.T) (Client, *stdiotest.Peer) {
	t.Helper()
	wg := &sync.WaitGroup{}
	t.Cleanup(wg.Wait) // after ConnectScripted's cleanup: every call's goroutine returned
	c, p := stdiotest.ConnectScripted(t, stdiotest.ScriptedConfig{
		Connect: stdio.ConnectConfig{Versions: []string{protocol.Version20260728}, ClientInfo: json.RawMessage(clientInfo)},
		Handshake: map[string]func(stdiotest.Msg) string{
			"server/discover": func(m stdiotest.Msg) string {
				return stdiotest.Result(m.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}`)
			},
		},
		Wait: wait,
	})
	return Client{C: c, WG: wg}, p
}

// TestClientCall: a Client's call goes through the stdio.Client, its
// outcome on Out, finished run; one cancelled after or before Begin ends
// cancelled.
func TestClientCall(t *testing.T) {
	l, p := clientLink(t)
	c := begin(l, "tools/list", `{}`, false, nil)
	m := p.Expect(t, "tools/list")
	p.Reply(t, m.ID, `{"tools":[]}`)
	if out := c.outcome(t); string(out.Result) != `{"tools":[]}` || out.Err != nil || out.Cancelled {
		t.Errorf("outcome %+v", out)
	}

	late := begin(l, "tools/call", `{}`, false, nil)
	p.Expect(t, "tools/call")
	late.f.Cancel(stdio.CancelReason{Reason: "bye", Given: true})
	if out := late.outcome(t); !out.Cancelled {
		t.Errorf("outcome %+v, want cancelled", out)
	}
	if m := p.Expect(t, "notifications/cancelled"); string(member(t, m.Params, "reason")) != `"bye"` {
		t.Errorf("cancellation %s", m.Params)
	}
	early := call{f: NewInflight(), finished: make(chan struct{})}
	early.f.Cancel(stdio.CancelReason{Reason: "early", Given: true})
	l.Begin(t.Context(), early.f, "tools/list", nil, false, nil, func() { close(early.finished) })
	if out := early.outcome(t); !out.Cancelled || out.Err == nil {
		t.Errorf("outcome %+v, want cancelled", out)
	}
}

// TestClientNotifyListen: Notify and Listen go through the stdio.Client.
func TestClientNotifyListen(t *testing.T) {
	l, p := clientLink(t)
	if err := l.Notify(t.Context(), "notifications/roots/list_changed", json.RawMessage(`{}`), false); err != nil {
		t.Fatal(err)
	}
	p.Expect(t, "notifications/roots/list_changed")

	ch := make(chan listened, 1)
	go func() {
		sub, err := l.Listen(t.Context(), json.RawMessage(`{"tools":{}}`))
		ch <- listened{sub, err}
	}()
	m := p.Expect(t, "subscriptions/listen")
	p.Write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"tools":{}},"_meta":{"`+
		protocol.MetaSubscriptionID+`":`+string(m.ID)+`}}}`)
	sub, err := listenResult(t, ch)
	if err != nil {
		t.Fatal(err)
	}
	if string(sub.Accepted()) != `{"tools":{}}` {
		t.Errorf("Accepted() = %s", sub.Accepted())
	}
	sub.Close()
	p.Expect(t, "notifications/cancelled")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if sub, err := l.Listen(ctx, json.RawMessage(`{}`)); err == nil || sub != nil {
		t.Errorf("Listen with an ended ctx: %v %v", sub, err)
	}
}

// TestClientEnd: Failed, Done, Close, Pid and Signal are the
// stdio.Client's.
func TestClientEnd(t *testing.T) {
	l, p := clientLink(t)
	if err := l.Failed(); err != nil {
		t.Errorf("Failed() = %v", err)
	}
	if pid := l.Pid(); pid != 0 {
		t.Errorf("Pid() = %d for a Client on pipes", pid)
	}
	if err := l.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal: %v", err)
	}
	l.Close()
	p.CloseOutput() // on pipes, the server's EOF is the "exit"
	waitDone(t, l.Done(), "the Client")
	if l.Failed() == nil {
		t.Error("Failed() = nil after Close")
	}
}
