package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Two API keys: alice may use every tool and resource of "p"; bob only
// pid, count and test://public, and nothing of "other".
const (
	aliceKey = "alice-key-0123456789abcdef"
	bobKey   = "bob-key-0123456789abcdef"
)

func startAuthBridge(t *testing.T) (mcpbridgev1.BridgeServiceClient, *Service) {
	t.Helper()
	return startAuthBridgeWith(t, access.Rules{
		{Principals: []string{"alice"}, Servers: []string{"*"}, Tools: []string{"*"}, Resources: []string{"*"}, Prompts: []string{"*"}},
		{Groups: []string{"guests"}, Servers: []string{"p"}, Tools: []string{"pid", "count"}, Resources: []string{"test://public"}},
	}, policyServer(t, "p", PolicyShared), policyServer(t, "other", PolicyShared))
}

// startAuthBridgeWith serves servers with alice's and bob's keys and rules.
func startAuthBridgeWith(t *testing.T, rules access.Rules, servers ...ServerConfig) (mcpbridgev1.BridgeServiceClient, *Service) {
	t.Helper()
	svc, err := New(Config{Servers: servers, Logger: slog.New(slog.DiscardHandler), Auth: aliceAndBob(t), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	conn := serveLoopback(t, svc.NewGRPCServer())
	return mcpbridgev1.NewBridgeServiceClient(conn), svc
}

// aliceAndBob authenticates alice's and bob's API keys; bob is in the
// group guests.
func aliceAndBob(t *testing.T) *access.Authenticator {
	t.Helper()
	a, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{
		{Principal: "alice", SHA256: access.HashKey(aliceKey)},
		{Principal: "bob", SHA256: access.HashKey(bobKey), Groups: []string{"guests"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func as(ctx context.Context, key string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
}

// wantDenied checks a PERMISSION_DENIED status with its ErrorInfo.
func wantDenied(t *testing.T, what string, err error) {
	t.Helper()
	st, _ := status.FromError(err)
	reason := ""
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason = info.GetReason()
		}
	}
	if st.Code() != codes.PermissionDenied || reason != rpcerr.ReasonPermissionDenied {
		t.Errorf("%s = %v, want PERMISSION_DENIED with reason %s", what, err, rpcerr.ReasonPermissionDenied)
	}
}

// TestAuthorizationEveryPath: the rules hold on the typed RPCs, Call,
// CallStream, Subscribe and Connect, lists show a caller only what it may
// use, and a denied tools/call never reaches the child.
func TestAuthorizationEveryPath(t *testing.T) {
	t.Parallel()
	bc, _ := startAuthBridge(t)
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)

	// Authentication: none, or a wrong key, is UNAUTHENTICATED with no
	// detail; health stays open.
	for name, c := range map[string]context.Context{"no key": ctx, "wrong key": as(ctx, "guess")} {
		_, err := bc.ListTools(c, &mcpbridgev1.ListToolsRequest{Server: "p"})
		if st, _ := status.FromError(err); st.Code() != codes.Unauthenticated || st.Message() != "authentication required" || len(st.Details()) > 0 {
			t.Errorf("%s: ListTools = %v, want a bare UNAUTHENTICATED", name, err)
		}
	}

	// Typed RPCs.
	if _, err := bc.CallTool(bob, &mcpbridgev1.CallToolRequest{Server: "p", Name: "pid"}); err != nil {
		t.Errorf("bob's CallTool(pid) = %v", err)
	}
	_, err := bc.CallTool(bob, &mcpbridgev1.CallToolRequest{Server: "p", Name: "secret"})
	wantDenied(t, "bob's CallTool(secret)", err)
	_, err = bc.ReadResource(bob, &mcpbridgev1.ReadResourceRequest{Server: "p", Uri: "test://private"})
	wantDenied(t, "bob's ReadResource(test://private)", err)
	if _, err := bc.ReadResource(bob, &mcpbridgev1.ReadResourceRequest{Server: "p", Uri: "test://public"}); err != nil {
		t.Errorf("bob's ReadResource(test://public) = %v", err)
	}
	_, err = bc.ListTools(bob, &mcpbridgev1.ListToolsRequest{Server: "other"})
	wantDenied(t, "bob's ListTools on another server", err)
	tools, err := bc.ListTools(bob, &mcpbridgev1.ListToolsRequest{Server: "p"})
	var names []string
	for _, tool := range tools.GetTools() {
		names = append(names, tool.GetName())
	}
	if err != nil || strings.Join(names, ",") != "count,pid" {
		t.Errorf("bob's ListTools = %v, %v; want count and pid only", names, err)
	}
	all, err := bc.ListTools(alice, &mcpbridgev1.ListToolsRequest{Server: "p"})
	if err != nil || len(all.GetTools()) < 5 {
		t.Errorf("alice's ListTools = %v, %v; want every tool", all, err)
	}
	list, err := bc.ListServers(bob, &mcpbridgev1.ListServersRequest{})
	if err != nil || len(list.GetServers()) != 1 || list.GetServers()[0].GetName() != "p" {
		t.Errorf("bob's ListServers = %v, %v; want p only", list, err)
	}

	// Call and CallStream.
	_, err = bc.Call(bob, &mcpbridgev1.CallRequest{Server: "p", Method: "tools/call", ParamsJson: `{"name":"secret"}`})
	wantDenied(t, "bob's Call(tools/call secret)", err)
	res, err := bc.Call(bob, &mcpbridgev1.CallRequest{Server: "p", Method: "resources/list", ParamsJson: `{}`})
	if err != nil || strings.Contains(res.GetResultJson(), "test://private") || !strings.Contains(res.GetResultJson(), "test://public") {
		t.Errorf("bob's Call(resources/list) = %v, %v; want test://public only", res, err)
	}
	cs, err := bc.CallStream(bob, &mcpbridgev1.CallStreamRequest{Server: "p", Method: "tools/call", ParamsJson: `{"name":"secret"}`})
	if err == nil {
		_, err = cs.Recv()
	}
	wantDenied(t, "bob's CallStream(tools/call secret)", err)

	// Subscribe.
	sub, err := bc.Subscribe(bob, &mcpbridgev1.SubscribeRequest{Server: "p", ResourceSubscriptions: []string{"test://private"}})
	if err == nil {
		_, err = sub.Recv()
	}
	wantDenied(t, "bob's Subscribe(test://private)", err)

	// Connect: the forbidden tools/call is refused in the tunnel.
	st, err := bc.Connect(bob)
	if err != nil {
		t.Fatal(err)
	}
	tun := &tunnelConn{tb: t, st: st}
	if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "p",
		MessageJson: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"secret"}`) + `}`}); err != nil {
		t.Fatal(err)
	}
	m, text := tun.response("1", nil)
	if !strings.Contains(string(m.Error), "-32602") || !strings.Contains(text, "Permission denied") {
		t.Errorf("bob's tools/call secret in a tunnel = %s, want -32602 Permission denied", text)
	}
	tun.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":` + testkit.WithModernMeta(`{}`) + `}`)
	if _, text := tun.response("2", nil); strings.Contains(text, `"secret"`) || !strings.Contains(text, `"pid"`) {
		t.Errorf("bob's tools/list in a tunnel = %s, want pid without secret", text)
	}
	st.CloseSend()

	// Nothing of bob's reached the child's secret tool.
	count, err := bc.CallTool(alice, &mcpbridgev1.CallToolRequest{Server: "p", Name: "count", Arguments: argsStruct(`{"name":"secret"}`)})
	if err != nil || count.GetContent()[0].GetText().GetText() != "0" {
		t.Errorf("the child ran secret %v times (%v); want 0", count, err)
	}
	if _, err := bc.CallTool(alice, &mcpbridgev1.CallToolRequest{Server: "p", Name: "secret"}); err != nil {
		t.Errorf("alice's CallTool(secret) = %v", err)
	}
}

