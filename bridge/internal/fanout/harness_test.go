package fanout

// The in-process child of the relay's tests: a real stdio.Client over
// io.Pipes to a scripted JSON-RPC peer, hooked to a Relay as package
// pool hooks a child's.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// wait bounds every wait for something asynchronous.
const wait = 10 * time.Second

// msg is one JSON-RPC message the child's Client wrote.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
	line   string
}

func (m msg) String() string { return m.line }

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

// peer is the far end of the child's stdio.Client: a line goes to the
// handler of its method when there is one (it returns the line to
// answer, "" for none), else to lines, for the test to read.
type peer struct {
	out   *io.PipeWriter
	lines chan msg

	mu       sync.Mutex
	handlers map[string]func(msg) string
}

func (p *peer) handle(method string, h func(msg) string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil {
		delete(p.handlers, method)
		return
	}
	p.handlers[method] = h
}

func (p *peer) serve(in io.Reader) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		m.line = sc.Text()
		p.mu.Lock()
		h := p.handlers[m.Method]
		p.mu.Unlock()
		if h == nil {
			p.lines <- m
			continue
		}
		if reply := h(m); reply != "" {
			if _, err := io.WriteString(p.out, reply+"\n"); err != nil {
				return
			}
		}
	}
}

// next is the next line the Client wrote that no handler took.
func (p *peer) next(t *testing.T) msg {
	t.Helper()
	select {
	case m := <-p.lines:
		return m
	case <-time.After(wait):
		t.Fatal("the child got nothing for 10 s")
		return msg{}
	}
}

// expect is next, which must be method.
func (p *peer) expect(t *testing.T, method string) msg {
	t.Helper()
	m := p.next(t)
	if m.Method != method {
		t.Fatalf("the child got %s, want %s", m, method)
	}
	return m
}

// none checks that nothing is waiting in lines.
func (p *peer) none(t *testing.T) {
	t.Helper()
	select {
	case m := <-p.lines:
		t.Errorf("the child got %s, want nothing", m)
	default:
	}
}

func (p *peer) write(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.out, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *peer) reply(t *testing.T, id json.RawMessage, res string) {
	t.Helper()
	p.write(t, result(id, res))
}

func result(id json.RawMessage, res string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + res + `}`
}

func errorLine(id json.RawMessage, code int, message string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return string(b)
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
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{out: outW, lines: make(chan msg, 256), handlers: map[string]func(msg) string{}}
	initialized := make(chan struct{}, 1)
	p.handle("initialize", func(m msg) string {
		return result(m.ID, `{"protocolVersion":"`+cfg.version+`","capabilities":`+cfg.caps+`,"serverInfo":{"name":"child","version":"1"}}`)
	})
	p.handle("notifications/initialized", func(msg) string {
		initialized <- struct{}{}
		return ""
	})
	served := make(chan struct{})
	go func() {
		defer close(served)
		p.serve(inR)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := stdio.Connect(ctx, func(context.Context) (*stdio.Client, error) {
		return stdio.Open(inW, outR, r.Hook(stdio.ClientConfig{Logger: slog.New(slog.DiscardHandler)}))
	}, stdio.ConnectConfig{Versions: []string{cfg.version}})
	t.Cleanup(func() {
		if c != nil {
			c.Close()
		}
		outW.Close()
		inR.Close()
		<-served
		if c != nil {
			select {
			case <-c.Done():
			case <-time.After(wait):
				t.Error("the Client is not done 10 s after both ends closed")
			}
		}
	})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if !protocol.Modern(cfg.version) {
		select {
		case <-initialized:
		case <-time.After(wait):
			t.Fatal("the child got no notifications/initialized")
		}
	}
	p.handle("initialize", nil)
	p.handle("notifications/initialized", nil)
	if !cfg.detached {
		r.Attach(c)
	}
	return c, p, r
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
