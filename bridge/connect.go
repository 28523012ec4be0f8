package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/tunnel"
	"github.com/mcpbridge/mcpbridge/internal/mcphttp"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Connect is a raw JSON-RPC tunnel to one child (bridge.proto, Connect).
// The tunnel's ids, progress tokens, cancellations and subscription ids
// are its own: requests are forwarded with stdio.Client.Call, which owns
// the child's id space, and everything coming back is restored to the
// tunnel's values with their JSON type.
//
// Goroutines: the handler reads messages (through a receiving goroutine,
// so that it can also watch the child) and dispatches them; one writer
// owns stream.Send; each request in flight has a goroutine. The handler
// waits for all of them except the receiver, which returns once gRPC
// cancels the stream after the handler returned.
func (s *Service) Connect(stream grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]) error {
	ctx, end := s.longLived(stream.Context())
	defer end()
	if refusedDraining(ctx) { // opened after Shutdown
		return drained(ctx, "", "Connect", ctx.Err())
	}
	return drained(ctx, "", "Connect", s.connect(connectStream{stream, ctx}))
}

// connect is Connect; Shutdown ends it at once with UNAVAILABLE and
// RetryInfo (drain.go), and the requests in flight in it are cancelled on
// the child.
func (s *Service) connect(stream grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]) error {
	const method = "Connect"
	ctx := stream.Context()
	first, err := stream.Recv()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	srv, err := s.lookup(ctx, first.GetServer(), method)
	if err != nil {
		return err
	}
	// The tunnel's opening passes the door (the server, and the rate),
	// and so does each request in it (tunnel.request).
	if err := s.admitOpening(ctx, &door.Request{Via: viaOf(ctx, door.ViaConnect), Server: srv.Door(), Method: method, Long: true}); err != nil {
		return err
	}
	if first, err = legacyProbes(ctx, srv, stream, first); err != nil || first == nil {
		return err
	}
	c, err := srv.AcquireTunnel(ctx, method, first.GetMessageJson())
	if err != nil {
		return err
	}
	defer func() { srv.Release(c) }() // a child of its own ends with the stream
	t := tunnel.New(&tunnelServer{s: s, srv: srv}, &tunnel.Child{Client: c.Client, Relay: c.Relay, Level: c.Level, Floor: c.Floor}, stream)
	c.Relay.AddTunnel(t)
	go t.Write(stream)

	type received struct {
		msg *mcpbridgev1.ConnectRequest
		err error
	}
	msgs := make(chan received, 1)
	handlerDone := make(chan struct{})
	defer close(handlerDone)
	go func() {
		for {
			m, err := stream.Recv()
			select {
			case msgs <- received{m, err}:
			case <-handlerDone:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	// moveOn takes a tunnel whose own child died to the restarted one: a
	// crash is an event of the session, which goes on. Any other child's
	// death ends the tunnel.
	moveOn := func() error {
		if !c.Private() {
			return srv.Failure(c, method, c.Err())
		}
		next, err := srv.Next(ctx, c, method)
		if err != nil {
			return err
		}
		c = next
		t.Rebind(&tunnel.Child{Client: c.Client, Relay: c.Relay, Level: c.Level, Floor: c.Floor})
		return nil
	}
	t.Handle(first.GetMessageJson())
	for {
		select {
		case r := <-msgs:
			select {
			case <-c.Closed(): // a message that came with the child's death waits for the next one
				if err := moveOn(); err != nil {
					t.Abort()
					return err
				}
			default:
			}
			switch {
			case errors.Is(r.err, io.EOF):
				return t.HalfClose(ctx, func(err error) error { return srv.Failure(c, method, err) })
			case r.err != nil:
				t.Abort()
				return r.err
			case r.msg.GetServer() != "" && r.msg.GetServer() != srv.Name():
				t.Abort()
				return rpcerr.ToStatus(srv.Name(), method, rpcerr.InvalidField(srv.Name(), method, "server", convert.ReasonInvalidValue,
					" may only be set on the first message, or to the same value on every message"))
			}
			t.Handle(r.msg.GetMessageJson())
		case <-ctx.Done():
			t.Abort()
			return rpcerr.ToStatus(srv.Name(), method, ctx.Err())
		case <-c.Closed():
			if err := moveOn(); err != nil {
				t.Abort()
				return err
			}
		case <-t.Dead():
			t.Abort()
			return t.WriteErr()
		}
	}
}

// legacyProbes answers a client's leading server/discover requests, on a
// server whose tunnels are private and whose child speaks a 2025 era, as
// that child would answer a method it does not know: a client that speaks
// both eras then falls back to initialize, as it does with the server
// launched itself, and gets a child of its own in its era rather than a
// translation (docs/architecture.md, "Tunnels and their children"). It
// returns the client's first other message, nil when the stream ended.
func legacyProbes(ctx context.Context, srv *pool.Server, stream grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse], first *mcpbridgev1.ConnectRequest) (*mcpbridgev1.ConnectRequest, error) {
	for srv.Config().Tunnel == pool.TunnelPrivate && srv.Config().Policy != pool.PolicySession {
		m, err := wire.Decode([]byte(first.GetMessageJson()))
		if err != nil || m.Kind != wire.KindRequest || m.Method != "server/discover" {
			return first, nil
		}
		c, err := srv.Acquire(ctx, "Connect") // the server's own child says its era
		if err != nil {
			return nil, err
		}
		if protocol.Modern(c.Protocol()) {
			return first, nil
		}
		answer := wire.AppendError(nil, m.ID, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"})
		if err := stream.Send(&mcpbridgev1.ConnectResponse{MessageJson: string(bytes.TrimSuffix(answer, []byte("\n")))}); err != nil {
			return nil, err
		}
		if first, err = stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil
			}
			return nil, err
		}
	}
	return first, nil
}

// tunnelServer is the tunnel's view of its server and of the bridge
// (tunnelHost): the door each of its requests passes, the rules on list
// results, the server's deadlines.
type tunnelServer struct {
	s   *Service
	srv *pool.Server
}

// Admit reads the request once (door.ParseRequest: its target and its
// _meta) and takes it through the door; its deadline is the server's or
// the tool's longest.
func (h *tunnelServer) Admit(ctx context.Context, method string, params json.RawMessage, long bool) (*tunnel.Admission, *jsonrpc.Error) {
	req := door.ParseRequest(viaOf(ctx, door.ViaConnect), h.srv.Door(), method, params)
	req.Long = long
	ps, refused := h.s.door.Admit(ctx, req)
	if refused != nil {
		return nil, refused.RPC
	}
	return &tunnel.Admission{Pass: ps, Meta: req.Meta, Deadline: pool.DeadlinesOf(h.srv.Config(), toolName(req)).Max}, nil
}

func (h *tunnelServer) FilterList(ctx context.Context, method string, res json.RawMessage) json.RawMessage {
	return h.s.door.FilterList(ctx, h.srv.Name(), method, res)
}

func (h *tunnelServer) DefaultDeadline() time.Duration { return h.s.cfg.DefaultDeadline }

func (h *tunnelServer) Logger() *slog.Logger { return h.s.cfg.Logger }

// viaOf is how a request reached the bridge: over HTTP when the MCP
// endpoint made its call in process (a tunnel, or the GetServer check
// before it), else direct (ViaGRPC or ViaConnect).
func viaOf(ctx context.Context, direct string) string {
	if mcphttp.InProcess(ctx) {
		return door.ViaHTTP
	}
	return direct
}