// TestServerRequestsStayWithTheirPrincipal: a legacy child's elicitation,
// caused by alice's call, reaches alice's Subscribe stream and not bob's;
// bob cannot answer it even with its id; and a request that arrives while
// calls of both are in flight goes to nobody.
func TestServerRequestsStayWithTheirPrincipal(t *testing.T) {
	t.Parallel()
	sc := streamsFixtureServer(t, "", "legacy")
	bc, _ := startAuthBridgeWith(t, nil, sc) // authentication, no rules
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	subscribe := func(ctx context.Context) mcpbridgev1.BridgeService_SubscribeClient {
		st, err := bc.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{ServerRequests: true})
		if err != nil {
			t.Fatal(err)
		}
		if m, err := st.Recv(); err != nil || m.GetAcknowledged() == nil {
			t.Fatalf("Subscribe: first message %v, %v", m, err)
		}
		return st
	}
	bobCtx, stopBob := context.WithCancel(bob)
	aliceSub, bobSub := subscribe(alice), subscribe(bobCtx)
	bobGot := make(chan *mcpbridgev1.ServerRequest, 1)
	bobDone := make(chan struct{})
	go func() {
		defer close(bobDone)
		for {
			m, err := bobSub.Recv()
			if err != nil {
				return
			}
			if sr := m.GetServerRequest(); sr != nil {
				select {
				case bobGot <- sr:
				default:
				}
			}
		}
	}()
	answered := make(chan string, 1)
	go func() {
		res, err := bc.Call(alice, &mcpbridgev1.CallRequest{Method: "tools/call",
			ParamsJson: `{"name":"ask","arguments":{"method":"elicitation/create","params":{"message":"m"}}}`})
		if err != nil {
			answered <- err.Error()
			return
		}
		answered <- res.GetResultJson()
	}()
	var sr *mcpbridgev1.ServerRequest
	for sr == nil {
		m, err := aliceSub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		sr = m.GetServerRequest()
	}
	_, err := bc.RespondToServerRequest(bob, &mcpbridgev1.RespondToServerRequestRequest{Id: sr.GetId(),
		Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"decline"}`}})
	if status.Code(err) != codes.NotFound {
		t.Errorf("bob answering alice's request = %v, want NOT_FOUND", err)
	}
	if _, err := bc.RespondToServerRequest(alice, &mcpbridgev1.RespondToServerRequestRequest{Id: sr.GetId(),
		Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"x":"by alice"}}`}}); err != nil {
		t.Fatalf("alice's answer: %v", err)
	}
	if got := <-answered; !strings.Contains(got, "by alice") {
		t.Errorf("alice's call = %s, want her answer", got)
	}
	stopBob() // whatever bob's stream was sent, it has read by now
	<-bobDone
	select {
	case sr := <-bobGot:
		t.Errorf("bob's stream got alice's request %v", sr)
	default:
	}
}

