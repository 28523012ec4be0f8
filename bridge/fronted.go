package bridge

// This file is a fronted server as the API sees it: how a request names
// one, and the RPCs about the servers themselves: GetServer, ListServers
// and Ping. The servers and their children are package internal/pool.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// lookup finds the fronted server a request names, by its server field or
// the mcp-server metadata key; when the bridge fronts one server, an empty
// name selects it. A failure is already a status. Whether the caller may
// use the server is the door's to say (package internal/door).
func (s *Service) lookup(ctx context.Context, field, method string) (*pool.Server, error) {
	name := field
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(ServerMetadataKey); len(v) > 0 {
			if field != "" && v[0] != field {
				return nil, rpcerr.ToStatus(field, method, rpcerr.InvalidInput(field, method, "%v", &convert.FieldError{Field: "server", Reason: convert.ReasonInvalidValue,
					Err: fmt.Errorf("the server field %q and the %s metadata %q disagree", field, ServerMetadataKey, v[0])}))
			}
			name = v[0]
		}
	}
	set := s.serverSet()
	srv, ok := set[name]
	if !ok && name == "" && len(set) == 1 {
		for _, only := range set {
			srv, ok = only, true
		}
	}
	if ok {
		return srv, nil
	}
	rpc := jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", name)
	if name == "" && len(set) > 1 {
		rpc = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s", s.nameOneOf(ctx, set))
	}
	ce := &rpcerr.CallError{RPC: rpc, Reason: rpcerr.ReasonUnknownServer}
	if name == field { // named by the field, not by the metadata
		reason := convert.ReasonInvalidValue
		if name == "" {
			reason = convert.ReasonRequired
		}
		ce.Field = &convert.FieldError{Field: "server", Reason: reason, Err: ce.RPC}
	}
	return nil, rpcerr.ToStatus(name, method, ce)
}

// namedServersShown bounds how many server names a refusal lists.
const namedServersShown = 8

// nameOneOf says, for a request that names no server to a bridge that
// fronts several, that it must name one, how, and which: the servers the
// caller may use, sorted, at most namedServersShown of them.
func (s *Service) nameOneOf(ctx context.Context, set map[string]*pool.Server) string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if s.allowServer(ctx, name) {
			names = append(names, fmt.Sprintf("%q", name))
		}
	}
	listed := "none of them open to this caller"
	if len(names) > 0 {
		listed = strings.Join(names[:min(len(names), namedServersShown)], ", ")
		if more := len(names) - namedServersShown; more > 0 {
			listed += fmt.Sprintf(" and %d more", more)
		}
	}
	return fmt.Sprintf("no server named, and this bridge fronts several servers (%s): name one in the request's server field, "+
		"the %s metadata key, the path /mcp/{name} over HTTP, or mcpbridge connect --server NAME", listed, ServerMetadataKey)
}

// GetServer returns the state of a fronted server as it is now: a child
// that is starting, restarting, failed or stopping is reported so, and the
// negotiated fields are set while it is READY. Only with wait_for_ready
// does it wait while the child starts (bounded by the RPC's deadline and
// the handshake timeout). A session server describes the session the
// request names, if it runs; it never starts one.
func (s *Service) GetServer(ctx context.Context, req *mcpbridgev1.GetServerRequest) (*mcpbridgev1.GetServerResponse, error) {
	const method = "GetServer"
	srv, err := s.lookup(ctx, req.GetServer(), method)
	if err != nil {
		return nil, err
	}
	dr := &door.Request{Via: door.Via(ctx, door.ViaGRPC), Server: srv.Door(), Method: method}
	ps, refused := s.door.Admit(ctx, dr)
	if refused != nil {
		return nil, refused.Status(dr)
	}
	defer ps.Release()
	if req.GetWaitForReady() && srv.Config().Policy != PolicySession {
		if _, err := srv.Acquire(ctx, method); err != nil {
			if status.Code(err) != codes.Unavailable {
				return nil, err
			}
		}
	}
	return srv.Describe(pool.SessionName(ctx)), nil
}

// ListServers describes every fronted server, sorted by name.
func (s *Service) ListServers(ctx context.Context, _ *mcpbridgev1.ListServersRequest) (*mcpbridgev1.ListServersResponse, error) {
	set := s.serverSet()
	resp := &mcpbridgev1.ListServersResponse{}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if s.allowServer(ctx, name) { // a caller sees only the servers it may use
			resp.Servers = append(resp.Servers, set[name].Describe(""))
		}
	}
	return resp, nil
}

// Ping checks that the child answers: ping (legacy) or server/discover
// (2026, which has no ping).
func (s *Service) Ping(ctx context.Context, req *mcpbridgev1.PingRequest) (*mcpbridgev1.PingResponse, error) {
	r, err := s.route(ctx, req.GetServer(), &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: "ping"})
	if err != nil {
		return nil, err
	}
	defer r.release()
	c := r.c
	if protocol.Modern(c.Protocol()) {
		r.method, r.req.Method = "server/discover", "server/discover"
	}
	start := time.Now()
	if _, err := r.call(ctx, nil, nil); err != nil {
		return nil, err
	}
	rtt := time.Since(start)
	return &mcpbridgev1.PingResponse{RoundTrip: durationpb.New(rtt), Method: r.method, Child: c.Info()}, nil
}
