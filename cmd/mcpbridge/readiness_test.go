//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

var healthListenRE = regexp.MustCompile(`health_listen=(\S+)`)

// TestServeReadinessOneBrokenServer is docs/scaling.md's "Readiness" as
// the chart probes it: a Kubernetes gRPC probe's Check of the health
// service "" on --health-listen. The config file, reloaded by
// --watch-config as a ConfigMap update does on every replica at once,
// gains a server whose command runs but exits at once (a typo in its
// arguments): the pod stays SERVING, without one NOT_SERVING on a Watch of
// "", while the healthy server answers calls, and the broken server is
// visible on its own health entry (NOT_SERVING), in the metrics
// (mcpbridge_child_state failed) and in the log (crash-looping, with its
// name). Once no server is ready, the pod is NOT_SERVING.
func TestServeReadinessOneBrokenServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	dir := t.TempDir()
	race := testkit.QuickRaceExit()
	demo := yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"})
	broken := yamlList([]string{"/bin/sh", "-c", "exit 3"}) // it exists, and it fails
	write := func(name string, servers ...[2]string) string {
		var yaml strings.Builder
		yaml.WriteString("servers:\n")
		for _, s := range servers {
			fmt.Fprintf(&yaml, "  - name: %s\n    command: %s\n    env: {GORACE: %q}\n", s[0], s[1], strings.TrimPrefix(race, "GORACE="))
		}
		return writeConfig(t, filepath.Join(dir, name), yaml.String())
	}
	link := filepath.Join(dir, "mcpbridge.yaml")
	// swap points the config's link at a new file, as the kubelet updates
	// a mounted ConfigMap.
	swap := func(file string) {
		t.Helper()
		tmp := filepath.Join(dir, "next")
		if err := os.Symlink(file, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(write("v1.yaml", [2]string{"demo", demo}), link); err != nil {
		t.Fatal(err)
	}
	b := startBridge(t, []string{race}, "--config", link, "--watch-config", "100ms",
		"--health-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	healthAddr := healthListenRE.FindStringSubmatch(b.log.WaitFor(ctx, t, "mcpbridge: serving health"))[1]
	metricsAddr := metricsListenRE.FindStringSubmatch(b.log.WaitFor(ctx, t, `msg="mcpbridge: serving metrics"`))[1]
	hc := healthpb.NewHealthClient(dial(t, healthAddr))
	probe := func(service string) healthpb.HealthCheckResponse_ServingStatus {
		t.Helper()
		res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatalf("Check(%q) on the health listener: %v", service, err)
		}
		return res.GetStatus()
	}
	// Every status "" takes from here on, as a Watch sees it.
	w := waitServing(ctx, t, hc)
	b.log.WaitFor(ctx, t, "mcpbridge: ready: at least one server serves", "ready=[demo]")
	seen := make(chan healthpb.HealthCheckResponse_ServingStatus, 64)
	go func() {
		defer close(seen)
		for {
			res, err := w.Recv()
			if err != nil {
				return
			}
			seen <- res.GetStatus()
		}
	}()
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	call := func() error {
		args, _ := structpb.NewStruct(map[string]any{"message": "still here"})
		_, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "demo", Name: "echo", Arguments: args})
		return err
	}
	if err := call(); err != nil {
		t.Fatalf("CallTool(demo) before the reload: %v", err)
	}

	swap(write("v2.yaml", [2]string{"demo", demo}, [2]string{"broken", broken}))
	b.log.WaitFor(ctx, t, "mcpbridge: configuration reloaded", "added=[broken]")
	// Past the crash-loop limit (5 restarts, 3 s of backoff): the server
	// is FAILED, and has been NOT_SERVING since the reload.
	b.log.WaitFor(ctx, t, "mcpbridge: server is crash-looping", "server=broken")
	if b.log.Has("mcpbridge: not ready") {
		t.Error("the bridge logged that it is not ready, with its demo server ready")
	}
	if err := call(); err != nil {
		t.Errorf("CallTool(demo) with a broken server beside it: %v", err)
	}
	for service, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{
		"":                               healthpb.HealthCheckResponse_SERVING,
		bridge.HealthService:             healthpb.HealthCheckResponse_SERVING,
		bridge.HealthService + "/demo":   healthpb.HealthCheckResponse_SERVING,
		bridge.HealthService + "/broken": healthpb.HealthCheckResponse_NOT_SERVING,
		bridge.LivenessService:           healthpb.HealthCheckResponse_SERVING,
	} {
		if got := probe(service); got != want {
			t.Errorf("health %q with one broken server = %v, want %v", service, got, want)
		}
	}
	func() {
		for {
			select {
			case st := <-seen:
				if st != healthpb.HealthCheckResponse_SERVING {
					t.Errorf(`a Watch of "" saw %v after the reload that added a broken server: the pod would have left the Service`, st)
				}
			default:
				return
			}
		}
	}()
	failed := false
	for _, s := range scrape(t, "http://"+metricsAddr+"/metrics")["mcpbridge_child_state"] {
		if s.labels["server"] == "broken" && s.labels["state"] == "failed" && s.value == 1 {
			failed = true
		}
	}
	if !failed {
		t.Error(`no mcpbridge_child_state{server="broken",state="failed"} 1 in the scrape`)
	}

	// With no server ready, the pod has nothing to serve: NOT_SERVING.
	swap(write("v3.yaml", [2]string{"demo", broken}, [2]string{"broken", broken}))
	b.log.WaitFor(ctx, t, "mcpbridge: configuration reloaded", "changed=[demo]")
	b.log.WaitFor(ctx, t, "mcpbridge: not ready: no server serves", `not_ready="[broken demo]"`)
	for {
		select {
		case st, ok := <-seen:
			if !ok {
				t.Fatal(`the Watch of "" ended before it saw NOT_SERVING`)
			}
			if st != healthpb.HealthCheckResponse_NOT_SERVING {
				continue
			}
			if got := probe(""); got != healthpb.HealthCheckResponse_NOT_SERVING {
				t.Errorf(`health "" with no server ready = %v, want NOT_SERVING`, got)
			}
			return
		case <-ctx.Done():
			t.Fatal(`health "" stayed SERVING with no server ready`)
		}
	}
}
