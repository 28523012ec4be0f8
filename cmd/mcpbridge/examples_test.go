package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The example clients in other languages (examples/) run end to end
// against `mcpbridge serve --config examples/mcpbridge.yaml`, as their
// READMEs tell a user to run them. Each prints "ok <step>: ..." for every
// step it has checked, "FAIL <step>: ..." for one that failed, and exits
// non-zero when any failed. The test requires a step for every RPC of
// BridgeService (read from the service's descriptor, so a new RPC fails
// here until both examples call it) and for each behaviour the examples
// exist to show.

// exampleSteps are the steps beyond the RPCs that every example shows.
var exampleSteps = []string{
	"error-details",       // JsonRpcError and ErrorInfo decoded from an error
	"bad-request",         // google.rpc.BadRequest, the field spelled the language's way
	"retry-info",          // RESOURCE_EXHAUSTED with RetryInfo from the limited server
	"deadline",            // DEADLINE_EXCEEDED with JsonRpcError -32001
	"subscribe-cancelled", // a Subscribe stream cancelled by the client
	"server-request",      // a server request answered with RespondToServerRequest
}

// exampleBridge starts the bridge on examples/mcpbridge.yaml, with the
// binary under test in place of bin/mcpbridge.
func exampleBridge(t *testing.T) *bridgeProcess {
	t.Helper()
	root := testkit.ModuleRoot(t)
	cfg, err := os.ReadFile(filepath.Join(root, "examples", "mcpbridge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "[bin/mcpbridge, demo") {
		t.Fatal("examples/mcpbridge.yaml no longer runs bin/mcpbridge demo; update exampleBridge")
	}
	path := filepath.Join(t.TempDir(), "mcpbridge.yaml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(cfg), "[bin/mcpbridge, demo", "["+mcpbridgeBin+", demo")), 0o600); err != nil {
		t.Fatal(err)
	}
	return startBridge(t, nil, "--config", path)
}

// runExample runs an example's command against a fresh bridge and checks
// that it passed every step.
func runExample(t *testing.T, dir string, argv ...string) {
	t.Helper()
	b := exampleBridge(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPBRIDGE_ADDR="+b.addr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	passed := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if step, _, ok := strings.Cut(strings.TrimPrefix(l, "ok "), ":"); ok && strings.HasPrefix(l, "ok ") {
			passed[step] = true
		}
	}
	want := append([]string(nil), exampleSteps...)
	methods := mcpbridgev1.File_mcpbridge_v1_bridge_proto.Services().ByName("BridgeService").Methods()
	for i := range methods.Len() {
		want = append(want, string(methods.Get(i).Name()))
	}
	for _, step := range want {
		if !passed[step] {
			t.Errorf("the example never printed \"ok %s: ...\"", step)
		}
	}
	if t.Failed() {
		t.Logf("its output:\n%s", out)
	}
}