// TestLimitsUnderLoad: alice floods with 8 callers for about a second
// against a limit of 20 requests a second (burst 5): what passes stays
// within the token bucket, what is refused is RESOURCE_EXHAUSTED with
// RetryInfo, and bob's calls meanwhile (within his own burst) are not
// refused. Then 2 calls in
// flight are the most alice may have.
func TestLimitsUnderLoad(t *testing.T) {
	t.Parallel()
	a, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{
		{Principal: "alice", SHA256: access.HashKey(aliceKey)}, {Principal: "bob", SHA256: access.HashKey(bobKey)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sc := policyServer(t, "p", PolicyShared)
	sc.Limits = Limits{Concurrent: 2}
	svc, err := New(Config{Servers: []ServerConfig{sc}, Logger: slog.New(slog.DiscardHandler), Auth: a,
		Limits: Limits{Rate: 20, Burst: 5}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	bc := mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, svc.NewGRPCServer()))
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	if _, err := toolPid(bob, bc, "p", "pid", ""); err != nil { // the child is up
		t.Fatal(err)
	}
	var passed, refused atomic.Int64
	var bad atomic.Value
	start := time.Now()
	deadline := start.Add(time.Second)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				_, err := toolPid(alice, bc, "p", "pid", "")
				switch {
				case err == nil:
					passed.Add(1)
				case status.Code(err) == codes.ResourceExhausted && hasRetryInfo(err):
					refused.Add(1)
				default:
					bad.Store(err.Error())
				}
			}
		})
	}
	bobOK := 0
	for range 3 { // within bob's own burst of 5 (one token spent above)
		if _, err := toolPid(bob, bc, "p", "pid", ""); err == nil {
			bobOK++
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	if w := bad.Load(); w != nil {
		t.Errorf("an unexpected failure: %v", w)
	}
	if most := 5 + int64(20*elapsed.Seconds()) + 1; passed.Load() > most || refused.Load() == 0 {
		t.Errorf("in %v alice passed %d (at most %d) and was refused %d times (want some)", elapsed, passed.Load(), most, refused.Load())
	}
	if bobOK != 3 {
		t.Errorf("bob passed %d of 3 calls during alice's flood, want 3", bobOK)
	}
	t.Logf("in %v: %d of alice's calls passed, %d were refused", elapsed.Round(time.Millisecond), passed.Load(), refused.Load())

	// On a server limited to 2 calls in flight per caller (and no rate),
	// a third of alice's is refused while 2 hold.
	svc2, err := New(Config{Servers: []ServerConfig{sc}, Logger: slog.New(slog.DiscardHandler), Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc2.Close() })
	bc = mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, svc2.NewGRPCServer()))
	holds := make(chan error, 2)
	for range 2 {
		go func() { _, err := toolPid(alice, bc, "p", "hold", `{"ms":2000}`); holds <- err }()
	}
	settle(ctx, t, func() error {
		resp, err := bc.GetServer(bob, &mcpbridgev1.GetServerRequest{Server: "p"})
		if err != nil || resp.GetChild().GetLoad() < 2 {
			return fmt.Errorf("load %d, want 2 holds in flight", resp.GetChild().GetLoad())
		}
		return nil
	})
	if _, err := toolPid(alice, bc, "p", "pid", ""); status.Code(err) != codes.ResourceExhausted || !hasRetryInfo(err) {
		t.Errorf("alice's third call in flight = %v, want RESOURCE_EXHAUSTED with RetryInfo", err)
	}
	if _, err := toolPid(bob, bc, "p", "pid", ""); err != nil {
		t.Errorf("bob's call while alice holds 2 = %v", err)
	}
	for range 2 {
		if err := <-holds; err != nil {
			t.Error(err)
		}
	}
}

