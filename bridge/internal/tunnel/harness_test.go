package tunnel

// The in-process harness of the tunnel's tests: a real stdio.Client over
// io.Pipes to a scripted JSON-RPC peer (the child), a fake Host and Pass
// (the bridge's side), and the tunnel's client side as a channel of the
// messages Write delivers.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// wait bounds every wait for something asynchronous.
const wait = 10 * time.Second

// modernMeta is the _meta of a 2026-07-28 client's request.
const modernMeta = `{"` + protocol.MetaProtocolVersion + `":"2026-07-28","` + protocol.MetaClientCapabilities +
	`":{"elicitation":{}},"` + protocol.MetaClientInfo + `":{"name":"c","version":"1"}}`

// msg is one JSON-RPC message as either end of the tunnel saw it.
type msg = stdiotest.Msg

func decodeMsg(t *testing.T, line []byte) msg {
	t.Helper()
	return stdiotest.DecodeMsg(t, line)
}

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

// jsonEq reports whether two JSON texts hold the same value.
func jsonEq(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// ---- The child: a scripted peer behind a real stdio.Client ----

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

func (p *peer) reply(t *testing.T, id json.RawMessage, result string) {
	t.Helper()
	p.Reply(t, id, result)
}

func (p *peer) replyError(t *testing.T, id json.RawMessage, code int, message string) {
	t.Helper()
	m, _ := json.Marshal(message)
	p.write(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":`+itoa(code)+`,"message":`+string(m)+`}}`)
}

func stdioRequest(method string) stdio.ServerRequest { return stdio.ServerRequest{Method: method} }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func result(id json.RawMessage, res string) string { return stdiotest.Result(id, res) }

// childConfig says what child to start.
type childConfig struct {
	// version is the child's era: a legacy version (initialize), or
	// 2026-07-28 (answered server/discover, unless pinned).
	version string
	pinned  bool   // 2026-07-28 pinned: no handshake, nothing learnt
	caps    string // the child's capabilities
	private bool
	secure  bool
	floor   mcpbridgev1.LoggingLevel
	timeout time.Duration // the relay's ServerRequestTimeout
}

const (
	serverInfo   = `{"name":"child","version":"9"}`
	instructions = "use it well"
)

// startChild connects a stdio.Client to a new peer as the pool does
// (relay hooked, level keeper, Attach) and closes both at the test's end.
func startChild(t *testing.T, cfg childConfig) (*Child, *peer) {
	t.Helper()
	if cfg.version == "" {
		cfg.version = protocol.Version20251125
	}
	if cfg.caps == "" {
		cfg.caps = `{"tools":{},"logging":{},"resources":{"subscribe":true,"listChanged":true},"tasks":{}}`
	}
	if cfg.timeout == 0 {
		cfg.timeout = wait
	}
	log := slog.New(slog.DiscardHandler)
	relay := fanout.NewRelay("s", nil, cfg.timeout, cfg.secure, log)
	versions := []string{cfg.version}
	if protocol.Modern(cfg.version) && !cfg.pinned {
		versions = []string{protocol.Version20260728, protocol.Version20251125}
	}
	c, sp := stdiotest.ConnectScripted(t, stdiotest.ScriptedConfig{
		Client:  relay.Hook(stdio.ClientConfig{Logger: log}),
		Connect: stdio.ConnectConfig{Versions: versions},
		Handshake: map[string]func(msg) string{
			"initialize": func(m msg) string {
				return result(m.ID, `{"protocolVersion":"`+cfg.version+`","capabilities":`+cfg.caps+
					`,"serverInfo":`+serverInfo+`,"instructions":"`+instructions+`"}`)
			},
			"server/discover": func(m msg) string {
				return result(m.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+cfg.caps+
					`,"instructions":"`+instructions+`","_meta":{"`+protocol.MetaServerInfo+`":`+serverInfo+`}}`)
			},
		},
		Wait: wait,
	})
	p := &peer{sp}
	level := fanout.NewChildLevel(c, cfg.floor, log, relay.InFlight)
	if level != nil {
		relay.Settle = level.Settle
	}
	relay.Attach(c)
	return &Child{Client: c, Relay: relay, Level: level, Floor: cfg.floor, Private: cfg.private}, p
}

// ---- The bridge's side: Host and Pass ----

// host is the tunnel's Host: it admits every request but those of a
// refused method, keeps what it admitted, and counts the passes.
type host struct {
	deadline time.Duration

	mu       sync.Mutex
	refuse   map[string]*jsonrpc.Error
	admitted []admitted
	records  []record
	filter   func(method string, res json.RawMessage) json.RawMessage

	live    atomic.Int64 // passes not released
	doubled atomic.Int64 // passes released twice
}

type admitted struct {
	method string
	long   bool
}

type record struct {
	method string
	res    string
	err    error
}

// newHost makes a host that checks, once the test's tunnels ended (their
// cleanups run first), that each pass was released exactly once.
func newHost(t *testing.T) *host {
	h := &host{deadline: wait, refuse: map[string]*jsonrpc.Error{}}
	t.Cleanup(func() {
		if n := h.live.Load(); n != 0 {
			t.Errorf("%d passes not released after the tunnels ended", n)
		}
		if n := h.doubled.Load(); n != 0 {
			t.Errorf("%d passes released twice", n)
		}
	})
	return h
}

func (h *host) Admit(ctx context.Context, method string, params json.RawMessage, long bool) (*Admission, *jsonrpc.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.refuse[method]; e != nil {
		return nil, e
	}
	h.admitted = append(h.admitted, admitted{method, long})
	meta, ok := rawjson.Member(params, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		meta = nil
	}
	h.live.Add(1)
	return &Admission{Pass: &pass{h: h, method: method}, Meta: meta, Deadline: h.deadline}, nil
}

func (h *host) FilterList(_ context.Context, method string, res json.RawMessage) json.RawMessage {
	h.mu.Lock()
	f := h.filter
	h.mu.Unlock()
	if f == nil {
		return res
	}
	return f(method, res)
}

func (h *host) DefaultDeadline() time.Duration { return h.deadline }
func (h *host) Logger() *slog.Logger           { return slog.New(slog.DiscardHandler) }

func (h *host) methods() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, a := range h.admitted {
		out = append(out, a.method)
	}
	return out
}

func (h *host) recorded() []record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]record(nil), h.records...)
}

