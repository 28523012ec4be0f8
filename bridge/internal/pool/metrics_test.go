package pool

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
)

// sample is the value of the series of metric name whose labels include
// want; ok is false when there is none.
func sample(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) (float64, bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			return value(m), true
		}
	}
	return 0, false
}

func value(m *dto.Metric) float64 {
	if g := m.GetGauge(); g != nil {
		return g.GetValue()
	}
	return m.GetCounter().GetValue()
}

// TestCollector: each scrape reports every server's children as they are:
// their state (1 for the current one), traffic, load and subscribers, the
// children running per server and policy, and a session server's
// sessions.
func TestCollector(t *testing.T) {
	shared := start(t, fixtureConfig(t, "shared", nil))
	sess := start(t, fixtureConfig(t, "sess", func(sc *ServerConfig) { sc.Policy = PolicySession }))
	ctx := ctxWait(t)
	c, err := shared.Acquire(ctx, "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	toolText(t, c, "pid", "{}")
	c.Subscribers.Add(2)
	defer c.Subscribers.Add(-2)
	sc, err := sess.Acquire(sessionCtx(ctx, nil, "s1"), "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	servers := map[string]*Server{"shared": shared.Server, "sess": sess.Server}
	reg.MustRegister(NewCollector(func() map[string]*Server { return servers }))
	if problems, err := testutil.CollectAndLint(NewCollector(func() map[string]*Server { return servers })); err != nil || len(problems) != 0 {
		t.Errorf("lint: %v %v", problems, err)
	}

	child := map[string]string{"server": "shared", "child": "0"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range child {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mcpbridge_child_state", with("state", "ready"), 1},
		{"mcpbridge_child_state", with("state", "starting"), 0},
		{"mcpbridge_child_state", with("state", "failed"), 0},
		{"mcpbridge_child_restarts_total", child, 0},
		{"mcpbridge_child_calls_in_flight", child, 0},
		{"mcpbridge_child_calls_waiting", child, 0},
		{"mcpbridge_child_server_requests_pending", child, 0},
		{"mcpbridge_child_subscriptions_open", child, 2},
		{"mcpbridge_child_stdout_skipped_lines_total", child, 0},
		{"mcpbridge_child_stdout_oversized_lines_total", child, 0},
		{"mcpbridge_server_children", map[string]string{"server": "shared", "policy": "shared"}, 1},
		{"mcpbridge_server_children", map[string]string{"server": "sess", "policy": "session"}, 1},
		{"mcpbridge_server_sessions", map[string]string{"server": "sess"}, 1},
		{"mcpbridge_server_sessions_reaped_total", map[string]string{"server": "sess"}, 0},
		{"mcpbridge_child_state", map[string]string{"server": "sess", "child": sessionDigest("s1"), "state": "ready"}, 1},
	} {
		if got, ok := sample(t, reg, tc.name, tc.labels); !ok || got != tc.want {
			t.Errorf("%s%v = %v (found %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	for _, dir := range []string{"sent", "received"} {
		if got, _ := sample(t, reg, "mcpbridge_child_bytes_total", with("direction", dir)); got <= 0 {
			t.Errorf("bytes %s = %v, want the handshake's and the call's", dir, got)
		}
	}
	if got := c.child.Counters().BytesOut.Load(); got <= 0 {
		t.Errorf("Counters().BytesOut = %d", got)
	}
	if _, ok := sample(t, reg, "mcpbridge_server_sessions", map[string]string{"server": "shared"}); ok {
		t.Errorf("a shared server reports sessions")
	}

	// A session stopped: the scrape says so at once.
	sess.StopSession("s1")
	done(t, sc)
	if got, _ := sample(t, reg, "mcpbridge_server_sessions", map[string]string{"server": "sess"}); got != 0 {
		t.Errorf("sessions after StopSession = %v", got)
	}
	if n := testutil.CollectAndCount(NewCollector(func() map[string]*Server { return nil })); n != 0 {
		t.Errorf("%d series without servers", n)
	}
}

// TestSessionCaps: the most sessions at once and of one principal, and
// the wait a refusal tells: a session server's own; for the private
// children of the other policies, the session defaults.
func TestSessionCaps(t *testing.T) {
	sess := &Server{name: "s", cfg: &ServerConfig{Policy: PolicySession, Session: SessionConfig{Max: 4, MaxPerPrincipal: 2, IdleTimeout: 8 * time.Second}},
		sessions: map[string]*Child{}}
	if total, per, retry := sess.sessionCaps(); total != 4 || per != 2 || retry != 2*time.Second {
		t.Errorf("a session server's caps = %d %d %v", total, per, retry)
	}
	shared := &Server{name: "t", cfg: &ServerConfig{}}
	if total, per, retry := shared.sessionCaps(); total != DefaultMaxSessions || per != 16 || retry != time.Second {
		t.Errorf("a shared server's caps = %d %d %v", total, per, retry)
	}

	const alice, bob = "apikey:alice", "jwt:bob"
	sess.sessions["1"] = &Child{owner: alice}
	if err := sess.principalFull(alice, "Connect"); err != nil {
		t.Errorf("alice's second session refused: %v", err)
	}
	sess.sessions["2"] = &Child{owner: alice}
	sess.sessions["3"] = &Child{owner: bob}
	err := sess.principalFull(alice, "Connect")
	wantStatus(t, err, codes.ResourceExhausted, `The server "s" has the most sessions one principal may have (max_per_principal 2) open for this caller`)
	if info, retry := details(err); retry != 2*time.Second || info.GetMetadata()["method"] != "Connect" {
		t.Errorf("RetryInfo %v, ErrorInfo %v", retry, info)
	}
	if err := sess.principalFull(bob, "Connect"); err != nil {
		t.Errorf("bob refused for alice's sessions: %v", err)
	}
	if err := sess.principalFull("", "Connect"); err != nil {
		t.Errorf("without authentication: %v", err)
	}
}

// TestSessionName: a session is named by its metadata, and owned by its
// principal: another caller naming it names another session.
func TestSessionName(t *testing.T) {
	ctx := ctxWait(t)
	if got := SessionName(ctx); got != "" {
		t.Errorf("no metadata: %q", got)
	}
	if got := SessionName(sessionCtx(ctx, nil, "")); got != "" {
		t.Errorf("an empty value: %q", got)
	}
	if got := SessionName(sessionCtx(ctx, nil, "s1")); got != "s1" {
		t.Errorf("anonymous: %q", got)
	}
	if got := SessionName(sessionCtx(ctx, &access.Principal{Name: "alice", Method: "jwt"}, "s1")); got != "jwt:alice\x00s1" {
		t.Errorf("alice's: %q", got)
	}
	if d := sessionDigest("s1"); len(d) != 12 || d == sessionDigest("s2") || strings.Contains(d, "s1") {
		t.Errorf("sessionDigest = %q", d)
	}
}

// TestChildIdle: a child is never idle while it starts or while a call
// uses it; otherwise for as long as since its last use.
func TestChildIdle(t *testing.T) {
	s := start(t, fixtureConfig(t, "idle", nil))
	m := s.Children()[0]
	if st := m.Status(); st.State == supervisor.Starting && m.idleFor(time.Now().Add(time.Hour)) != 0 {
		t.Errorf("a starting child is idle")
	}
	c, err := s.Acquire(ctxWait(t), "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if d := m.idleFor(later); d < 59*time.Minute {
		t.Errorf("idle for %v an hour after its last use", d)
	}
	leave := c.Relay.Enter(ctxWait(t))
	defer leave()
	if d := m.idleFor(later); d != 0 {
		t.Errorf("idle for %v with a call in flight", d)
	}
	if toStruct([]byte(`[1]`)) != nil || toStruct(nil) != nil {
		t.Errorf("toStruct of what is no object")
	}
}
