package grpcdoor

import (
	"context"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// RespondToServerRequest answers a ServerRequest offered on a stream. The
// first answer for an id reaches the child. Unknown, expired and already
// answered ids are NOT_FOUND, and so, with the same message, is an answer
// from another principal or with an mcp-session that is not the routing key
// of a stream the request was offered on: it tells the caller nothing about
// other callers' and sessions' requests.
func (s *API) RespondToServerRequest(ctx context.Context, req *mcpbridgev1.RespondToServerRequestRequest) (*mcpbridgev1.RespondToServerRequestResponse, error) {
	const method = "RespondToServerRequest"
	var o fanout.Outcome
	switch out := req.GetOutcome().(type) {
	case *mcpbridgev1.RespondToServerRequestRequest_ResultJson:
		res, err := rawjson.Compact([]byte(out.ResultJson))
		switch {
		case err != nil:
			return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "result_json", convert.ReasonInvalidJSON, " is not valid JSON: %v", err))
		case !rawjson.IsObject(res):
			return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "result_json", convert.ReasonWrongJSONType, " must be a JSON object, not %s", convert.JSONKind(res)))
		}
		o.Result = res
	case *mcpbridgev1.RespondToServerRequestRequest_Error:
		e := out.Error
		if e.GetCode() == 0 {
			return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "error.code", convert.ReasonRequired, " is required"))
		}
		o.Err = &jsonrpc.Error{Code: int64(e.GetCode()), Message: e.GetMessage()}
		if e.GetDataJson() != "" {
			data, err := rawjson.Compact([]byte(e.GetDataJson()))
			if err != nil {
				return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "error.data_json", convert.ReasonInvalidJSON, " is not valid JSON: %v", err))
			}
			o.Err.Data = data
		}
	default:
		return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "outcome", convert.ReasonRequired, " is required: set result_json or error"))
	}
	if req.GetId() == "" {
		return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "id", convert.ReasonRequired, " is required"))
	}
	set := s.core.Servers()
	srvs := make([]*pool.Server, 0, len(set))
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		for _, m := range agg.Config().Members { // the member that asked, under the aggregate's name
			if srv, ok := set[m]; ok {
				srvs = append(srvs, srv)
			}
		}
	} else if req.GetServer() != "" {
		srv, err := s.core.Lookup(ctx, req.GetServer(), method)
		if err != nil {
			return nil, err
		}
		srvs = append(srvs, srv)
	} else {
		for _, srv := range set {
			srvs = append(srvs, srv)
		}
	}
	who, key := access.CallerID(ctx), fanout.RoutingKey(ctx)
	for _, srv := range srvs {
		for _, r := range srv.Relays() {
			if r.Respond(req.GetId(), who, key, o) {
				return &mcpbridgev1.RespondToServerRequestResponse{}, nil
			}
		}
	}
	// -32002 is the one code that maps to NOT_FOUND (bridge.proto, Errors).
	msg := jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "No server request %q is waiting for this answer: the id is unknown, expired or answered, or the request was offered to another caller or session (answer with the request's routing_key as mcp-session metadata)", req.GetId())
	if fanout.MintedElsewhere(req.GetId()) {
		// docs/scaling.md, "Server requests": the balancer sent the answer
		// to a replica other than the one whose child asked.
		msg = jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "Server request %q was offered by another bridge replica (or by this one before a restart): send the answer with the mcp-session metadata the request's routing_key gives, so that the balancer routes it to the replica that asked", req.GetId())
	}
	return nil, rpcerr.ToStatus(req.GetServer(), method, &rpcerr.CallError{
		RPC:    msg,
		Reason: rpcerr.ReasonInvalidInput,
	})
}
