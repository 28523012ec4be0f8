package grpcdoor

// This file is a fronted server as the API sees it: how a request names
// one, and the RPCs about the servers themselves: GetServer, ListServers
// and Ping. The servers and their children are package internal/pool.

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// GetServer returns the state of a fronted server as it is now: a child
// that is starting, restarting, failed or stopping is reported so, and the
// negotiated fields are set while it is READY. Only with wait_for_ready
// does it wait while the child starts (bounded by the RPC's deadline and
// the handshake timeout). A session server describes the session the
// request names, if it runs; it never starts one.
func (s *API) GetServer(ctx context.Context, req *mcpbridgev1.GetServerRequest) (*mcpbridgev1.GetServerResponse, error) {
	const method = "GetServer"
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		return s.describeAggregate(ctx, agg, pool.SessionName(ctx)), nil
	}
	srv, err := s.core.Lookup(ctx, req.GetServer(), method)
	if err != nil {
		return nil, err
	}
	dr := &door.Request{Via: door.Via(ctx, door.ViaGRPC), Server: srv.Door(), Method: method}
	ps, refused := s.core.Door().Admit(ctx, dr)
	if refused != nil {
		return nil, refused.Status(dr)
	}
	defer ps.Release()
	if req.GetWaitForReady() && srv.Config().Policy != pool.PolicySession {
		if _, err := srv.Acquire(ctx, method); err != nil {
			if status.Code(err) != codes.Unavailable {
				return nil, err
			}
		}
	}
	return srv.Describe(pool.SessionName(ctx)), nil
}

// ListServers describes every fronted server and aggregate, sorted by
// name.
func (s *API) ListServers(ctx context.Context, _ *mcpbridgev1.ListServersRequest) (*mcpbridgev1.ListServersResponse, error) {
	set := s.core.Servers()
	resp := &mcpbridgev1.ListServersResponse{}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if s.core.AllowServer(ctx, name) { // a caller sees only the servers it may use
			resp.Servers = append(resp.Servers, set[name].Describe(""))
		}
	}
	for _, agg := range s.core.Aggregates() {
		if d := s.describeAggregate(ctx, agg, ""); len(d.Members) > 0 {
			resp.Servers = append(resp.Servers, d)
		}
	}
	slices.SortFunc(resp.Servers, func(a, b *mcpbridgev1.GetServerResponse) int { return strings.Compare(a.Name, b.Name) })
	return resp, nil
}

// describeAggregate is GetServer of an aggregate: its members the caller
// may use, each as GetServer describes it.
func (s *API) describeAggregate(ctx context.Context, agg *aggregate.Server, session string) *mcpbridgev1.GetServerResponse {
	out := &mcpbridgev1.GetServerResponse{Name: agg.Name(), Policy: mcpbridgev1.ServerPolicy_SERVER_POLICY_AGGREGATE}
	set := s.core.Servers()
	for _, m := range agg.Config().Members {
		if srv, ok := set[m]; ok && s.core.AllowServer(ctx, m) {
			out.Members = append(out.Members, srv.Describe(session))
		}
	}
	return out
}

// Ping checks that the child answers: ping (legacy) or server/discover
// (2026, which has no ping).
func (s *API) Ping(ctx context.Context, req *mcpbridgev1.PingRequest) (*mcpbridgev1.PingResponse, error) {
	r, _, err := s.routeNamed(ctx, req.GetServer(), &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: "ping"})
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
