package grpcdoor

import (
	"errors"
	"io"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
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
func (s *API) Connect(stream grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]) error {
	ctx := stream.Context()
	if rpcerr.RefusedDraining(ctx) { // Abort ended the call before it began
		return rpcerr.Drained(ctx, "", connectMethod, ctx.Err())
	}
	first, err := stream.Recv()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	ss, err := s.core.Open(ctx, first.GetServer(), []byte(first.GetMessageJson()))
	if err != nil {
		return err
	}
	defer ss.Close()
	// refusal holds the receiver's refusal of a message, put there before
	// it closes the session, so that the handler, whose Recv then fails,
	// returns it.
	refusal := make(chan error, 1)
	go func() {
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
				refusal <- rpcerr.ToStatus(ss.Server(), connectMethod, rpcerr.InvalidField(ss.Server(), connectMethod, "server", convert.ReasonInvalidValue,
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
			select {
			case refused := <-refusal:
				return refused
			default:
				return err
			}
		}
		if err := stream.Send(&mcpbridgev1.ConnectResponse{MessageJson: string(msg)}); err != nil {
			return err
		}
	}
}
