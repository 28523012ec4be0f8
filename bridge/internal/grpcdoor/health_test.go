package grpcdoor

import (
	"context"
	"net"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
)

// serveHealth serves Health over entries and core on loopback.
func serveHealth(t *testing.T, entries *health.Server, core Core) healthpb.HealthClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, NewHealth(entries, core))
	go gs.Serve(lis)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); gs.Stop() })
	return healthpb.NewHealthClient(conn)
}

// With authentication on, the overall entries answer everyone, and a
// server's only a caller with valid credentials whose rules let it use
// the server: to anyone else it is an unknown service, in Check, Watch and
// List alike. With authentication off, every entry answers everyone.
func TestHealthShowsAServerOnlyToItsCallers(t *testing.T) {
	entries := health.NewServer()
	demo, secret := serverEntry+"demo", serverEntry+"secret"
	for _, e := range []string{"", demo, secret} {
		entries.SetServingStatus(e, healthpb.HealthCheckResponse_SERVING)
	}
	auth, err := access.New(t.Context(), access.Config{APIKeys: []access.APIKey{{Principal: "alice", SHA256: access.HashKey("alice-key")}}})
	if err != nil {
		t.Fatal(err)
	}
	core := newCore()
	core.door = door.New(auth, nil, door.Limits{})
	core.hidden["secret"] = true
	hc := serveHealth(t, entries, core)
	alice := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer alice-key")
	forged := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer not-a-key")

	for _, c := range []struct {
		who     string
		ctx     context.Context
		service string
		want    codes.Code
	}{
		{"nobody", t.Context(), "", codes.OK},
		{"nobody", t.Context(), demo, codes.NotFound},
		{"a forged key", forged, demo, codes.NotFound},
		{"alice", alice, demo, codes.OK},
		{"alice", alice, secret, codes.NotFound}, // her rules do not let her use it
	} {
		_, err := hc.Check(c.ctx, &healthpb.HealthCheckRequest{Service: c.service})
		if got := status.Code(err); got != c.want {
			t.Errorf("%s's Check of %q = %v, want %v", c.who, c.service, got, c.want)
		}
	}

	list := func(ctx context.Context) []string {
		res, err := hc.List(ctx, &healthpb.HealthListRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for s := range res.GetStatuses() {
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	if got := list(t.Context()); !slices.Equal(got, []string{""}) {
		t.Errorf("nobody's List = %q, want the overall entry alone", got)
	}
	if got := list(alice); !slices.Equal(got, []string{"", demo}) {
		t.Errorf("alice's List = %q, want the overall entry and demo's", got)
	}

	watch := func(ctx context.Context, service string) healthpb.HealthCheckResponse_ServingStatus {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		w, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.Recv()
		if err != nil {
			t.Fatalf("Watch %q: %v", service, err)
		}
		return res.GetStatus()
	}
	if got := watch(t.Context(), demo); got != healthpb.HealthCheckResponse_SERVICE_UNKNOWN {
		t.Errorf("nobody's Watch of demo = %v, want SERVICE_UNKNOWN", got)
	}
	if got := watch(alice, demo); got != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("alice's Watch of demo = %v, want SERVING", got)
	}

	open := newCore()
	open.hidden["secret"] = true // rules decide only who is authenticated
	if _, err := serveHealth(t, entries, open).Check(t.Context(), &healthpb.HealthCheckRequest{Service: secret}); err != nil {
		t.Errorf("Check of a server's entry with authentication off: %v", err)
	}
}
