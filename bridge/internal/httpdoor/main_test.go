package httpdoor

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/inproc"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// These tests hold the door in process, on its own: the bridge's side is
// a test Bridge whose sessions are scripted goroutines and whose API is a
// tiny BridgeService on a real grpc.Server; the door, stdio/mcphttp and a
// real http.Server on loopback are the real ones.

// testWait bounds every wait of these tests.
const testWait = 10 * time.Second

// API keys of the test callers.
const (
	aliceKey = "alice-key-0123456789"
	bobKey   = "bob-key-0123456789"
)

// apiKeys is an Authenticator that knows alice and bob by API key.
func apiKeys(tb testing.TB) *access.Authenticator {
	tb.Helper()
	auth, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{
		{Principal: "alice", SHA256: access.HashKey(aliceKey), Groups: []string{"staff"}},
		{Principal: "bob", SHA256: access.HashKey(bobKey)},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return auth
}

// opening is one call of testBridge.Open.
type opening struct {
	ctx    context.Context
	server string
	first  string
}

// testBridge is the bridge as the door sees it: Open hands out scripted
// sessions, or refuses as refuse says.
type testBridge struct {
	auth     *access.Authenticator
	maxBytes int
	// refuse, when set, decides Open's refusal of each opening (nil
	// opens a session).
	refuse func(server string) error
	tp     trace.TracerProvider

	mu       sync.Mutex
	openings []opening
	sessions []*scripted
}

func (b *testBridge) Open(ctx context.Context, server string, first []byte) (Session, error) {
	b.mu.Lock()
	b.openings = append(b.openings, opening{ctx, server, string(first)})
	b.mu.Unlock()
	if b.refuse != nil {
		if err := b.refuse(server); err != nil {
			return nil, err
		}
	}
	s := newScripted()
	b.mu.Lock()
	b.sessions = append(b.sessions, s)
	b.mu.Unlock()
	return s, nil
}

func (b *testBridge) Authenticator() *access.Authenticator { return b.auth }
func (b *testBridge) HasServer(name string) bool           { return name == "demo" }
func (b *testBridge) Logger() *slog.Logger                 { return slog.New(slog.DiscardHandler) }
func (b *testBridge) TracerProvider() trace.TracerProvider { return b.tp }
func (b *testBridge) MaxMessageBytes() int {
	if b.maxBytes == 0 {
		return 4 << 20
	}
	return b.maxBytes
}

// opened returns the openings so far.
func (b *testBridge) opened() []opening {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]opening(nil), b.openings...)
}

// scriptedSessions returns the sessions opened so far.
func (b *testBridge) scriptedSessions() []*scripted {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*scripted(nil), b.sessions...)
}

// scripted is a Session whose server is a goroutine that answers
// JSON-RPC as a small MCP server would:
//
//   - initialize: a 2025-11-25 result;
//   - tools/call "echo": its arguments' message as text;
//   - tools/call "ask": first a roots/list request of its own to the
//     client, then the client's answer to it as the tool's text;
//   - tools/call "hold": no answer until the client cancels it;
//   - notifications and responses: noted in seen;
//   - anything else: -32601.
type scripted struct {
	in       chan []byte
	out      chan []byte
	inClosed chan struct{}
	stop     chan struct{}
	done     chan struct{}
	seen     chan string // the methods of the client's notifications, "response" for its responses
	closes   atomic.Int32

	closeSendOnce, closeOnce sync.Once
}

func newScripted() *scripted {
	s := &scripted{
		in: make(chan []byte), out: make(chan []byte), inClosed: make(chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), seen: make(chan string, 64),
	}
	go s.run()
	return s
}

func (s *scripted) SendBy(msg []byte, deadline time.Time) error {
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case s.in <- msg:
		return nil
	case <-expired:
		return os.ErrDeadlineExceeded
	case <-s.inClosed:
		return io.ErrClosedPipe
	case <-s.done:
		return io.EOF
	}
}

func (s *scripted) CloseSend() { s.closeSendOnce.Do(func() { close(s.inClosed) }) }

func (s *scripted) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-s.out:
		return m, nil
	case <-s.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *scripted) Close() error {
	s.closes.Add(1)
	s.closeOnce.Do(func() { close(s.stop) })
	<-s.done
	return nil
}

func (s *scripted) Done() <-chan struct{} { return s.done }

// message is a JSON-RPC message as the scripted server reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

func (s *scripted) run() {
	defer close(s.done)
	asked := map[string]json.RawMessage{} // a roots/list's id → the tools/call's it serves
	held := map[string]bool{}             // tools/call ids held until cancelled
	n := 0
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		select {
		case s.out <- b:
			return true
		case <-s.stop:
			return false
		}
	}
	text := func(id json.RawMessage, t string) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}}
	}
	for {
		var raw []byte
		select {
		case raw = <-s.in:
		case <-s.inClosed:
			return
		case <-s.stop:
			return
		}
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil: // a response of the client
			s.note("response")
			if callID, ok := asked[string(m.ID)]; ok {
				delete(asked, string(m.ID))
				if !send(text(callID, string(m.Result))) {
					return
				}
			}
		case m.ID == nil: // a notification
			s.note(m.Method)
			if m.Method == "notifications/cancelled" {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				json.Unmarshal(m.Params, &p)
				delete(held, string(p.RequestID))
			}
		case m.Method == "initialize":
			if !send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "scripted", "version": "1"}}}) {
				return
			}
		case m.Method == "tools/call":
			var p struct {
				Name      string `json:"name"`
				Arguments struct {
					Message string `json:"message"`
				} `json:"arguments"`
			}
			json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "echo":
				if !send(text(m.ID, p.Arguments.Message)) {
					return
				}
			case "ask":
				n++
				id := json.RawMessage(`"roots-` + strconv.Itoa(n) + `"`)
				asked[string(id)] = m.ID
				if !send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "roots/list"}) {
					return
				}
			case "hold":
				held[string(m.ID)] = true
			default:
				if !send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "Unknown tool " + p.Name}}) {
					return
				}
			}
		default:
			if !send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}}) {
				return
			}
		}
	}
}

