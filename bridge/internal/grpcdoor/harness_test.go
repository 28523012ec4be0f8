package grpcdoor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// wait bounds every wait of these tests; it is not a delay.
const wait = 30 * time.Second

// testMaxMessageBytes is the tests' message limit: the "big" tool goes
// over it cheaply.
const testMaxMessageBytes = 64 << 10

// testCore is a Core over real fronted servers and a real door, as
// package bridge's service is, without the service around them.
type testCore struct {
	servers  map[string]*pool.Server
	door     *door.Door
	hidden   map[string]bool // servers AllowServer refuses
	aggs     map[string]*aggregate.Server
	draining context.Context // cancelled with rpcerr.ErrDraining by drain
	drain    context.CancelCauseFunc
	open     func(ctx context.Context, server string, first []byte) (Session, error)
	log      *slog.Logger
}

func newCore(servers ...*pool.Server) *testCore {
	c := &testCore{servers: map[string]*pool.Server{}, door: door.New(nil, nil, door.Limits{}), hidden: map[string]bool{},
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	c.draining, c.drain = context.WithCancelCause(context.Background())
	for _, s := range servers {
		c.servers[s.Name()] = s
	}
	return c
}

// Lookup finds a server by its field alone; an unknown name is refused as
// package bridge refuses it.
func (c *testCore) Lookup(_ context.Context, field, method string) (*pool.Server, error) {
	if srv, ok := c.servers[field]; ok {
		return srv, nil
	}
	return nil, rpcerr.ToStatus(field, method, &rpcerr.CallError{
		RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", field), Reason: rpcerr.ReasonUnknownServer})
}

func (c *testCore) Servers() map[string]*pool.Server { return c.servers }

func (c *testCore) Aggregate(_ context.Context, field string) *aggregate.Server { return c.aggs[field] }

func (c *testCore) Aggregates() []*aggregate.Server {
	var out []*aggregate.Server
	for _, name := range slices.Sorted(maps.Keys(c.aggs)) {
		out = append(out, c.aggs[name])
	}
	return out
}

func (c *testCore) AllowServer(_ context.Context, server string) bool { return !c.hidden[server] }

func (c *testCore) Door() *door.Door { return c.door }

func (c *testCore) Authenticate(ctx context.Context) (context.Context, error) {
	auth := c.door.Access().Auth
	if !auth.Enabled() {
		return ctx, nil
	}
	p, err := auth.Authenticate(ctx)
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, "authentication required")
	}
	return access.NewContext(ctx, p), nil
}

func (c *testCore) LongLived(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	if c.draining.Err() != nil {
		cancel(rpcerr.ErrDraining)
		return ctx, func() {}
	}
	stop := context.AfterFunc(c.draining, func() { cancel(rpcerr.ErrDraining) })
	return ctx, func() { stop(); cancel(nil) }
}

func (c *testCore) Open(ctx context.Context, server string, first []byte) (Session, error) {
	if c.open == nil {
		return nil, status.Error(codes.Unimplemented, "no sessions in this test")
	}
	return c.open(ctx, server, first)
}

func (c *testCore) MaxMessageBytes() int           { return testMaxMessageBytes }
func (c *testCore) DefaultDeadline() time.Duration { return 10 * time.Second }
func (c *testCore) Logger() *slog.Logger           { return c.log }

// drainedKey is metadata that makes the test server's interceptors cancel
// the call's context with rpcerr.ErrDraining before the handler runs, as
// package bridge's abort does to a call of a bridge shutting down.
const drainedKey = "test-drained"

func drainedContext(ctx context.Context) context.Context {
	if len(metadata.ValueFromIncomingContext(ctx, drainedKey)) == 0 {
		return ctx
	}
	ctx, cancel := context.WithCancelCause(ctx)
	cancel(rpcerr.ErrDraining)
	return ctx
}

type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s ctxStream) Context() context.Context { return s.ctx }

// serve serves the API of core on a real gRPC server on 127.0.0.1 and
// returns a client of it; Cleanup stops both, waiting for the handlers.
func serve(t *testing.T, core Core) mcpbridgev1.BridgeServiceClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.WaitForHandlers(true),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return h(srv, ctxStream{ss, drainedContext(ss.Context())})
		}))
	mcpbridgev1.RegisterBridgeServiceServer(gs, New(core))
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		gs.Stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return mcpbridgev1.NewBridgeServiceClient(conn)
}

// startServer fronts the "mcp" fixture in era ("legacy" or "modern") as
// server name; edit adjusts its config before it is normalized. Cleanup
// stops it and its children.
func startServer(t *testing.T, name, era string, edit func(*pool.ServerConfig)) *pool.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sc := &pool.ServerConfig{Name: name, Command: exe, Grace: 2 * time.Second, DisableReaper: true,
		RestartBackoff: 10 * time.Millisecond,
		Env: []pool.EnvVar{{Name: testkit.FixtureEnv, Value: "mcp"}, {Name: eraEnv, Value: era},
			{Name: "GORACE", Value: strings.TrimPrefix(testkit.QuickRaceExit(), "GORACE=")}}}
	if edit != nil {
		edit(sc)
	}
	if err := pool.Normalize(sc, 1<<20, pool.Deadlines{Default: 10 * time.Second, Max: time.Minute}); err != nil {
		t.Fatal(err)
	}
	logs := &testkit.Lines{}
	srv := pool.New(sc, pool.Options{Logger: logs.Logger(), Secure: func() bool { return false }, Health: func(string, bool) {}})
	t.Cleanup(srv.Stop)
	return srv
}

