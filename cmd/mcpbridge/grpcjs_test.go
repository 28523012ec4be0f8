package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// A Node client (grpc-js) whose 1 s deadline passes during a 5 s call gets
// the bridge's DEADLINE_EXCEEDED with its details, in 20 calls of 20 made
// at once: the bridge answers a margin before the deadline, so neither
// the client's own timer nor grpc-go's stream reset (CANCELLED) wins.
func TestNodeClientDeadline(t *testing.T) {
	argv := testkit.GRPCJSScript(t, "deadline.mjs")
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b := startBridge(t, nil, "--", mcpbridgeBin, "demo", "-tick", "0")
	childPid(ctx, t, mcpbridgev1.NewBridgeServiceClient(b.conn(t)))
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], b.addr, "20", "1000", testkit.ModuleRoot(t))...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node deadline.mjs: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 20 {
		t.Fatalf("node printed %d results, want 20:\n%s", len(lines), out)
	}
	for i, l := range lines {
		var r struct {
			Code    int
			Message string
			Details bool
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("result %d: %q: %v", i, l, err)
		}
		if codes.Code(r.Code) != codes.DeadlineExceeded || !r.Details || r.Message != "Request timed out" {
			t.Errorf("call %d ended %s; want DEADLINE_EXCEEDED \"Request timed out\" with details", i, l)
		}
	}
}
