package stdiotest

// A scripted child: a real stdio.Client over io.Pipes to an in-process
// JSON-RPC peer that the test answers line by line.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Msg is one JSON-RPC message as a test saw it: any of request,
// notification, result or error, and the line it came in.
type Msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
	// Line is the message as written.
	Line string `json:"-"`
}

func (m Msg) String() string { return m.Line }

// DecodeMsg decodes line, failing tb (but still returning the Msg, with
// its Line) when it is not a JSON-RPC message.
func DecodeMsg(tb testing.TB, line []byte) Msg {
	tb.Helper()
	var m Msg
	if err := json.Unmarshal(line, &m); err != nil {
		tb.Errorf("not a JSON-RPC message: %s (%v)", line, err)
	}
	m.Line = string(line)
	return m
}

// Result is the line of a result res answering id.
func Result(id json.RawMessage, res string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + res + `}`
}

// ErrorLine is the line of a JSON-RPC error answering id.
func ErrorLine(id json.RawMessage, code int, message string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return string(b)
}

// Peer is the far end of a stdio.Client, the child it talks to. Each line
// the Client writes goes to the handler registered for its method, when
// there is one (it returns the line to answer, "" for none), else to a
// queue the test reads with Next and answers with Write or Reply.
type Peer struct {
	tb    testing.TB
	wait  time.Duration
	out   *io.PipeWriter
	lines chan Msg

	mu       sync.Mutex
	handlers map[string]func(Msg) string
}

// Handle makes h answer the lines of method from now on; a nil h removes
// the handler, and the test reads them again.
func (p *Peer) Handle(method string, h func(Msg) string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil {
		delete(p.handlers, method)
		return
	}
	p.handlers[method] = h
}

func (p *Peer) serve(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := DecodeMsg(p.tb, sc.Bytes())
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

// Next is the next line the Client wrote that no handler took; it fails
// tb if none comes within the peer's wait.
func (p *Peer) Next(tb testing.TB) Msg {
	tb.Helper()
	t := time.NewTimer(p.wait)
	defer t.Stop()
	select {
	case m := <-p.lines:
		return m
	case <-t.C:
		tb.Fatal("the child got nothing for " + seconds(p.wait))
		return Msg{}
	}
}

// Expect is Next, which must be a message of method.
func (p *Peer) Expect(tb testing.TB, method string) Msg {
	tb.Helper()
	m := p.Next(tb)
	if m.Method != method {
		tb.Fatalf("the child got %s, want %s", m, method)
	}
	return m
}

// None checks that no line is waiting for the test.
func (p *Peer) None(tb testing.TB) {
	tb.Helper()
	select {
	case m := <-p.lines:
		tb.Errorf("the child got %s, want nothing", m)
	default:
	}
}

// Write sends line to the Client.
func (p *Peer) Write(tb testing.TB, line string) {
	tb.Helper()
	if _, err := io.WriteString(p.out, line+"\n"); err != nil {
		tb.Fatal(err)
	}
}

// Reply sends the Client the result res for id.
func (p *Peer) Reply(tb testing.TB, id json.RawMessage, res string) {
	tb.Helper()
	p.Write(tb, Result(id, res))
}

// CloseOutput ends what the peer writes: the Client reads EOF, as from a
// child that is gone.
func (p *Peer) CloseOutput() error { return p.out.Close() }

// ScriptedConfig says how ConnectScripted connects.
type ScriptedConfig struct {
	// Client is the Client's config.
	Client stdio.ClientConfig
	// Connect is what the Client negotiates.
	Connect stdio.ConnectConfig
	// Handshake answers the handshake's requests (initialize,
	// server/discover), by method, as Peer.Handle's handlers do.
	Handshake map[string]func(Msg) string
	// Wait bounds every wait of the Client and the Peer (default Wait).
	Wait time.Duration
}

// ConnectScripted connects a stdio.Client over io.Pipes to a new Peer,
// whose Handshake handlers answer the handshake. Once connected (on a
// legacy version, once notifications/initialized reached the peer) those
// handlers are removed, so that the test sees any later such line. At
// cleanup it closes both ends and fails tb unless the Client is then done
// within the wait.
func ConnectScripted(tb testing.TB, cfg ScriptedConfig) (*stdio.Client, *Peer) {
	tb.Helper()
	if cfg.Wait == 0 {
		cfg.Wait = Wait
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &Peer{tb: tb, wait: cfg.Wait, out: outW, lines: make(chan Msg, 256), handlers: map[string]func(Msg) string{}}
	for method, h := range cfg.Handshake {
		p.Handle(method, h)
	}
	initialized := make(chan struct{}, 1)
	p.Handle("notifications/initialized", func(Msg) string {
		initialized <- struct{}{}
		return ""
	})
	served := make(chan struct{})
	go func() {
		defer close(served)
		p.serve(inR)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Wait)
	defer cancel()
	c, err := stdio.Connect(ctx, func(context.Context) (*stdio.Client, error) {
		return stdio.Open(inW, outR, cfg.Client)
	}, cfg.Connect)
	tb.Cleanup(func() {
		if c != nil {
			c.Close()
		}
		outW.Close()
		inR.Close()
		<-served
		if c != nil {
			t := time.NewTimer(cfg.Wait)
			defer t.Stop()
			select {
			case <-c.Done():
			case <-t.C:
				tb.Error("the child's Client is not done " + seconds(cfg.Wait) + " after both ends closed")
			}
		}
	})
	if err != nil {
		tb.Fatalf("Connect: %v", err)
	}
	if !protocol.Modern(c.Protocol()) {
		t := time.NewTimer(cfg.Wait)
		defer t.Stop()
		select { // the handshake's last line reached the peer
		case <-initialized:
		case <-t.C:
			tb.Fatal("the child got no notifications/initialized")
		}
	}
	p.Handle("notifications/initialized", nil) // from now on the test sees them
	for method := range cfg.Handshake {
		p.Handle(method, nil)
	}
	return c, p
}

// seconds is d as the failures say it: "10 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
