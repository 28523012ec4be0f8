//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	_ "google.golang.org/grpc/balancer/ringhash" // ring_hash_experimental
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health" // client-side health checking
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// These tests run several `mcpbridge serve` replicas with one config, as a
// Deployment does, behind a grpc-go client that balances with ring_hash on
// the mcp-session metadata (gRFC A76's requestHashHeader), the proxyless
// shape of docs/scaling.md. The replicas are real processes on loopback;
// the client finds them through a manual resolver, as it would through a
// headless Service's DNS.

// ringConfig is the client's service config: ring_hash on mcp-session, and
// client-side health checking, so that a replica that turns NOT_SERVING
// (draining) leaves the ring before it stops. ringConfigUnchecked is the
// same without the health checks: such a client leaves a replica when its
// connection goes.
const (
	ringConfig = `{
  "loadBalancingConfig": [{"ring_hash_experimental": {"requestHashHeader": "mcp-session"}}],
  "healthCheckConfig": {"serviceName": ""}
}`
	ringConfigUnchecked = `{"loadBalancingConfig": [{"ring_hash_experimental": {"requestHashHeader": "mcp-session"}}]}`
)

// replicaSet is three bridges with one config.
type replicaSet struct {
	bridges []*bridgeProcess
	addrs   []string
}

// startReplicas starts n replicas of a bridge fronting the demo twice: as
// "sessions", a session server whose children know their session
// (DEMO_SESSION), and as "legacy", a shared 2025-11-25 child that can ask
// its caller (elicitation).
func startReplicas(t *testing.T, n int, args ...string) *replicaSet {
	t.Helper()
	race := testkit.QuickRaceExit()
	config := writeConfig(t, "", fmt.Sprintf(`servers:
  - name: sessions
    command: %[1]s
    env: {GORACE: %[3]q}
    policy: session
    session: {max: 100, idle_timeout: 10m, env_from_metadata: {DEMO_SESSION: mcp-session}}
  - name: legacy
    command: %[2]s
    env: {GORACE: %[3]q}
`, yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"}),
		yamlList([]string{mcpbridgeBin, "demo", "-tick", "0", "-versions", "2025-11-25"}),
		strings.TrimPrefix(race, "GORACE=")))
	rs := &replicaSet{}
	for range n {
		b := startBridge(t, []string{race}, append([]string{"--config", config}, args...)...)
		rs.bridges = append(rs.bridges, b)
		rs.addrs = append(rs.addrs, b.addr)
	}
	// Ready, as a readiness probe would wait: until then a client that
	// checks health would route around the replica.
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	for _, b := range rs.bridges {
		waitServing(ctx, t, healthpb.NewHealthClient(b.conn(t)))
	}
	return rs
}

// waitServing watches hc's overall status until it is SERVING, and
// returns the watch, still open.
func waitServing(ctx context.Context, t *testing.T, hc healthpb.HealthClient) healthpb.Health_WatchClient {
	t.Helper()
	w, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		res, err := w.Recv()
		if err != nil {
			t.Fatalf("waiting for SERVING: %v", err)
		}
		if res.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return w
		}
	}
}

// client is a channel to every replica, balanced with ring_hash on
// mcp-session. Each call makes a channel of its own: its own connections.
func (rs *replicaSet) client(t *testing.T) mcpbridgev1.BridgeServiceClient {
	t.Helper()
	return rs.clientWith(t, ringConfig)
}

// clientWith is client with the service config sc.
func (rs *replicaSet) clientWith(t *testing.T, sc string) mcpbridgev1.BridgeServiceClient {
	t.Helper()
	r := manual.NewBuilderWithScheme("replicas")
	var eps []resolver.Endpoint
	for _, a := range rs.addrs {
		eps = append(eps, resolver.Endpoint{Addresses: []resolver.Address{{Addr: a}}})
	}
	r.InitialState(resolver.State{Endpoints: eps})
	conn, err := grpc.NewClient(r.Scheme()+":///mcpbridge", grpc.WithResolvers(r),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultServiceConfig(sc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return mcpbridgev1.NewBridgeServiceClient(conn)
}

// replicaOf returns the index of the replica whose descendant pid is (the
// child runs under a reaper, whose parent is the bridge), or -1.
func (rs *replicaSet) replicaOf(t *testing.T, pid int) int {
	t.Helper()
	for p, hops := pid, 0; p > 1 && hops < 4; hops++ {
		p = parentOf(t, p)
		for i, b := range rs.bridges {
			if b.cmd.Process.Pid == p {
				return i
			}
		}
	}
	return -1
}

// whoami is the demo's whoami result: the child that answered.
type whoamiResult struct {
	pid     int
	session string
}

// callWhoami calls the demo's whoami on server with the mcp-session key.
func callWhoami(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, server, key string, opts ...grpc.CallOption) (whoamiResult, error) {
	ctx = metadata.AppendToOutgoingContext(ctx, "mcp-session", key)
	res, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "whoami"}, opts...)
	if err != nil {
		return whoamiResult{}, err
	}
	f := res.GetStructuredContent().GetStructValue().GetFields()
	return whoamiResult{pid: int(f["pid"].GetNumberValue()), session: f["session"].GetStringValue()}, nil
}

