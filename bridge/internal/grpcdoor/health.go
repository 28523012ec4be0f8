package grpcdoor

// This file is the health service as callers see it (docs/security.md,
// "Transport hardening"). Health is open to every caller, so that probes
// need no credentials; but the status of "mcpbridge.v1.BridgeService/<name>"
// would tell anyone who reaches the port which servers the bridge fronts.
// With authentication on, Health answers for a server only to an
// authenticated caller whose rules let it use that server; to anyone else
// a server's entry is what an unknown service's is.

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Health is the registered health service: the bridge's health server
// (its entries), with each server's entry shown only to the callers that
// may use the server. A method that grpc-go's health service gains later
// is UNIMPLEMENTED here until it is looked at, rather than passed through
// unfiltered.
type Health struct {
	healthpb.UnimplementedHealthServer
	entries *health.Server
	core    Core
}

// NewHealth is the health service over entries.
func NewHealth(entries *health.Server, core Core) *Health {
	return &Health{entries: entries, core: core}
}

// serverEntry starts the health entry of a fronted server: the service's
// name, a slash, the server's.
var serverEntry = mcpbridgev1.BridgeService_ServiceDesc.ServiceName + "/"

// caller is ctx with the caller's principal, when it has valid
// credentials and authentication is on. The tap leaves health calls
// alone, so that probes cost nothing there; their credentials are checked
// here, and only by the calls that ask about servers.
func (g *Health) caller(ctx context.Context) context.Context {
	if !g.core.Door().Access().Auth.Enabled() || access.FromContext(ctx) != nil {
		return ctx
	}
	if authed, err := g.core.Authenticate(ctx); err == nil {
		return authed
	}
	return ctx
}

// visible reports whether the caller of ctx (see caller) may see the
// health entry service: the overall entries always, a server's only with
// authentication off or to an authenticated caller the rules let use it.
func (g *Health) visible(ctx context.Context, service string) bool {
	name, isServer := strings.CutPrefix(service, serverEntry)
	if !isServer || !g.core.Door().Access().Auth.Enabled() {
		return true
	}
	return access.FromContext(ctx) != nil && g.core.AllowServer(ctx, name)
}

// Check is the health server's, NOT_FOUND "unknown service" (as for a
// service never registered) for an entry the caller may not see.
func (g *Health) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if !g.visible(g.caller(ctx), req.GetService()) {
		return nil, status.Error(codes.NotFound, "unknown service")
	}
	return g.entries.Check(ctx, req)
}

// Watch is the health server's; for an entry the caller may not see it
// does what the health server does for a service never registered: it
// sends SERVICE_UNKNOWN once and holds the stream until the caller ends
// it.
func (g *Health) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	if g.visible(g.caller(stream.Context()), req.GetService()) {
		return g.entries.Watch(req, stream)
	}
	if err := stream.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVICE_UNKNOWN}); err != nil {
		return status.Error(codes.Canceled, "Stream has ended.")
	}
	<-stream.Context().Done()
	return status.Error(codes.Canceled, "Stream has ended.")
}

// List is the health server's without the entries the caller may not
// see.
func (g *Health) List(ctx context.Context, req *healthpb.HealthListRequest) (*healthpb.HealthListResponse, error) {
	res, err := g.entries.List(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx = g.caller(ctx)
	for service := range res.GetStatuses() {
		if !g.visible(ctx, service) {
			delete(res.Statuses, service)
		}
	}
	return res, nil
}