// pass is an admitted request: Call sends it to the child under its
// method, as the door's pass does.
type pass struct {
	h        *host
	method   string
	released atomic.Bool
}

func (p *pass) Call(ctx context.Context, c *stdio.Client, sent json.RawMessage, opts *stdio.CallOptions, _ bool) (json.RawMessage, error) {
	return c.Call(ctx, p.method, sent, opts)
}

func (p *pass) Record(_ time.Time, res json.RawMessage, err error) {
	p.h.mu.Lock()
	p.h.records = append(p.h.records, record{p.method, string(res), err})
	p.h.mu.Unlock()
}

func (p *pass) Release() {
	if p.released.Swap(true) {
		p.h.doubled.Add(1)
		return
	}
	p.h.live.Add(-1)
}

// ---- The tunnel's client ----

// client is the tunnel's client side: what it sends goes to Handle, what
// the tunnel delivers is read from got.
type client struct {
	t    *testing.T
	tun  *Tunnel
	h    *host
	got  chan msg
	gone chan struct{} // closed at the test's end: deliver fails
}

// open opens a tunnel on c as package bridge's session does (on the relay,
// then Write), and aborts it at the test's end. Call it after newHost.
func open(t *testing.T, h *host, c *Child, ctx context.Context) *client {
	t.Helper()
	if ctx == nil {
		ctx = context.Background()
	}
	cl := &client{t: t, h: h, got: make(chan msg, 1024), gone: make(chan struct{})}
	cl.tun = New(h, c, ctx)
	c.Relay.AddTunnel(cl.tun)
	go cl.tun.Write(func(b []byte) error {
		m := decodeMsg(t, b)
		select {
		case cl.got <- m:
			return nil
		case <-cl.gone:
			return errors.New("the test is over")
		}
	})
	t.Cleanup(func() {
		close(cl.gone)
		cl.tun.Abort()
	})
	return cl
}

func (cl *client) send(line string) { cl.tun.Handle([]byte(line)) }

func (cl *client) request(id, method, params string) {
	if params == "" {
		cl.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`)
		return
	}
	cl.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
}

func (cl *client) notify(method, params string) {
	cl.send(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`)
}

// next is the next message the tunnel delivered.
func (cl *client) next() msg {
	cl.t.Helper()
	select {
	case m := <-cl.got:
		return m
	case <-time.After(wait):
		cl.t.Fatal("the tunnel delivered nothing for 10 s")
		return msg{}
	}
}

// response is the next message, which must answer id with a result.
func (cl *client) response(id string) json.RawMessage {
	cl.t.Helper()
	m := cl.next()
	if string(m.ID) != id || m.Method != "" || m.Error != nil || m.Result == nil {
		cl.t.Fatalf("the tunnel delivered %s, want a result for id %s", m, id)
	}
	return m.Result
}

// failure is the next message, which must answer id with an error.
func (cl *client) failure(id string) *jsonrpc.Error {
	cl.t.Helper()
	m := cl.next()
	if string(m.ID) != id || m.Error == nil {
		cl.t.Fatalf("the tunnel delivered %s, want an error for id %s", m, id)
	}
	return m.Error
}

// notification is the next message, which must be a notification of
// method.
func (cl *client) notification(method string) json.RawMessage {
	cl.t.Helper()
	m := cl.next()
	if m.Method != method || m.ID != nil {
		cl.t.Fatalf("the tunnel delivered %s, want %s", m, method)
	}
	return m.Params
}

// drained returns what is left in got once the tunnel ended (Write
// returned): everything it will ever deliver.
func (cl *client) drained() []msg {
	cl.t.Helper()
	select {
	case <-cl.tun.Dead():
	case <-time.After(wait):
		cl.t.Fatal("the tunnel's writer did not stop")
	}
	var out []msg
	for {
		select {
		case m := <-cl.got:
			out = append(out, m)
		default:
			return out
		}
	}
}

// halfClose ends the client's side and returns HalfClose's outcome.
func (cl *client) halfClose(ctx context.Context) error {
	return cl.tun.HalfClose(ctx, func(err error) error { return err })
}

// checkCode fails the test unless e has code (and, when set, a message
// containing part).
func checkCode(t *testing.T, what string, e *jsonrpc.Error, code int64, part string) {
	t.Helper()
	if e == nil || e.Code != code || !strings.Contains(e.Message, part) {
		t.Errorf("%s: error %v, want %d %q", what, e, code, part)
	}
}
