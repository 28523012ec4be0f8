package bridge

import (
	"maps"
	"slices"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
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
}

// newGRPCMetrics registers the Service's metrics; nil without
// Config.Metrics.
func newGRPCMetrics(s *Service) (*grpcMetrics, error) {
	if s.cfg.Metrics == nil {
		return nil, nil
	}
	m := &grpcMetrics{server: grpcprom.NewServerMetrics(
		grpcprom.WithServerHandlingTimeHistogram(grpcprom.WithHistogramBuckets(door.OperationBuckets)),
	), refusal: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpbridge_requests_refused_total",
		Help: "Requests to a child that the bridge refused before they reached it, by reason: unauthenticated (credentials revoked or expired on an open stream), permission_denied (the rules), limited (a rate or concurrency limit).",
	}, []string{"server", "method", "via", "reason"})}
	for _, c := range []prometheus.Collector{m.server, m.refusal, &stateCollector{s: s}} {
		if err := s.cfg.Metrics.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// stateCollector reports the servers and children as they are at the
// scrape.
type stateCollector struct{ s *Service }

var (
	childLabels = []string{"server", "child"}

	descChildState = prometheus.NewDesc("mcpbridge_child_state",
		"1 for the child's current state (starting, ready, restarting, failed, stopping), 0 for the others.",
		append(childLabels, "state"), nil)
	descChildRestarts = prometheus.NewDesc("mcpbridge_child_restarts_total",
		"The child's starts after its first.", childLabels, nil)
	descChildInFlight = prometheus.NewDesc("mcpbridge_child_calls_in_flight",
		"Requests sent to the child (or being written) and not yet answered.", childLabels, nil)
	descChildWaiting = prometheus.NewDesc("mcpbridge_child_calls_waiting",
		"Calls waiting for the child to be ready (while it starts or restarts).", childLabels, nil)
	descChildServerRequests = prometheus.NewDesc("mcpbridge_child_server_requests_pending",
		"The child's own requests (sampling, elicitation, roots) not yet answered.", childLabels, nil)
	descChildSubscriptions = prometheus.NewDesc("mcpbridge_child_subscriptions_open",
		"Subscribe streams open on the child.", childLabels, nil)
	descChildSkipped = prometheus.NewDesc("mcpbridge_child_stdout_skipped_lines_total",
		"Lines on the child's stdout that were not JSON-RPC messages, skipped.", childLabels, nil)
	descChildTooLong = prometheus.NewDesc("mcpbridge_child_stdout_oversized_lines_total",
		"Lines on the child's stdout over the line limit, discarded.", childLabels, nil)
	descChildBytes = prometheus.NewDesc("mcpbridge_child_bytes_total",
		"Bytes exchanged with the child: direction=\"sent\" on its stdin, \"received\" on its stdout.",
		append(childLabels, "direction"), nil)

	descServerChildren = prometheus.NewDesc("mcpbridge_server_children",
		"The server's child processes running.", []string{"server", "policy"}, nil)
	descServerSessions = prometheus.NewDesc("mcpbridge_server_sessions",
		"Sessions open, for a server with one child per session.", []string{"server"}, nil)
	descServerReaped = prometheus.NewDesc("mcpbridge_server_sessions_reaped_total",
		"Sessions stopped because they were idle.", []string{"server"}, nil)
)

// stateNames are the state label values, in order.
var stateNames = []struct {
	state supervisor.State
	name  string
}{
	{supervisor.Starting, "starting"}, {supervisor.Ready, "ready"}, {supervisor.Restarting, "restarting"},
	{supervisor.Failed, "failed"}, {supervisor.Stopping, "stopping"},
}

// policyNames are the policy label values.
var policyNames = map[Policy]string{PolicyShared: "shared", PolicyPool: "pool", PolicySession: "session"}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		descChildState, descChildRestarts, descChildInFlight, descChildWaiting, descChildServerRequests,
		descChildSubscriptions, descChildSkipped, descChildTooLong, descChildBytes,
		descServerChildren, descServerSessions, descServerReaped,
	} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	set := c.s.serverSet()
	for _, name := range slices.Sorted(maps.Keys(set)) {
		srv := set[name]
		running := 0
		for _, m := range srv.children() {
			st := m.sup.Status()
			for _, s := range stateNames {
				v := 0.0
				if s.state == st.State {
					v = 1
				}
				gauge(descChildState, v, name, m.id, s.name)
			}
			counter(descChildRestarts, float64(st.Restarts), name, m.id)
			var calls, serverRequests, subs int
			if ch := st.Child; ch != nil {
				running++
				calls, serverRequests = ch.Load()
				subs = int(ch.subscribers.Load())
			}
			gauge(descChildInFlight, float64(calls), name, m.id)
			gauge(descChildWaiting, float64(m.waiting.Load()), name, m.id)
			gauge(descChildServerRequests, float64(serverRequests), name, m.id)
			gauge(descChildSubscriptions, float64(subs), name, m.id)
			counter(descChildSkipped, float64(m.counters.LinesSkipped.Load()), name, m.id)
			counter(descChildTooLong, float64(m.counters.LinesTooLong.Load()), name, m.id)
			counter(descChildBytes, float64(m.counters.BytesOut.Load()), name, m.id, "sent")
			counter(descChildBytes, float64(m.counters.BytesIn.Load()), name, m.id, "received")
		}
		gauge(descServerChildren, float64(running), name, policyNames[srv.cfg.Policy])
		if srv.cfg.Policy == PolicySession {
			srv.mu.Lock()
			open := len(srv.sessions)
			srv.mu.Unlock()
			gauge(descServerSessions, float64(open), name)
			counter(descServerReaped, float64(srv.reaped.Load()), name)
		}
	}
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

// refused counts a request the door refused.
func (m *grpcMetrics) refused(req *door.Request, why string) {
	if m == nil {
		return
	}
	method := req.Method
	if !refusedMethods[method] {
		method = door.OtherLabel
	}
	m.refusal.WithLabelValues(req.Server.Name, method, req.Via, why).Inc()
}