// startEras starts a legacy and a modern fixture, named after their eras.
func startEras(t *testing.T) []*pool.Server {
	t.Helper()
	return []*pool.Server{startServer(t, "legacy", "legacy", nil), startServer(t, "modern", "modern", nil)}
}

// twoEras serves servers (startEras) through a core of their own.
func twoEras(t *testing.T, servers []*pool.Server) (*testCore, mcpbridgev1.BridgeServiceClient) {
	t.Helper()
	core := newCore(servers...)
	return core, serve(t, core)
}

// TestOnSharedChildren runs the tests that leave their children as they
// found them, each with a core and a gRPC server of its own, on one legacy
// and one modern child: a race-built child costs more to start than most
// of these tests take. The tests that change their children (Subscribe's
// grow and exit), or need to be the only one asking for their server
// requests, start their own.
func TestOnSharedChildren(t *testing.T) {
	t.Parallel()
	servers := startEras(t)
	for _, tc := range []struct {
		name string
		test func(*testing.T, []*pool.Server)
	}{
		{"Typed", testTyped},
		{"Call", testCall},
		{"CallStream", testCallStream},
		{"CallToolStream", testCallToolStream},
		{"Deadline", testDeadline},
		{"Servers", testServers},
		{"RespondRefusals", testRespondRefusals},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.test(t, servers)
		})
	}
}

var eras = []string{"legacy", "modern"}

// testCtx is a context bounded by wait.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// details are a status's details the API sets.
type details struct {
	st    *status.Status
	rpc   *mcpbridgev1.JsonRpcError
	info  *errdetails.ErrorInfo
	bad   *errdetails.BadRequest
	retry *errdetails.RetryInfo
}

func detailsOf(err error) details {
	d := details{st: status.Convert(err)}
	for _, x := range d.st.Details() {
		switch x := x.(type) {
		case *mcpbridgev1.JsonRpcError:
			d.rpc = x
		case *errdetails.ErrorInfo:
			d.info = x
		case *errdetails.BadRequest:
			d.bad = x
		case *errdetails.RetryInfo:
			d.retry = x
		}
	}
	return d
}

// wantStatus checks err's code, its ErrorInfo reason and its JsonRpcError
// code, and returns its details.
func wantStatus(t *testing.T, what string, err error, code codes.Code, reason string, rpcCode int32) details {
	t.Helper()
	d := detailsOf(err)
	switch {
	case err == nil:
		t.Errorf("%s succeeded, want %v", what, code)
	case d.st.Code() != code:
		t.Errorf("%s = %v, want %v", what, err, code)
	case d.rpc == nil || d.rpc.GetCode() != rpcCode:
		t.Errorf("%s = %v with JsonRpcError %v, want code %d", what, err, d.rpc, rpcCode)
	case d.info == nil || d.info.GetReason() != reason:
		t.Errorf("%s = %v with ErrorInfo %v, want reason %s", what, err, d.info, reason)
	}
	return d
}

// wantField checks that err is INVALID_ARGUMENT for field (BadRequest).
func wantField(t *testing.T, what string, err error, field string) {
	t.Helper()
	d := wantStatus(t, what, err, codes.InvalidArgument, rpcerr.ReasonInvalidInput, jsonrpc.CodeInvalidParams)
	if vs := d.bad.GetFieldViolations(); len(vs) != 1 || vs[0].GetField() != field {
		t.Errorf("%s = %v with BadRequest %v, want one violation of %s", what, err, d.bad, field)
	}
}

// args is a tool's arguments.
func args(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// text is the one text content of a tool's result.
func text(t *testing.T, res *mcpbridgev1.CallToolResponse) string {
	t.Helper()
	if len(res.GetContent()) != 1 {
		t.Fatalf("result %v: want one content", res)
	}
	return res.GetContent()[0].GetText().GetText()
}

// recvAll reads a stream until it ends and returns its messages and its
// end (nil for io.EOF).
func recvAll[T any](st interface{ Recv() (*T, error) }) ([]*T, error) {
	var got []*T
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, m)
	}
}

// fakeSession is a Session that answers each message with itself; its
// Recv ends with io.EOF once the client closed its side and everything
// was answered.
type fakeSession struct {
	server string
	out    chan []byte
	done   chan struct{}

	mu        sync.Mutex
	closed    bool
	sendEnded bool
}

func newFakeSession(server string) *fakeSession {
	return &fakeSession{server: server, out: make(chan []byte, 64), done: make(chan struct{})}
}

func (f *fakeSession) Send(msg []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.sendEnded {
		return io.ErrClosedPipe
	}
	f.out <- msg
	return nil
}

func (f *fakeSession) CloseSend() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sendEnded {
		f.sendEnded = true
		close(f.out)
	}
}

func (f *fakeSession) Recv(ctx context.Context) ([]byte, error) {
	select {
	case msg, ok := <-f.out:
		if !ok {
			return nil, io.EOF
		}
		return msg, nil
	case <-f.done:
		return nil, status.Error(codes.Unavailable, "session closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *fakeSession) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.done)
	}
	return nil
}

func (f *fakeSession) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func (f *fakeSession) Server() string { return f.server }