func hasRetryInfo(err error) bool {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.RetryInfo); ok {
			return true
		}
	}
	return false
}

// TestAuditRecords: one JSON record per tool call, through gRPC and
// Connect, allowed or denied, with the principal and outcome and never
// the arguments.
func TestAuditRecords(t *testing.T) {
	t.Parallel()
	var buf testkit.SyncBuffer
	a, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{{Principal: "bob", SHA256: access.HashKey(bobKey)}}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared)}, Logger: slog.New(slog.DiscardHandler),
		Auth: a, Rules: access.Rules{{Principals: []string{"bob"}, Servers: []string{"p"}, Tools: []string{"env", "pid"}}},
		Audit: slog.New(slog.NewJSONHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	bc := mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, svc.NewGRPCServer()))
	ctx := testCtx(t)
	bob := metadata.AppendToOutgoingContext(as(ctx, bobKey), "x-request-id", "client-42")
	if _, err := bc.CallTool(bob, &mcpbridgev1.CallToolRequest{Server: "p", Name: "env", Arguments: argsStruct(`{"name":"A_SECRET_ARGUMENT"}`)}); err != nil {
		t.Fatal(err)
	}
	_, err = bc.CallTool(bob, &mcpbridgev1.CallToolRequest{Server: "p", Name: "secret"})
	wantDenied(t, "CallTool(secret)", err)
	st, err := bc.Connect(bob)
	if err != nil {
		t.Fatal(err)
	}
	tun := &tunnelConn{tb: t, st: st}
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"pid"}`) + `}`)
	tun.response("1", nil)
	st.CloseSend()
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		records = append(records, r)
	}
	want := []struct{ name, via, outcome string }{{"env", "grpc", "ok"}, {"secret", "grpc", "refused"}, {"pid", "connect", "ok"}}
	if len(records) != len(want) {
		t.Fatalf("audit records = %v, want %d", records, len(want))
	}
	for i, w := range want {
		r := records[i]
		if r["name"] != w.name || r["via"] != w.via || r["outcome"] != w.outcome || r["principal"] != "bob" || r["server"] != "p" ||
			r["request_id"] == "" || r["duration_ms"] == nil {
			t.Errorf("record %d = %v, want %+v for bob", i, r, w)
		}
	}
	if records[0]["client_request_id"] != "client-42" || records[1]["code"] != "PermissionDenied" {
		t.Errorf("records = %v", records)
	}
	if strings.Contains(buf.String(), "A_SECRET_ARGUMENT") {
		t.Error("an argument reached the audit log")
	}
}

// TestSessionsBelongToTheirPrincipal: with authentication, a session name
// is bound to its principal: bob naming alice's session gets a child of
// his own.
func TestSessionsBelongToTheirPrincipal(t *testing.T) {
	t.Parallel()
	bc, _ := startAuthBridgeWith(t, nil, policyServer(t, "s", PolicySession))
	ctx := testCtx(t)
	alicePid, err := toolPid(withSession(as(ctx, aliceKey), "shared-name"), bc, "s", "pid", "")
	if err != nil {
		t.Fatal(err)
	}
	bobPid, err := toolPid(withSession(as(ctx, bobKey), "shared-name"), bc, "s", "pid", "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := toolPid(withSession(as(ctx, aliceKey), "shared-name"), bc, "s", "pid", "")
	if err != nil || bobPid == alicePid || again != alicePid {
		t.Errorf("alice %d (then %d, %v), bob %d on the same session name; want bob apart and alice on hers", alicePid, again, err, bobPid)
	}
}
