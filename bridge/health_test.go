package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// TestHealthPerServerNeedsCredentials: with authentication on, the
// overall health is open to every caller, but a server's entry answers
// only a caller the rules let use that server. To anyone else it is an
// unknown service: Check is NOT_FOUND, Watch SERVICE_UNKNOWN, and List
// leaves it out, so that the answer does not confirm the name exists.
func TestHealthPerServerNeedsCredentials(t *testing.T) {
	t.Parallel()
	a, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{
		{Principal: "alice", SHA256: access.HashKey(aliceKey)},
		{Principal: "bob", SHA256: access.HashKey(bobKey), Groups: []string{"guests"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(t, Config{
		Servers: []ServerConfig{policyServer(t, "p", PolicyShared), policyServer(t, "other", PolicyShared)},
		Logger:  slog.New(slog.DiscardHandler), Auth: a,
		Rules: access.Rules{
			{Principals: []string{"alice"}, Servers: []string{"*"}},
			{Groups: []string{"guests"}, Servers: []string{"p"}},
		},
	})
	hc := healthpb.NewHealthClient(loopbackBridge(t, svc))
	ctx := testCtx(t)
	alice, bob, nobody, wrong := as(ctx, aliceKey), as(ctx, bobKey), ctx, as(ctx, "guess")
	check := func(ctx context.Context, service string) (healthpb.HealthCheckResponse_ServingStatus, codes.Code) {
		res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		return res.GetStatus(), status.Code(err)
	}
	p, other := HealthService+"/p", HealthService+"/other"
	settle(ctx, t, func() error { // both children ready (the overall entry is SERVING with one)
		for _, service := range []string{p, other} {
			if st, code := check(alice, service); st != healthpb.HealthCheckResponse_SERVING {
				return fmt.Errorf("alice's health of %q = %v, %v; want SERVING", service, st, code)
			}
		}
		return nil
	})

	for _, c := range []struct {
		who     string
		ctx     context.Context
		service string
		want    codes.Code // OK: SERVING
	}{
		{"nobody", nobody, "", codes.OK},
		{"nobody", nobody, HealthService, codes.OK},
		{"nobody", nobody, p, codes.NotFound},
		{"nobody", nobody, other, codes.NotFound},
		{"nobody", nobody, HealthService + "/nosuch", codes.NotFound},
		{"a wrong key", wrong, HealthService, codes.OK},
		{"a wrong key", wrong, p, codes.NotFound},
		{"bob", bob, p, codes.OK},
		{"bob", bob, other, codes.NotFound},
		{"alice", alice, p, codes.OK},
		{"alice", alice, other, codes.OK},
	} {
		st, code := check(c.ctx, c.service)
		if code != c.want || code == codes.OK && st != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("%s's Check(%q) = %v, %v; want %v (SERVING when OK)", c.who, c.service, st, code, c.want)
		}
	}

	// Watch: an entry the caller may not see is SERVICE_UNKNOWN, as a
	// service that does not exist.
	for _, c := range []struct {
		who  string
		ctx  context.Context
		want healthpb.HealthCheckResponse_ServingStatus
	}{
		{"nobody", nobody, healthpb.HealthCheckResponse_SERVICE_UNKNOWN},
		{"bob", bob, healthpb.HealthCheckResponse_SERVICE_UNKNOWN},
		{"alice", alice, healthpb.HealthCheckResponse_SERVING},
	} {
		wctx, cancel := context.WithCancel(c.ctx)
		w, err := hc.Watch(wctx, &healthpb.HealthCheckRequest{Service: other})
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.Recv()
		if err != nil || res.GetStatus() != c.want {
			t.Errorf("%s's Watch(%q) = %v, %v; want %v", c.who, other, res.GetStatus(), err, c.want)
		}
		cancel()
	}

	// List shows a caller the overall entries and its servers'.
	for _, c := range []struct {
		who  string
		ctx  context.Context
		want []string
	}{
		{"nobody", nobody, []string{"", LivenessService, HealthService}},
		{"bob", bob, []string{"", LivenessService, HealthService, p}},
		{"alice", alice, []string{"", LivenessService, HealthService, other, p}},
	} {
		res, err := hc.List(c.ctx, &healthpb.HealthListRequest{})
		var got []string
		for service := range res.GetStatuses() {
			got = append(got, service)
		}
		slices.Sort(got)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s's List = %q, %v; want %q", c.who, got, err, c.want)
		}
	}
}

// TestReloadOfABusyServerKeepsItsHealth: a reload that changes a server
// while a call holds its old child replaces it at once, and the old
// server drains. Its children stopping afterwards must not report under
// the server's name, which is the new server's now: its entry, and the
// overall one with it, stay SERVING.
func TestReloadOfABusyServerKeepsItsHealth(t *testing.T) {
	t.Parallel()
	p := policyServer(t, "p", PolicyShared)
	b := startStreamsBridge(t, p)
	ctx := testCtx(t)
	conn, err := grpc.NewClient(b.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	serving := func() error {
		for _, service := range []string{"", HealthService + "/p"} {
			res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
			if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				return fmt.Errorf("health %q = %v, %v; want SERVING", service, res.GetStatus(), err)
			}
		}
		return nil
	}
	settle(ctx, t, serving)
	holdCtx, release := context.WithCancel(ctx)
	defer release()
	held := make(chan error, 1)
	go func() {
		_, err := b.client.CallTool(holdCtx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "hold", Arguments: argsStruct(`{"ms":60000}`)})
		held <- err
	}()
	settle(ctx, t, func() error { // until the old child runs the hold
		n, err := b.client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "count", Arguments: argsStruct(`{"name":"hold"}`)})
		if err != nil {
			return err
		}
		if got := n.GetContent()[0].GetText().GetText(); got != "1" {
			return fmt.Errorf("the child has run %s holds, want 1", got)
		}
		return nil
	})

	changed := p
	changed.Env = append(envVars("RELOAD_MARK=2"), p.Env...)
	if err := b.svc.Reload(Config{Servers: []ServerConfig{changed}, Logger: b.svc.cfg.Logger}); err != nil {
		t.Fatal(err)
	}
	res, err := b.client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "env", Arguments: argsStruct(`{"name":"RELOAD_MARK"}`)})
	if err != nil || res.GetContent()[0].GetText().GetText() != "2" {
		t.Fatalf("p after the reload = %v, %v; want the new child", res, err)
	}
	settle(ctx, t, serving) // the new child is ready
	release()               // the old server drains, and its children stop
	if err := <-held; status.Code(err) != codes.Canceled {
		t.Errorf("the held call = %v, want CANCELED", err)
	}
	b.svc.retiring.Wait()
	if err := serving(); err != nil {
		t.Errorf("after the replaced server's children stopped: %v", err)
	}
}
