package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// secureBridge is a bridge with alice's and bob's API keys (bob in the
// group guests), an audit log and metrics.
type secureBridge struct {
	svc   *Service
	bc    mcpbridgev1.BridgeServiceClient
	audit *testkit.SyncBuffer
	reg   *prometheus.Registry
}

// startSecureBridge serves cfg with the two keys, the audit log and the
// metrics added.
func startSecureBridge(t *testing.T, cfg Config) *secureBridge {
	t.Helper()
	a := aliceAndBob(t)
	b := &secureBridge{audit: &testkit.SyncBuffer{}, reg: prometheus.NewRegistry()}
	cfg.Auth, cfg.Audit, cfg.Metrics = a, slog.New(slog.NewJSONHandler(b.audit, nil)), b.reg
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var err error
	if b.svc, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.svc.Close() })
	b.bc = mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, b.svc.NewGRPCServer()))
	return b
}

// records returns the audit log's records.
func (b *secureBridge) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(b.audit.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// refusals is the refusals metric's value for the labels.
func (b *secureBridge) refusals(server, method, via, reason string) float64 {
	return testutil.ToFloat64(b.svc.metrics.refusal.WithLabelValues(server, method, via, reason))
}

// sentToChildren is every byte the bridge wrote to the children of the
// servers.
func (b *secureBridge) sentToChildren(servers ...string) int64 {
	var n int64
	for _, name := range servers {
		for _, m := range b.svc.serverSet()[name].Children() {
			n += m.Counters().BytesOut.Load()
		}
	}
	return n
}

// refusalCheck checks that each refusal was audited once and counted
// once more: records is how many audit records came before.
type refusalCheck struct {
	t       *testing.T
	b       *secureBridge
	reason  string
	records int
}

func (c *refusalCheck) expect(what, server, method, via string, do func()) {
	c.t.Helper()
	before := c.b.refusals(server, method, via, c.reason)
	do()
	if got := c.b.refusals(server, method, via, c.reason); got != before+1 {
		c.t.Errorf("%s: mcpbridge_requests_refused_total{server=%q,method=%q,via=%q,reason=%q} went from %v to %v, want one more",
			what, server, method, via, c.reason, before, got)
	}
	recs := c.b.records(c.t)
	if len(recs) != c.records+1 {
		c.t.Errorf("%s: %d audit records after %d, want one more: %v", what, len(recs), c.records, recs[c.records:])
		c.records = len(recs)
		return
	}
	r := recs[c.records]
	c.records++
	if r["outcome"] != "refused" || r["refused"] != c.reason || r["method"] != method || r["via"] != via || r["server"] != server || r["principal"] != "bob" {
		c.t.Errorf("%s: audit record %v, want bob's %s %s via %s refused (%s)", what, r, server, method, via, c.reason)
	}
}

// streamErr opens a server stream and returns its first error (the
// refusal of a server-streaming RPC arrives at the first Recv).
func streamErr[T any](s grpc.ServerStreamingClient[T], err error) error {
	if err != nil {
		return err
	}
	for {
		if _, err := s.Recv(); err != nil {
			return err
		}
	}
}

// connectErr opens a tunnel with first as its first message and returns
// how the stream ended.
func connectErr(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, server, first string) error {
	st, err := bc.Connect(ctx)
	if err != nil {
		return err
	}
	if err := st.Send(&mcpbridgev1.ConnectRequest{Server: server, MessageJson: first}); err != nil {
		return err
	}
	for {
		if _, err := st.Recv(); err != nil {
			return err
		}
	}
}

// TestDoorEveryPath walks every path to a child with a request the rules
// forbid and a request over a limit, and checks for each its status (or
// JSON-RPC error), its audit record, the refusals metric, and that the
// child received nothing.
func TestDoorEveryPath(t *testing.T) {
	t.Parallel()
	rules := access.Rules{
		{Principals: []string{"alice"}, Servers: []string{"*"}, Tools: []string{"*"}, Resources: []string{"*"}, Prompts: []string{"*"}},
		{Groups: []string{"guests"}, Servers: []string{"p", "r"}, Tools: []string{"pid", "hold"}, Resources: []string{"test://public"}},
	}
	p := policyServer(t, "p", PolicyShared)
	p.Limits = Limits{Concurrent: 1}
	r := policyServer(t, "r", PolicyShared)
	r.Limits = Limits{Rate: 0.001, Burst: 1}
	b := startSecureBridge(t, Config{Servers: []ServerConfig{p, r, policyServer(t, "other", PolicyShared)}, Rules: rules})
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	for _, name := range []string{"p", "r", "other"} { // every child ready, so that nothing is sent later
		if _, err := b.bc.Ping(alice, &mcpbridgev1.PingRequest{Server: name}); err != nil {
			t.Fatal(err)
		}
	}
	skip := len(b.records(t)) // the pings' records, if any

	t.Run("forbidden", func(t *testing.T) {
		sent := b.sentToChildren("p", "r", "other")
		chk := &refusalCheck{t: t, b: b, reason: door.RefusedDenied, records: skip}
		secret := argsStruct(`{}`)
		chk.expect("CallTool", "p", "tools/call", door.ViaGRPC, func() {
			_, err := b.bc.CallTool(bob, &mcpbridgev1.CallToolRequest{Server: "p", Name: "secret", Arguments: secret})
			wantDenied(t, "CallTool(secret)", err)
		})
		chk.expect("CallToolStream", "p", "tools/call", door.ViaGRPC, func() {
			wantDenied(t, "CallToolStream(secret)", streamErr(b.bc.CallToolStream(bob, &mcpbridgev1.CallToolStreamRequest{Server: "p", Name: "secret"})))
		})
		chk.expect("Call", "p", "tools/call", door.ViaGRPC, func() {
			_, err := b.bc.Call(bob, &mcpbridgev1.CallRequest{Server: "p", Method: "tools/call", ParamsJson: `{"name":"secret"}`})
			wantDenied(t, "Call(tools/call secret)", err)
		})
		chk.expect("CallStream", "p", "tools/call", door.ViaGRPC, func() {
			wantDenied(t, "CallStream(tools/call secret)", streamErr(b.bc.CallStream(bob, &mcpbridgev1.CallStreamRequest{Server: "p", Method: "tools/call", ParamsJson: `{"name":"secret"}`})))
		})
		chk.expect("ReadResource", "p", "resources/read", door.ViaGRPC, func() {
			_, err := b.bc.ReadResource(bob, &mcpbridgev1.ReadResourceRequest{Server: "p", Uri: "test://private"})
			wantDenied(t, "ReadResource(test://private)", err)
		})
		chk.expect("Subscribe", "p", "Subscribe", door.ViaGRPC, func() {
			wantDenied(t, "Subscribe(test://private)", streamErr(b.bc.Subscribe(bob, &mcpbridgev1.SubscribeRequest{Server: "p", ResourceSubscriptions: []string{"test://private"}})))
		})
		chk.expect("GetServer", "other", "GetServer", door.ViaGRPC, func() {
			_, err := b.bc.GetServer(bob, &mcpbridgev1.GetServerRequest{Server: "other"})
			wantDenied(t, "GetServer(other)", err)
		})
		chk.expect("Ping", "other", "ping", door.ViaGRPC, func() {
			_, err := b.bc.Ping(bob, &mcpbridgev1.PingRequest{Server: "other"})
			wantDenied(t, "Ping(other)", err)
		})
		chk.expect("ListTools", "other", "tools/list", door.ViaGRPC, func() {
			_, err := b.bc.ListTools(bob, &mcpbridgev1.ListToolsRequest{Server: "other"})
			wantDenied(t, "ListTools(other)", err)
		})
		chk.expect("Connect", "other", "Connect", door.ViaConnect, func() {
			wantDenied(t, "Connect(other)", connectErr(bob, b.bc, "other", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pid"}}`))
		})
		tun := openTunnel(bob, t, b.bc, "p")
		chk.expect("a tunnel's request", "p", "tools/call", door.ViaConnect, func() {
			tun.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"secret"}`) + `}`)
			m, text := tun.response("7", nil)
			if e, ok := wire.DecodeError(m.Error); !ok || e.Code != -32602 || !strings.Contains(e.Message, "Permission denied") {
				t.Errorf("a tunnel's tools/call secret = %s, want -32602 Permission denied", text)
			}
		})
		tun.st.CloseSend()
		if got := b.sentToChildren("p", "r", "other"); got != sent {
			t.Errorf("the children were sent %d bytes while every request was refused", got-sent)
		}
	})

	t.Run("over a limit", func(t *testing.T) {
		// bob's tunnel, open before his one place among p's calls in
		// flight is taken.
		tun := openTunnel(bob, t, b.bc, "p")
		holdCtx, release := context.WithCancel(bob)
		held := make(chan error, 1)
		go func() {
			_, err := b.bc.CallTool(holdCtx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "hold", Arguments: argsStruct(`{"ms":60000}`)})
			held <- err
		}()
		defer func() {
			release()
			<-held
		}()
		// Until the child runs the hold: only then is every byte of it
		// written. The client's Load counts the call from before its
		// request is written, so waiting on it would take the count
		// below too early. alice asks the child, and her own calls are
		// answered before the count is taken.
		for {
			n, err := b.bc.CallTool(alice, &mcpbridgev1.CallToolRequest{Server: "p", Name: "count", Arguments: argsStruct(`{"name":"hold"}`)})
			if err != nil {
				t.Fatalf("alice's count of holds = %v", err)
			}
			if n.GetContent()[0].GetText().GetText() == "1" {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatal("the hold call never reached the child")
			case <-time.After(5 * time.Millisecond):
			}
		}
		sent := b.sentToChildren("p")
		chk := &refusalCheck{t: t, b: b, reason: door.RefusedLimited, records: len(b.records(t))}
		exhausted := func(what string, err error) {
			t.Helper()
			if status.Code(err) != codes.ResourceExhausted || !hasRetryInfo(err) {
				t.Errorf("%s = %v, want RESOURCE_EXHAUSTED with RetryInfo", what, err)
			}
		}
		pid := argsStruct(`{}`)
		chk.expect("CallTool", "p", "tools/call", door.ViaGRPC, func() {
			_, err := b.bc.CallTool(bob, &mcpbridgev1.CallToolRequest{Server: "p", Name: "pid", Arguments: pid})
			exhausted("CallTool", err)
		})
		chk.expect("CallToolStream", "p", "tools/call", door.ViaGRPC, func() {
			exhausted("CallToolStream", streamErr(b.bc.CallToolStream(bob, &mcpbridgev1.CallToolStreamRequest{Server: "p", Name: "pid"})))
		})
		chk.expect("Call", "p", "tools/call", door.ViaGRPC, func() {
			_, err := b.bc.Call(bob, &mcpbridgev1.CallRequest{Server: "p", Method: "tools/call", ParamsJson: `{"name":"pid"}`})
			exhausted("Call", err)
		})
		chk.expect("CallStream", "p", "tools/call", door.ViaGRPC, func() {
			exhausted("CallStream", streamErr(b.bc.CallStream(bob, &mcpbridgev1.CallStreamRequest{Server: "p", Method: "tools/call", ParamsJson: `{"name":"pid"}`})))
		})
		chk.expect("ReadResource", "p", "resources/read", door.ViaGRPC, func() {
			_, err := b.bc.ReadResource(bob, &mcpbridgev1.ReadResourceRequest{Server: "p", Uri: "test://public"})
			exhausted("ReadResource", err)
		})
		chk.expect("ListTools", "p", "tools/list", door.ViaGRPC, func() {
			_, err := b.bc.ListTools(bob, &mcpbridgev1.ListToolsRequest{Server: "p"})
			exhausted("ListTools", err)
		})
		chk.expect("Ping", "p", "ping", door.ViaGRPC, func() {
			_, err := b.bc.Ping(bob, &mcpbridgev1.PingRequest{Server: "p"})
			exhausted("Ping", err)
		})
		chk.expect("a tunnel's request", "p", "tools/call", door.ViaConnect, func() {
			tun.send(`{"jsonrpc":"2.0","id":"over","method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"pid"}`) + `}`)
			m, text := tun.response(`"over"`, nil)
			if e, ok := wire.DecodeError(m.Error); !ok || e.Code != -32603 || !strings.Contains(string(e.Data), `"retryable":true`) {
				t.Errorf("a tunnel's tools/call over the limit = %s, want -32603 with retryable", text)
			}
		})
		if got := b.sentToChildren("p"); got != sent {
			t.Errorf("p's child was sent %d bytes while every request was refused", got-sent)
		}
		// The limit is bob's: alice's calls go on.
		if _, err := b.bc.CallTool(alice, &mcpbridgev1.CallToolRequest{Server: "p", Name: "pid", Arguments: pid}); err != nil {
			t.Errorf("alice's CallTool while bob is at his limit = %v", err)
		}
		tun.st.CloseSend()

		// The streams that stay open count for the rate: bob's first
		// Subscribe to r takes r's one token, and both his tunnel and his
		// next Subscribe are refused.
		sub, err := b.bc.Subscribe(bob, &mcpbridgev1.SubscribeRequest{Server: "r"})
		if err == nil {
			_, err = sub.Recv()
		}
		if err != nil {
			t.Fatalf("bob's first Subscribe to r = %v", err)
		}
		chk.records = len(b.records(t))
		chk.expect("Connect", "r", "Connect", door.ViaConnect, func() {
			exhausted("Connect", connectErr(bob, b.bc, "r", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		})
		chk.expect("Subscribe", "r", "Subscribe", door.ViaGRPC, func() {
			exhausted("Subscribe", streamErr(b.bc.Subscribe(bob, &mcpbridgev1.SubscribeRequest{Server: "r"})))
		})
	})
}

// openTunnel opens a tunnel to server whose first message is
// notifications/initialized (absorbed by the bridge).
func openTunnel(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, server string) *tunnelConn {
	t.Helper()
	st, err := bc.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&mcpbridgev1.ConnectRequest{Server: server, MessageJson: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}); err != nil {
		t.Fatal(err)
	}
	return &tunnelConn{tb: t, st: st}
}