// note records what the session got, without blocking it.
func (s *scripted) note(what string) {
	select {
	case s.seen <- what:
	default:
	}
}

// waitSeen waits for the session to get what, skipping anything else.
func (s *scripted) waitSeen(tb testing.TB, what string) {
	tb.Helper()
	t := time.NewTimer(testWait)
	defer t.Stop()
	for {
		select {
		case got := <-s.seen:
			if got == what {
				return
			}
		case <-t.C:
			tb.Fatalf("the session never got %s", what)
		}
	}
}

// testService is the API's BridgeService: ListServers alone, which counts
// its calls and keeps the metadata the last one carried.
type testService struct {
	mcpbridgev1.UnimplementedBridgeServiceServer
	calls atomic.Int32
	md    atomic.Pointer[metadata.MD] // of the last call
}

func (s *testService) ListServers(ctx context.Context, _ *mcpbridgev1.ListServersRequest) (*mcpbridgev1.ListServersResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.md.Store(&md)
	s.calls.Add(1)
	return &mcpbridgev1.ListServersResponse{Servers: []*mcpbridgev1.GetServerResponse{{ProtocolVersion: "2025-11-25"}}}, nil
}

// CallToolStream sends a header, a progress event per step named by the
// tool's name length, and a trailer.
func (s *testService) CallToolStream(req *mcpbridgev1.CallToolStreamRequest, st grpc.ServerStreamingServer[mcpbridgev1.CallToolStreamResponse]) error {
	if err := st.SetHeader(metadata.Pairs("x-stream", "head")); err != nil {
		return err
	}
	if err := st.SendHeader(metadata.Pairs("x-sent", "yes")); err != nil {
		return err
	}
	for i := range len(req.GetName()) {
		ev := &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_Progress{Progress: &mcpbridgev1.Progress{Progress: float64(i + 1)}}}
		if err := st.Send(ev); err != nil {
			return err
		}
	}
	st.SetTrailer(metadata.Pairs("x-stream-end", "tail"))
	return nil
}

// Connect answers each message with itself until the client's end; a
// message "fail" ends the stream INVALID_ARGUMENT with a JsonRpcError.
func (s *testService) Connect(st grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]) error {
	for {
		m, err := st.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if m.GetMessageJson() == "fail" {
			st, _ := status.New(codes.InvalidArgument, "failed as asked").WithDetails(&mcpbridgev1.JsonRpcError{Code: -32602, Message: "Invalid params"})
			return st.Err()
		}
		if err := st.Send(&mcpbridgev1.ConnectResponse{MessageJson: m.GetMessageJson()}); err != nil {
			return err
		}
	}
}

// lastMD is the metadata of the last call.
func (s *testService) lastMD() metadata.MD {
	if md := s.md.Load(); md != nil {
		return *md
	}
	return nil
}

// testCalls runs the test BridgeService in process, without interceptors.
func testCalls() (*inproc.Server, *testService) {
	svc := &testService{}
	return inproc.New(&mcpbridgev1.BridgeService_ServiceDesc, svc, nil, nil), svc
}

// served is a door on a loopback http.Server.
type served struct {
	d      *Door
	b      *testBridge
	api    *testService
	base   string // http://127.0.0.1:port
	addr   string
	client *http.Client
}

// serveDoor serves the door of b on 127.0.0.1:0. Cleanup closes the door,
// then the listener and its connections.
func serveDoor(tb testing.TB, b *testBridge, o Options) *served {
	tb.Helper()
	calls, api := testCalls()
	d, err := New(b, calls, o)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		d.Close()
		tb.Fatal(err)
	}
	hs := NewServer(d, nil, slog.New(slog.DiscardHandler))
	done := make(chan struct{})
	go func() {
		defer close(done)
		hs.Serve(lis)
	}()
	client := &http.Client{Transport: &http.Transport{}, Timeout: testWait}
	tb.Cleanup(func() {
		client.CloseIdleConnections()
		d.Close()
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		hs.Shutdown(ctx)
		hs.Close()
		<-done
	})
	return &served{d: d, b: b, api: api, base: "http://" + lis.Addr().String(), addr: lis.Addr().String(), client: client}
}

// post POSTs body to path with header ("Name", "value" pairs; "Host" sets
// the request's Host) and returns the answer, its body read whole.
func (s *served) post(tb testing.TB, path, contentType, body string, header ...string) (*http.Response, string) {
	tb.Helper()
	return s.do(tb, http.MethodPost, path, contentType, body, header...)
}

func (s *served) do(tb testing.TB, method, path, contentType, body string, header ...string) (*http.Response, string) {
	tb.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// raw writes head (a request's head and whatever of its body the test
// wants sent) on a new connection, calls more (if any) to write the
// rest, and reads the answer's status line and headers.
func (s *served) raw(tb testing.TB, head string, more func(net.Conn)) *http.Response {
	tb.Helper()
	conn, err := net.DialTimeout("tcp", s.addr, testWait)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(testWait))
	if _, err := io.WriteString(conn, head); err != nil {
		tb.Fatal(err)
	}
	if more != nil {
		more(conn)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		tb.Fatalf("no answer: %v", err)
	}
	return resp
}
