package pool

// This file is the state of every server and child as Prometheus metrics,
// read from the live objects at each scrape, so that keeping them costs
// the hot path nothing (docs/observability.md has the list).

import (
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
)

// NewCollector reports the servers that servers returns, at each scrape.
func NewCollector(servers func() map[string]*Server) prometheus.Collector {
	return &stateCollector{servers: servers}
}

// stateCollector reports the servers and children as they are at the
// scrape.
type stateCollector struct{ servers func() map[string]*Server }

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

	descChildFenceKills = prometheus.NewDesc("mcpbridge_child_sandbox_kills_total",
		"The child's processes its sandbox ended, by fence: memory (killed for going over limits.memory), cpu (limits.cpu_seconds ran out).",
		append(childLabels, "fence"), nil)

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
		descChildSubscriptions, descChildSkipped, descChildTooLong, descChildBytes, descChildFenceKills,
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
	set := c.servers()
	for _, name := range slices.Sorted(maps.Keys(set)) {
		srv := set[name]
		running := 0
		for _, m := range srv.Children() {
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
				subs = int(ch.Subscribers.Load())
			}
			gauge(descChildInFlight, float64(calls), name, m.id)
			gauge(descChildWaiting, float64(m.waiting.Load()), name, m.id)
			gauge(descChildServerRequests, float64(serverRequests), name, m.id)
			gauge(descChildSubscriptions, float64(subs), name, m.id)
			counter(descChildSkipped, float64(m.counters.LinesSkipped.Load()), name, m.id)
			counter(descChildTooLong, float64(m.counters.LinesTooLong.Load()), name, m.id)
			counter(descChildBytes, float64(m.counters.BytesOut.Load()), name, m.id, "sent")
			counter(descChildBytes, float64(m.counters.BytesIn.Load()), name, m.id, "received")
			if srv.cfg.Sandbox != nil {
				counter(descChildFenceKills, float64(m.memoryKills.Load()), name, m.id, "memory")
				counter(descChildFenceKills, float64(m.cpuKills.Load()), name, m.id, "cpu")
			}
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