// sessionKey is the mcp-session of session i.
func sessionKey(i int) string { return fmt.Sprintf("user-%02d", i) }

// 50 sessions × 20 calls through a ring_hash channel over three replicas:
// every call of a session reaches that session's one child, the sessions
// spread over the replicas, and each child is its own session's.
func TestReplicasSessionAffinity(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	rs := startReplicas(t, 3)
	bc := rs.client(t)
	pids := placeSessions(ctx, t, rs, bc, 50, 20)
	perReplica := make([]int, len(rs.bridges))
	seen := map[int]string{}
	for key, pid := range pids {
		if other, dup := seen[pid]; dup {
			t.Errorf("sessions %s and %s share child %d", key, other, pid)
		}
		seen[pid] = key
		if r := rs.replicaOf(t, pid); r >= 0 {
			perReplica[r]++
		} else {
			t.Errorf("session %s's child %d is no replica's", key, pid)
		}
	}
	t.Logf("sessions per replica: %v", perReplica)
	for i, n := range perReplica {
		if n == 0 {
			t.Errorf("replica %d got no session of 50: %v", i, perReplica)
		}
	}
}

// placeSessions makes n sessions × calls whoami calls, concurrently, and
// returns each session's child pid; every call of a session must reach the
// same child, which must say it is that session's.
func placeSessions(ctx context.Context, t *testing.T, rs *replicaSet, bc mcpbridgev1.BridgeServiceClient, n, calls int) map[string]int {
	t.Helper()
	var mu sync.Mutex
	pids := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		key := sessionKey(i)
		wg.Go(func() {
			first := 0
			for c := range calls {
				who, err := callWhoami(ctx, bc, "sessions", key)
				switch {
				case err != nil:
					t.Errorf("session %s, call %d: %v", key, c, err)
					return
				case who.session != key:
					t.Errorf("session %s, call %d: answered by session %q's child", key, c, who.session)
					return
				case first == 0:
					first = who.pid
				case who.pid != first:
					t.Errorf("session %s, call %d: child %d, but its first call reached %d", key, c, who.pid, first)
					return
				}
			}
			mu.Lock()
			pids[key] = first
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return pids
}

// A legacy child's elicitation, asked during a CallToolStream, reaches the
// replica that asked when the answer carries the request's routing_key as
// mcp-session: through the same channel and through another channel with
// connections of its own. Sent straight to another replica, the answer is
// NOT_FOUND with a message that says where the fault lies.
func TestReplicasServerRequestRouting(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	rs := startReplicas(t, 3)
	bc := rs.client(t)
	other := rs.client(t) // another channel: other connections
	for i, answerer := range []mcpbridgev1.BridgeServiceClient{bc, other} {
		key := fmt.Sprintf("asker-%d", i)
		who, err := callWhoami(ctx, bc, "legacy", key)
		if err != nil {
			t.Fatal(err)
		}
		owner := rs.replicaOf(t, who.pid)
		if owner < 0 {
			t.Fatalf("the legacy child %d is no replica's", who.pid)
		}
		args, _ := structpb.NewStruct(map[string]any{"question": "Your name?"})
		s, err := bc.CallToolStream(metadata.AppendToOutgoingContext(ctx, "mcp-session", key),
			&mcpbridgev1.CallToolStreamRequest{Server: "legacy", Name: "ask", Arguments: args, ServerRequests: true})
		if err != nil {
			t.Fatal(err)
		}
		answered := false
		for {
			msg, err := s.Recv()
			if err != nil {
				t.Fatalf("CallToolStream(ask): %v before the result", err)
			}
			if sr := msg.GetServerRequest(); sr != nil {
				if sr.GetRoutingKey() != key {
					t.Errorf("routing_key = %q, want the stream's mcp-session %q", sr.GetRoutingKey(), key)
				}
				answer := &mcpbridgev1.RespondToServerRequestRequest{Server: "legacy", Id: sr.GetId(),
					Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"answer":"Ada"}}`}}
				// Misrouted first: straight to each replica that did not ask.
				for r, b := range rs.bridges {
					if r == owner {
						continue
					}
					_, err := mcpbridgev1.NewBridgeServiceClient(b.conn(t)).RespondToServerRequest(ctx, answer)
					if st := status.Convert(err); st.Code() != codes.NotFound || !strings.Contains(st.Message(), "another bridge replica") {
						t.Errorf("answer sent to replica %d, which did not ask = %v; want NOT_FOUND naming another replica", r, err)
					}
				}
				if _, err := answerer.RespondToServerRequest(metadata.AppendToOutgoingContext(ctx, "mcp-session", sr.GetRoutingKey()), answer); err != nil {
					t.Fatalf("RespondToServerRequest routed by routing_key: %v", err)
				}
				answered = true
				continue
			}
			if res := msg.GetResult(); res != nil {
				if !answered || len(res.GetContent()) == 0 || res.GetContent()[0].GetText().GetText() != "The user answered: Ada" {
					t.Errorf("ask = %v, want the user's answer", res)
				}
				break
			}
		}
	}
}

// One replica SIGTERMed under load: its Subscribe stream ends at once with
// UNAVAILABLE and RetryInfo, a call that outlives its shutdown timeout
// ends with UNAVAILABLE and RetryInfo, its sessions go on on the other
// replicas (new children there) without a failed call (the demo is
// stateless) while no call is ever answered by another session's child, the other replicas' sessions keep their children, and
// the replica exits 0 with its children gone. Then one replica SIGKILLed:
// nothing of it is left running, and its sessions start again on the last
// replica at their next call.
//
// With client-side health checks the victim's sessions leave it as it
// turns NOT_SERVING, in the drain delay; without, when its connections
// close after the delay.
func TestReplicasDrainAndCrash(t *testing.T) {
	for _, tc := range []struct{ name, config string }{{"health-checked", ringConfig}, {"unchecked", ringConfigUnchecked}} {
		t.Run(tc.name, func(t *testing.T) { testDrainAndCrash(t, tc.config) })
	}
}

func testDrainAndCrash(t *testing.T, config string) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
	defer cancel()
	rs := startReplicas(t, 3, "--drain-delay", "1s", "--shutdown-timeout", "2s")
	bc := rs.clientWith(t, config)
	pids := placeSessions(ctx, t, rs, bc, 30, 2)
	owner := map[string]int{}
	byReplica := make([][]string, len(rs.bridges))
	for key, pid := range pids {
		r := rs.replicaOf(t, pid)
		if r < 0 {
			t.Fatalf("session %s's child %d is no replica's", key, pid)
		}
		owner[key] = r
		byReplica[r] = append(byReplica[r], key)
	}
	// The victim is a replica with sessions; so is the one killed later.
	order := []int{0, 1, 2}
	slices.SortFunc(order, func(a, b int) int { return len(byReplica[b]) - len(byReplica[a]) })
	victim, killed, last := order[0], order[1], order[2]
	if len(byReplica[victim]) == 0 || len(byReplica[killed]) == 0 {
		t.Fatalf("sessions per replica %v: want two replicas with sessions", byReplica)
	}
	victimKey := byReplica[victim][0]
	victimChildren := childrenOf(t, pids, byReplica[victim])
	killedChildren := childrenOf(t, pids, byReplica[killed])

	// On the victim: a Subscribe stream and a call longer than the drain.
	sub, err := bc.Subscribe(metadata.AppendToOutgoingContext(ctx, "mcp-session", victimKey),
		&mcpbridgev1.SubscribeRequest{Server: "sessions", ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := sub.Recv(); err != nil || ack.GetAcknowledged() == nil {
		t.Fatalf("Subscribe = %v, %v; want its acknowledgement", ack, err)
	}
	args, _ := structpb.NewStruct(map[string]any{"seconds": 30, "steps": 30})
	longStream, err := bc.CallToolStream(metadata.AppendToOutgoingContext(ctx, "mcp-session", victimKey),
		&mcpbridgev1.CallToolStreamRequest{Server: "sessions", Name: "progress", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := longStream.Recv(); err != nil || msg.GetProgress() == nil {
		t.Fatalf("the long call's first message = %v, %v; want progress", msg, err)
	}
	long := make(chan error, 1)
	go func() {
		for {
			if _, err := longStream.Recv(); err != nil {
				long <- err
				return
			}
		}
	}()
	// The load: every session calls on, checking who answers.
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	var okCalls, unavailable atomic.Int64
	moved := make(chan string, len(pids))
	const loadStarted = 100 // calls answered before the SIGTERM
	started := make(chan struct{})
	for key := range pids {
		load.Go(func() {
			first := true
			for {
				select {
				case <-stopLoad:
					return
				default:
				}
				who, err := callWhoami(ctx, bc, "sessions", key)
				switch {
				case status.Code(err) == codes.Unavailable:
					unavailable.Add(1)
					time.Sleep(50 * time.Millisecond)
					continue
				case err != nil:
					t.Errorf("session %s: %v", key, err)
					return
				case who.session != key:
					t.Errorf("session %s answered by session %q's child", key, who.session)
					return
				}
				if okCalls.Add(1) == loadStarted {
					close(started)
				}
				if owner[key] != victim && who.pid != pids[key] {
					t.Errorf("session %s of replica %d, untouched by the drain, moved from child %d to %d", key, owner[key], pids[key], who.pid)
					return
				}
				if owner[key] == victim && who.pid != pids[key] && first {
					first = false
					moved <- key
				}
			}
		})
	}
	select { // the load under way first
	case <-started:
	case <-ctx.Done():
		t.Fatal("the load did not start")
	}
	sent := time.Now()
	if err := rs.bridges[victim].cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, err = sub.Recv()
	if st := status.Convert(err); st.Code() != codes.Unavailable || !hasRetryInfo(st) {
		t.Errorf("the victim's Subscribe stream at SIGTERM = %v, want UNAVAILABLE with RetryInfo", err)
	}
	if waited := time.Since(sent); waited > 1*time.Second {
		t.Errorf("the Subscribe stream ended %v after SIGTERM, want at once (before the 1s drain delay)", waited)
	}
	if err := <-long; status.Code(err) != codes.Unavailable || !hasRetryInfo(status.Convert(err)) {
		t.Errorf("the call in flight past the shutdown timeout = %v, want UNAVAILABLE with RetryInfo", err)
	}
	for range byReplica[victim] {
		select {
		case <-moved:
		case <-ctx.Done():
			t.Fatalf("the victim's sessions did not all go on elsewhere")
		}
	}
	if code := rs.bridges[victim].wait(t); code != 0 {
		t.Errorf("the SIGTERMed replica exited %d, want 0", code)
	}
	for _, fd := range victimChildren {
		if !testkit.Exited(t, fd, 10*time.Second) {
			t.Errorf("a child outlived the SIGTERMed replica")
		}
	}
	close(stopLoad)
	load.Wait()
	t.Logf("load: %d calls answered by their session, %d UNAVAILABLE", okCalls.Load(), unavailable.Load())
	// The demo keeps no state between calls (a 2026-07-28 server), so its
	// callers must not notice the drain at all: calls in flight finish,
	// and those the replica did not start are retried by gRPC elsewhere.
	if n := unavailable.Load(); n != 0 {
		t.Errorf("%d calls of the load failed UNAVAILABLE during the drain; want none", n)
	}

	// SIGKILL: the kernel and the reapers end its children, and its
	// sessions start again on the last replica.
	if err := rs.bridges[killed].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rs.bridges[killed].wait(t)
	for _, fd := range killedChildren {
		if !testkit.Exited(t, fd, 10*time.Second) {
			t.Errorf("a child outlived the SIGKILLed replica")
		}
	}
	for _, key := range byReplica[killed] {
		// Until the channel notices the dead replica, the call waits (ctx
		// bounds it) instead of failing.
		who, err := callWhoami(ctx, bc, "sessions", key, grpc.WaitForReady(true))
		switch {
		case err != nil:
			t.Errorf("session %s after its replica was killed: %v", key, err)
		case who.session != key || who.pid == pids[key] || rs.replicaOf(t, who.pid) != last:
			t.Errorf("session %s after its replica was killed: answered by %+v of replica %d, want a new child of replica %d", key, who, rs.replicaOf(t, who.pid), last)
		}
	}
}

// childrenOf returns pidfds of the children of sessions keys (one
// replica's, from byReplica).
func childrenOf(t *testing.T, pids map[string]int, keys []string) []int {
	t.Helper()
	var fds []int
	for _, key := range keys {
		fds = append(fds, testkit.Pidfd(t, pids[key]))
	}
	if len(fds) == 0 {
		t.Fatal("replica has no session children")
	}
	return fds
}

// --watch-config reloads the config file when it changes the way a
// Kubernetes ConfigMap does: the file's path is a symbolic link, and an
// update points it at a new file. No signal is sent.
func TestServeWatchConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	dir := t.TempDir()
	// The bridge passes its environment to no child of the file: GORACE
	// goes by the file's env.
	race := testkit.QuickRaceExit()
	write := func(name string, servers ...string) string {
		var yaml strings.Builder
		yaml.WriteString("servers:\n")
		for _, s := range servers {
			fmt.Fprintf(&yaml, "  - name: %s\n    command: %s\n    env: {GORACE: %q}\n", s,
				yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"}), strings.TrimPrefix(race, "GORACE="))
		}
		return writeConfig(t, filepath.Join(dir, name), yaml.String())
	}
	link := filepath.Join(dir, "mcpbridge.yaml")
	if err := os.Symlink(write("v1.yaml", "a"), link); err != nil {
		t.Fatal(err)
	}
	b := startBridge(t, []string{race}, "--config", link, "--watch-config", "100ms")
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	names := func() []string {
		res, err := bc.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, s := range res.GetServers() {
			n = append(n, s.GetName())
		}
		return n
	}
	if got := names(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("servers at start = %q, want [a]", got)
	}
	// The swap: a new file, and the link renamed over the old one.
	tmp := filepath.Join(dir, "next")
	if err := os.Symlink(write("v2.yaml", "a", "b"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	b.log.WaitFor(ctx, t, "mcpbridge: configuration reloaded", "added=[b]")
	if got := names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("servers after the update = %q, want [a b]", got)
	}
	// A file that does not load changes nothing, and is said so.
	if err := os.WriteFile(filepath.Join(dir, "v2.yaml"), []byte("servers: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.log.WaitFor(ctx, t, "mcpbridge: reload refused")
	if got := names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("servers after a bad update = %q, want [a b]", got)
	}
}

// --health-listen serves grpc.health.v1 alone in plaintext, beside a TLS
// listener (Kubernetes' gRPC probes cannot speak TLS): the overall status
// turns NOT_SERVING at SIGTERM while "liveness" stays SERVING through the
// drain delay; the BridgeService is not there.
func TestServeHealthListen(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	testkit.NewCA(t, "test CA").Server(t, "127.0.0.1").Write(t, certFile, keyFile)
	b := startBridge(t, []string{testkit.QuickRaceExit()}, "--tls-cert", certFile, "--tls-key", keyFile,
		"--health-listen", "127.0.0.1:0", "--drain-delay", "3s", "--env", "GORACE", "--", mcpbridgeBin, "demo", "-tick", "0")
	addr := regexp.MustCompile(`health_listen=(\S+)`).FindStringSubmatch(b.log.WaitFor(ctx, t, "mcpbridge: serving health"))[1]
	conn := dial(t, addr)
	hc := healthpb.NewHealthClient(conn)
	check := func(service string) healthpb.HealthCheckResponse_ServingStatus {
		res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatalf("Check(%q) on the health listener: %v", service, err)
		}
		return res.GetStatus()
	}
	w := waitServing(ctx, t, hc)
	if st := check(bridge.LivenessService); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness = %v, want SERVING", st)
	}
	if _, err := mcpbridgev1.NewBridgeServiceClient(conn).ListServers(ctx, &mcpbridgev1.ListServersRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("ListServers on the health listener = %v, want UNIMPLEMENTED", err)
	}
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if res, err := w.Recv(); err != nil || res.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("the overall status at SIGTERM = %v, %v; want NOT_SERVING", res.GetStatus(), err)
	}
	if st := check(bridge.LivenessService); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness while draining = %v, want SERVING", st)
	}
	if code := b.wait(t); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}
