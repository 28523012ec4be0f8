package bridge

// This file is the health service as callers see it (docs/security.md,
// "Transport hardening"). Health is open to every caller, so that probes
// need no credentials; but the status of "mcpbridge.v1.BridgeService/<name>"
// would tell anyone who reaches the port which servers the bridge fronts.
// With authentication on, healthGate answers for a server only to an
// authenticated caller whose rules let it use that server; to anyone else
// a server's entry is what an unknown service's is.

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// healthGate is the registered health service: s.health, with each
// server's entry shown only to the callers that may use the server. A
// method that grpc-go's health service gains later is UNIMPLEMENTED here
// until it is looked at, rather than passed through unfiltered.
type healthGate struct {
	healthpb.UnimplementedHealthServer
	s *Service
}

// caller is ctx with the caller's principal, when it has valid
// credentials and authentication is on. The tap leaves health calls
// alone, so that probes cost nothing there; their credentials are checked
// here, and only by the calls that ask about servers.
func (g healthGate) caller(ctx context.Context) context.Context {
	if !g.s.door.Access().Auth.Enabled() || access.FromContext(ctx) != nil {
		return ctx
	}
	if authed, err := g.s.authenticate(ctx); err == nil {
		return authed
	}
	return ctx
}

// visible reports whether the caller of ctx (see caller) may see the
// health entry service: the overall entries always, a server's only with
// authentication off or to an authenticated caller the rules let use it.
func (g healthGate) visible(ctx context.Context, service string) bool {
	name, isServer := strings.CutPrefix(service, HealthService+"/")
	if !isServer || !g.s.door.Access().Auth.Enabled() {
		return true
	}
	return access.FromContext(ctx) != nil && g.s.allowServer(ctx, name)
}

// LivenessService is the health entry that is SERVING for as long as the
// bridge answers at all, also while it drains: for a liveness probe, which
// must not restart a bridge whose children are down (the overall entry ""
// is NOT_SERVING when none serves) or which is stopping gracefully. New
// sets it once; Shutdown leaves it alone.
const LivenessService = "liveness"

// Check is the health server's, NOT_FOUND "unknown service" (as for a
// service never registered) for an entry the caller may not see.
func (g healthGate) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if !g.visible(g.caller(ctx), req.GetService()) {
		return nil, status.Error(codes.NotFound, "unknown service")
	}
	return g.s.health.Check(ctx, req)
}

// Watch is the health server's; for an entry the caller may not see it
// does what the health server does for a service never registered: it
// sends SERVICE_UNKNOWN once and holds the stream until the caller ends
// it.
func (g healthGate) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	if g.visible(g.caller(stream.Context()), req.GetService()) {
		return g.s.health.Watch(req, stream)
	}
	if err := stream.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVICE_UNKNOWN}); err != nil {
		return status.Error(codes.Canceled, "Stream has ended.")
	}
	<-stream.Context().Done()
	return status.Error(codes.Canceled, "Stream has ended.")
}

// List is the health server's without the entries the caller may not
// see.
func (g healthGate) List(ctx context.Context, req *healthpb.HealthListRequest) (*healthpb.HealthListResponse, error) {
	res, err := g.s.health.List(ctx, req)
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

// podReadiness is the overall status, "" and HealthService, that
// readiness probes and balancers read, for the current servers' health:
// SERVING while at least one server is (docs/scaling.md, "Readiness").
//
// Not "while every server is": the replicas run one configuration, so a
// server that cannot start (a typo in its command, a credential it lacks)
// fails on every replica at once, and taking each replica out of its
// Service for it would stop the servers that work too, everywhere, and
// help nobody. What one server cannot serve shows on its own entry,
// HealthService+"/<name>", which a balancer that routes by server can
// check. With no server ready there is nothing to serve: NOT_SERVING.
func podReadiness(ready map[string]bool) healthpb.HealthCheckResponse_ServingStatus {
	for _, ok := range ready {
		if ok {
			return healthpb.HealthCheckResponse_SERVING
		}
	}
	return healthpb.HealthCheckResponse_NOT_SERVING
}

// logReadiness logs a change of the overall status to st, naming the
// servers that are ready and those that are not, so that a replica's
// leaving or joining its Service is found in its log; healthMu is held.
// Shutdown's NOT_SERVING is the drain's, logged by the program.
func (s *Service) logReadiness(st healthpb.HealthCheckResponse_ServingStatus) {
	if s.shutDown {
		return
	}
	if cur, err := s.health.Check(context.Background(), &healthpb.HealthCheckRequest{Service: HealthService}); err == nil && cur.GetStatus() == st {
		return
	}
	var up, down []string
	for name, ok := range s.ready {
		if ok {
			up = append(up, name)
		} else {
			down = append(down, name)
		}
	}
	slices.Sort(up)
	slices.Sort(down)
	if st == healthpb.HealthCheckResponse_SERVING {
		s.cfg.Logger.Info("mcpbridge: ready: at least one server serves", "ready", up, "not_ready", down)
		return
	}
	s.cfg.Logger.Warn("mcpbridge: not ready: no server serves", "not_ready", down)
}
