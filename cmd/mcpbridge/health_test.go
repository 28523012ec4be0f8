//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// healthProtoset writes the health service's descriptor as a protoset for
// grpcurl: a probe does not use reflection, which needs credentials when
// authentication is on.
func healthProtoset(t *testing.T) string {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(healthpb.File_grpc_health_v1_health_proto)}}
	data, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "health.protoset")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeHealthPerServerNeedsCredentials runs `mcpbridge serve --config`
// with an API key and drives health with grpcurl as a probe and a client
// would (with the health service's descriptor, not reflection, which
// needs credentials): without credentials the bridge's overall health is SERVING, and
// a server's entry is NotFound exactly as a name that does not exist; with
// the key the server's entry is SERVING.
func TestServeHealthPerServerNeedsCredentials(t *testing.T) {
	g := findGrpcurl(t)
	key := "probe-key-8c1e4f7a2b9d3e6f"
	config := writeConfig(t, "", fmt.Sprintf(`auth:
  api_keys:
    - {principal: ops, sha256: %s}
servers:
  - name: demo
    command: %s
`, access.HashKey(key), yamlList([]string{mcpbridgeBin, "demo"})))
	b := startBridge(t, nil, "--config", config)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b.log.WaitFor(ctx, t, `msg="mcpbridge: server ready"`)

	protoset := healthProtoset(t)
	check := func(service string, args ...string) (stdout, stderr string, code int) {
		return g.run(t, append(append([]string{"-plaintext", "-protoset", protoset}, args...), "-d", `{"service":"`+service+`"}`, b.addr, "grpc.health.v1.Health/Check")...)
	}
	for _, service := range []string{"", "mcpbridge.v1.BridgeService"} {
		if out, stderr, code := check(service); code != 0 || !strings.Contains(out, `"status": "SERVING"`) {
			t.Errorf("health of %q without credentials = %s%s (exit %d), want SERVING", service, out, stderr, code)
		}
	}
	_, unknown, _ := check("mcpbridge.v1.BridgeService/nosuch")
	out, stderr, code := check("mcpbridge.v1.BridgeService/demo")
	if code == 0 || !strings.Contains(stderr, "NotFound") || stderr != unknown {
		t.Errorf("health of the demo server without credentials = %s%s (exit %d), want NotFound as for a server that does not exist: %s", out, stderr, code, unknown)
	}
	if out, stderr, code := check("mcpbridge.v1.BridgeService/demo", "-H", "authorization: Bearer "+key); code != 0 || !strings.Contains(out, `"status": "SERVING"`) {
		t.Errorf("health of the demo server with the key = %s%s (exit %d), want SERVING", out, stderr, code)
	}
}
