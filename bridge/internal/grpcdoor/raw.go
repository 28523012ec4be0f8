package grpcdoor

import (
	"context"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// This file serves the lossless RPCs, Call and CallStream: any method,
// params and result as JSON text, validated and compacted but never
// re-encoded (docs/protocol.md, "Fidelity rules for the bridge").

// Call sends any method with params as JSON text and returns the result as
// JSON text, both validated and compacted but never re-encoded.
func (s *API) Call(ctx context.Context, req *mcpbridgev1.CallRequest) (*mcpbridgev1.CallResponse, error) {
	method := req.GetMethod()
	if err := checkRawMethod(method); err != nil {
		return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidInput(req.GetServer(), method, "%v", err))
	}
	params, _, err := convert.RawParams(req.GetParamsJson())
	if err != nil {
		return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidInput(req.GetServer(), method, "%v", err))
	}
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		res, err := s.aggregateRaw(ctx, agg, method, params)
		if err != nil {
			return nil, err
		}
		return &mcpbridgev1.CallResponse{ResultJson: string(res)}, nil
	}
	r, err := s.route(ctx, req.GetServer(), door.NewRequest(door.Via(ctx, door.ViaGRPC), nil, method, params))
	if err != nil {
		return nil, err
	}
	res, err := r.call(ctx, params, nil)
	if err != nil {
		return nil, err
	}
	return &mcpbridgev1.CallResponse{ResultJson: string(res)}, nil
}

// bridgeOwned are the methods the bridge itself speaks with the child; Call
// refuses them (Connect handles them for its tunnel).
var bridgeOwned = map[string]bool{
	"initialize": true, "subscriptions/listen": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "logging/setLevel": true,
}

func checkRawMethod(method string) error {
	switch {
	case method == "":
		return convert.FieldErrorf("method", convert.ReasonRequired, " is required")
	case bridgeOwned[method]:
		return convert.FieldErrorf("method", convert.ReasonInvalidValue, " %s is managed by the bridge; use Subscribe or Connect", method)
	case len(method) > 14 && method[:14] == "notifications/":
		return convert.FieldErrorf("method", convert.ReasonInvalidValue, " %s is a notification, not a request; use Connect to send it", method)
	}
	return nil
}

// CallStream is Call with a progress token: progress and log messages,
// then the result as JSON text, losslessly.
func (s *API) CallStream(req *mcpbridgev1.CallStreamRequest, stream grpc.ServerStreamingServer[mcpbridgev1.CallStreamResponse]) error {
	method := req.GetMethod()
	if err := checkRawMethod(method); err != nil {
		return rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidInput(req.GetServer(), method, "%v", err))
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	own, _, err := convert.RawParams(req.GetParamsJson())
	if err != nil {
		return rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidInput(req.GetServer(), method, "%v", err))
	}
	dr := door.NewRequest(door.Via(ctx, door.ViaGRPC), nil, method, own)
	asked := ""
	if len(dr.Names) == 1 {
		asked = dr.Names[0]
	}
	r, name, err := s.routeNamed(ctx, req.GetServer(), dr)
	if err != nil {
		return err
	}
	defer r.release()
	params, extra, err := convert.CallParams(req.GetParamsJson(), req.GetLogLevel(), r.era)
	if err == nil {
		params, err = renamed(method, name, asked)(params, nil)
	}
	if err != nil {
		return r.invalid(err)
	}
	ev := &streamEvents[mcpbridgev1.CallStreamResponse]{stream: stream, wrap: callStreamEvent, cancel: cancel, minLog: req.GetLogLevel()}
	defer r.c.Level.Want(ctx, req.GetLogLevel())() // a legacy child logs at least that much meanwhile
	opts := ev.options(r.callOptions(ctx))
	opts.Meta = extra
	reg := r.c.Relay.OpenStream(ctx, true, req.GetServerRequests(), func(sr *mcpbridgev1.ServerRequest) error { return ev.send(sr) })
	res, err := r.callCounted(ctx, params, opts)
	reg.Close()
	if err != nil {
		return ev.finish(err)
	}
	return ev.send(&mcpbridgev1.CallResponse{ResultJson: string(res)})
}
