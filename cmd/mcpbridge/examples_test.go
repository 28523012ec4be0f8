package main

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

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

// checkStubs fails the test when an example's generated stubs describe
// another mcpbridge/v1/bridge.proto than the Go code does: they were
// generated before the proto last changed, and the example's failures
// would mislead. script, run by cmd, prints the stubs' FileDescriptorProto
// in base64; what describes the stubs and how to regenerate them go into
// the failure.
func checkStubs(t *testing.T, cmd *exec.Cmd, what, regenerate string) {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("%s do not load with %s: %v\n%s\nregenerate them: %s", what, cmd.Path, err, stderr, regenerate)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("decoding the stubs' descriptor: %v", err)
	}
	stubs := new(descriptorpb.FileDescriptorProto)
	if err := proto.Unmarshal(raw, stubs); err != nil {
		t.Fatalf("decoding the stubs' descriptor: %v", err)
	}
	goDesc := protodesc.ToFileDescriptorProto(mcpbridgev1.File_mcpbridge_v1_bridge_proto)
	for _, d := range []*descriptorpb.FileDescriptorProto{stubs, goDesc} {
		// What may differ between generators: source info (protoc-gen-es
		// embeds none), and a json_name where it is the default.
		d.SourceCodeInfo = nil
		clearJSONNames(d.MessageType)
	}
	if !proto.Equal(stubs, goDesc) {
		t.Fatalf("%s were generated from another bridge.proto than proto/mcpbridge/v1/bridge.pb.go; regenerate them: %s", what, regenerate)
	}
}

// clearJSONNames clears the json_name of every field of msgs and their
// nested messages.
func clearJSONNames(msgs []*descriptorpb.DescriptorProto) {
	for _, m := range msgs {
		for _, f := range m.Field {
			f.JsonName = nil
		}
		clearJSONNames(m.NestedType)
	}
}
