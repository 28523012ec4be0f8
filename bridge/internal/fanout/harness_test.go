package fanout

// The in-process child of the relay's tests: a real stdio.Client over
// io.Pipes to a scripted JSON-RPC peer, hooked to a Relay as package
// pool hooks a child's.

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// wait bounds every wait for something asynchronous.
const wait = 10 * time.Second

// msg is one JSON-RPC message the child's Client wrote.
type msg = stdiotest.Msg

// member is the raw member at path in obj ("" when absent).
func member(obj json.RawMessage, path ...string) string {
	for _, key := range path {
		v, ok := rawjson.Member(obj, key)
		if !ok {
			return ""
		}
		obj = v
	}
	return string(obj)
}

// peer is the far end of the child's stdio.Client, a stdiotest.Peer
// under the names the tests use.
type peer struct{ *stdiotest.Peer }

func (p *peer) handle(method string, h func(msg) string) { p.Handle(method, h) }

// next is the next line the Client wrote that no handler took.
func (p *peer) next(t *testing.T) msg { t.Helper(); return p.Next(t) }

// expect is next, which must be method.
func (p *peer) expect(t *testing.T, method string) msg { t.Helper(); return p.Expect(t, method) }

// none checks that no line is waiting for the test.
func (p *peer) none(t *testing.T) { t.Helper(); p.None(t) }

func (p *peer) write(t *testing.T, line string) { t.Helper(); p.Write(t, line) }

func (p *peer) reply(t *testing.T, id json.RawMessage, res string) { t.Helper(); p.Reply(t, id, res) }

func result(id json.RawMessage, res string) string { return stdiotest.Result(id, res) }

func errorLine(id json.RawMessage, code int, message string) string {
	return stdiotest.ErrorLine(id, code, message)
}

// childConfig says what child to connect.
type childConfig struct {
	version string // a legacy version (default 2025-11-25), or 2026-07-28 (pinned)
	caps    string // its capabilities (legacy)
	// relay is the child's relay, made by the test (nil: a plain one).
	relay *Relay
	// attach: relay.Attach once connected (default true).
	detached bool
}

// connect connects a stdio.Client to a new peer, hooked to cfg.relay, and
// closes both at the test's end. The peer answers initialize.
func connect(t *testing.T, cfg childConfig) (*stdio.Client, *peer, *Relay) {
	t.Helper()
	if cfg.version == "" {
		cfg.version = protocol.Version20251125
	}
	if cfg.caps == "" {
		cfg.caps = `{"logging":{},"resources":{"subscribe":true}}`
	}
	r := cfg.relay
	if r == nil {
		r = NewRelay("s", nil, wait, false, slog.New(slog.DiscardHandler))
	}
	c, p := stdiotest.ConnectScripted(t, stdiotest.ScriptedConfig{
		Client:  r.Hook(stdio.ClientConfig{Logger: slog.New(slog.DiscardHandler)}),
		Connect: stdio.ConnectConfig{Versions: []string{cfg.version}},
		Handshake: map[string]func(msg) string{
			"initialize": func(m msg) string {
				return result(m.ID, `{"protocolVersion":"`+cfg.version+`","capabilities":`+cfg.caps+`,"serverInfo":{"name":"child","version":"1"}}`)
			},
		},
		Wait: wait,
	})
	if !cfg.detached {
		r.Attach(c)
	}
	return c, &peer{p}, r
}

// as is a context of the principal apikey:name ("" for none).
func as(name string) context.Context {
	if name == "" {
		return context.Background()
	}
	return access.NewContext(context.Background(), &access.Principal{Name: name, Method: "apikey"})
}

// within receives from ch, failing the test after wait.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("no %s within 10 s", what)
		var zero T
		return zero
	}
}

// eventually waits until cond holds, failing the test after wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(wait); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}
