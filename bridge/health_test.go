package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
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
