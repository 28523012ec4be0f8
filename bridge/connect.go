package bridge

import (
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
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Connect is a raw JSON-RPC tunnel to one child (bridge.proto, Connect):
// the gRPC door's adapter over a Session (session.go). On a shared child
// the tunnel's ids, progress tokens, cancellations and subscription ids
// are its own: stdio.Client.Call owns the child's id space, and
// everything coming back is restored to the tunnel's values with their
// JSON type. On a child of the tunnel's own they pass as they are.
//
// Goroutines: the handler sends the session's messages on the stream; a
// receiving goroutine hands the stream's messages to the session, and
// returns once gRPC cancels the stream after the handler returned.
func (s *Service) Connect(stream grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]) error {
	ctx := stream.Context()
	if refusedDraining(ctx) { // Abort ended the call before it began
		return drained(ctx, "", sessionMethod, ctx.Err())
	}
	first, err := stream.Recv()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	ss, err := s.Open(ctx, first.GetServer(), []byte(first.GetMessageJson()))
	if err != nil {
		return err
	}
	defer ss.Close()
	// refused is set by the receiver before it closes the session for a
	// message it refuses; the handler returns it.
	var refused error
	received := make(chan struct{})
	go func() {
		defer close(received)
		msg := first
		for {
			if err := ss.Send([]byte(msg.GetMessageJson())); err != nil {
				return
			}
			var err error
			msg, err = stream.Recv()
			switch {
			case errors.Is(err, io.EOF):
				ss.CloseSend()
				return
			case err != nil:
				ss.Close()
				return
			case msg.GetServer() != "" && msg.GetServer() != ss.Server():
				refused = rpcerr.ToStatus(ss.Server(), sessionMethod, rpcerr.InvalidField(ss.Server(), sessionMethod, "server", convert.ReasonInvalidValue,
					" may only be set on the first message, or to the same value on every message"))
				ss.Close()
				return
			}
		}
	}()
	for {
		msg, err := ss.Recv(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, errSessionClosed) { // the receiver closed it
				<-received
				if refused != nil {
					return refused
				}
			}
			return err
		}
		if err := stream.Send(&mcpbridgev1.ConnectResponse{MessageJson: string(msg)}); err != nil {
			return err
		}
	}
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
	req := door.ParseRequest(door.Via(ctx, door.ViaConnect), h.srv.Door(), method, params)
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
