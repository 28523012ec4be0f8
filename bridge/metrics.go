package bridge

import (
	"maps"
	"slices"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
)

// This file is the bridge's Prometheus metrics beyond the MCP operation
// histogram (package internal/door): the gRPC server's, from go-grpc-middleware's
// Prometheus provider, and the state of every server and child, read from
// the live objects at each scrape, so that keeping them costs the hot path
// nothing (docs/observability.md has the list).

// grpcMetrics are the gRPC server metrics of the Service.
type grpcMetrics struct {
	server  *grpcprom.ServerMetrics
	refusal *prometheus.CounterVec // requests the door refused (package internal/door)

	forgotten *door.Forgotten // the Observer's: servers a reload removed, no refusals counted for them
}

// newGRPCMetrics registers the Service's metrics; nil without
// Config.Metrics. s.door.Obs must be made first: the refusal counter
// shares its forgotten servers.
func newGRPCMetrics(s *Service) (*grpcMetrics, error) {
	if s.cfg.Metrics == nil {
		return nil, nil
	}
	m := &grpcMetrics{server: grpcprom.NewServerMetrics(
		grpcprom.WithServerHandlingTimeHistogram(grpcprom.WithHistogramBuckets(door.OperationBuckets)),
	), refusal: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpbridge_requests_refused_total",
		Help: "Requests to a child that the bridge refused before they reached it, by reason: unauthenticated (credentials revoked or expired on an open stream), permission_denied (the rules), limited (a rate or concurrency limit).",
	}, []string{"server", "method", "via", "reason"}), forgotten: s.door.Obs.Forgotten()}
	for _, c := range []prometheus.Collector{m.server, m.refusal, pool.NewCollector(s.serverSet), s.door.TaskCollector(func() []string { return slices.Collect(maps.Keys(s.serverSet())) })} {
		if err := s.cfg.Metrics.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// unary and stream are the interceptors that count and time each RPC;
// none without metrics.
func (m *grpcMetrics) unary() []grpc.UnaryServerInterceptor {
	if m == nil {
		return nil
	}
	return []grpc.UnaryServerInterceptor{m.server.UnaryServerInterceptor()}
}

func (m *grpcMetrics) stream() []grpc.StreamServerInterceptor {
	if m == nil {
		return nil
	}
	return []grpc.StreamServerInterceptor{m.server.StreamServerInterceptor()}
}

// initialize makes every RPC of gs a series from the start, at zero.
func (m *grpcMetrics) initialize(gs *grpc.Server) {
	if m != nil {
		m.server.InitializeMetrics(gs)
	}
}

// refusedMethods are the method label values of the refusals metric;
// any other method a caller names is "_other", so that callers cannot
// grow the series.
var refusedMethods = map[string]bool{
	"tools/call": true, "tools/list": true, "resources/read": true, "resources/list": true,
	"resources/templates/list": true, "resources/subscribe": true, "resources/unsubscribe": true,
	"prompts/get": true, "prompts/list": true, "completion/complete": true, "subscriptions/listen": true,
	"logging/setLevel": true, "ping": true, "server/discover": true, "initialize": true,
	"Connect": true, "Subscribe": true, "GetServer": true,
}

// forget drops a removed server's refusal series, and keeps a stream still
// open on it from counting them again until the Observer's Remember (the
// set is the Observer's, which Reload forgets the server in first).
func (m *grpcMetrics) forget(server string) {
	if m != nil {
		m.forgotten.Forget(server, func() { m.refusal.DeletePartialMatch(prometheus.Labels{"server": server}) })
	}
}

// refused counts a request the door refused.
func (m *grpcMetrics) refused(req *door.Request, why string) {
	if m == nil {
		return
	}
	ok := m.forgotten.Begin(req.Server.Name)
	defer m.forgotten.End()
	if !ok {
		return
	}
	method := req.Method
	if !refusedMethods[method] {
		method = door.OtherLabel
	}
	m.refusal.WithLabelValues(req.Server.Name, method, req.Via, why).Inc()
}
