package bridge

// This file is the bridge's health entries: liveness, and the readiness
// of the pod and of each server. Who may see which entry is
// grpcdoor.Health's (internal/grpcdoor/health.go).

import (
	"context"
	"slices"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// LivenessService is the health entry that is SERVING for as long as the
// bridge answers at all, also while it drains: for a liveness probe, which
// must not restart a bridge whose children are down (the overall entry ""
// is NOT_SERVING when none serves) or which is stopping gracefully. New
// sets it once; Shutdown leaves it alone.
const LivenessService = "liveness"

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
