package grpcdoor

import (
	"context"
	"sync"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// This file serves the two server-streaming calls, CallToolStream and
// CallStream: one request with a progress token, its progress and log
// messages in arrival order, then exactly one result.
//
// Ordering comes from the stdio Client: its Progress and Log callbacks run
// in the handler's goroutine, in arrival order, before Call returns, so
// each event is sent before the result. Cancellation comes from the
// stream's context: the gRPC deadline or the client's cancel ends it, and
// the stdio Client then sends notifications/cancelled with the child-side
// id and returns; the handler maps that to DEADLINE_EXCEEDED or CANCELLED.

// streamEvents sends the messages of one stream. Progress and log events
// come from the stdio Client's callbacks in the handler's goroutine;
// server_request offers (legacy children, fanout.Relay) come from the
// registration's goroutine, so every Send is serialised by mu. A failed Send ends
// the call: the stream is gone, and cancel makes the stdio Client tell the
// child.
type streamEvents[T any] struct {
	stream grpc.ServerStreamingServer[T]
	wrap   func(ev any) *T // *Progress, *LogMessage, *ServerRequest or the result
	cancel context.CancelFunc
	minLog mcpbridgev1.LoggingLevel // UNSPECIFIED: no logs

	mu  sync.Mutex
	err error // the first Send error; nothing is sent after it
}

// send sends one event, or returns the error that broke the stream.
func (e *streamEvents[T]) send(ev any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	if err := e.stream.Send(e.wrap(ev)); err != nil {
		e.err = err
		e.cancel()
		return err
	}
	return nil
}

// broken returns the Send error that ended the stream, if any.
func (e *streamEvents[T]) broken() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// log sends a child's log message at or above the stream's level. A 2026
// child already filters by the level in the request's _meta; a legacy
// child logs at its session's level, which may be lower (bridge.proto,
// CallToolStreamRequest.log_level). A level this API does not know is
// delivered as UNSPECIFIED rather than dropped.
func (e *streamEvents[T]) log(n stdio.Notification) {
	m := convert.Log(n.Params)
	if m.Level != mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED && m.Level < e.minLog {
		return
	}
	e.send(m) // an error is kept in e.err and has cancelled the call
}

// options adds the stream's callbacks to base.
func (e *streamEvents[T]) options(base *stdio.CallOptions) *stdio.CallOptions {
	o := *base
	o.Progress = func(p stdio.Progress) { e.send(convert.Progress(p)) }
	if e.minLog != mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED {
		o.Log = e.log
	}
	return &o
}

// finish maps the outcome of the call: the Send error if the stream broke
// first, else the call's error.
func (e *streamEvents[T]) finish(err error) error {
	if b := e.broken(); b != nil {
		return b
	}
	return err
}

func toolStreamEvent(ev any) *mcpbridgev1.CallToolStreamResponse {
	switch ev := ev.(type) {
	case *mcpbridgev1.Progress:
		return &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_Progress{Progress: ev}}
	case *mcpbridgev1.LogMessage:
		return &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_Log{Log: ev}}
	case *mcpbridgev1.ServerRequest:
		return &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_ServerRequest{ServerRequest: ev}}
	case *mcpbridgev1.CallToolResponse:
		return &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_Result{Result: ev}}
	}
	panic("bridge: unknown CallToolStream event")
}

func callStreamEvent(ev any) *mcpbridgev1.CallStreamResponse {
	switch ev := ev.(type) {
	case *mcpbridgev1.Progress:
		return &mcpbridgev1.CallStreamResponse{Event: &mcpbridgev1.CallStreamResponse_Progress{Progress: ev}}
	case *mcpbridgev1.LogMessage:
		return &mcpbridgev1.CallStreamResponse{Event: &mcpbridgev1.CallStreamResponse_Log{Log: ev}}
	case *mcpbridgev1.ServerRequest:
		return &mcpbridgev1.CallStreamResponse{Event: &mcpbridgev1.CallStreamResponse_ServerRequest{ServerRequest: ev}}
	case *mcpbridgev1.CallResponse:
		return &mcpbridgev1.CallStreamResponse{Event: &mcpbridgev1.CallStreamResponse_Result{Result: ev}}
	}
	panic("bridge: unknown CallStream event")
}

// CallToolStream is tools/call with a progress token: progress and log
// messages, then the result (which may be input_required from a 2026-07-28
// child).
func (s *API) CallToolStream(req *mcpbridgev1.CallToolStreamRequest, stream grpc.ServerStreamingServer[mcpbridgev1.CallToolStreamResponse]) error {
	const method = "tools/call"
	// The call's ctx is the stream's: its deadline and cancellation reach
	// the child as notifications/cancelled. cancel also ends the call when
	// a Send fails.
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	r, name, err := s.routeNamed(ctx, req.GetServer(), &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: method, Kind: access.Tool, Names: []string{req.GetName()}})
	if err != nil {
		return err
	}
	defer r.release()
	params, err := convert.CallToolParams(convert.Named(req, name), req.GetLogLevel(), r.era)
	if err != nil {
		return r.invalid(err)
	}
	r.setParams(params)
	ev := &streamEvents[mcpbridgev1.CallToolStreamResponse]{stream: stream, wrap: toolStreamEvent, cancel: cancel, minLog: req.GetLogLevel()}
	defer r.c.Level.Want(ctx, req.GetLogLevel())() // a legacy child logs at least that much meanwhile
	// The stream counts as the call in flight and, when it opted in, is
	// offered the requests a legacy child sends meanwhile (fanout.Relay);
	// it leaves the routing before the result is sent.
	reg := r.c.Relay.OpenStream(ctx, true, req.GetServerRequests(), func(sr *mcpbridgev1.ServerRequest) error { return ev.send(sr) })
	res, err := r.callCounted(ctx, params, ev.options(r.callOptions(ctx)))
	reg.Close()
	if err != nil {
		return ev.finish(err)
	}
	out, err := convert.DecodeCallToolResult(res, r.era)
	if err != nil {
		return r.badResult(err)
	}
	if err := r.fits(res, &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_Result{Result: out}}); err != nil {
		return err
	}
	return ev.send(out)
}
