package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

// TestSlowPrivateChildSaysHandshake: a tunnel's own child that does not
// complete the handshake in time (a start slowed by a loaded machine)
// ends the tunnel with UNAVAILABLE that says so, as the log does, not
// with a bare "could not be started" or "exited".
func TestSlowPrivateChildSaysHandshake(t *testing.T) {
	t.Parallel()
	delay := filepath.Join(t.TempDir(), "delay")
	sc := fixtureServer(t, "slow", "policy", policyStartDelay+"="+delay)
	sc.HandshakeTimeout = 2 * time.Second // more than a loaded machine takes to start the fixture
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	if _, err := toolPid(ctx, b.client, "slow", "pid", ""); err != nil { // the server's own child is up
		t.Fatal(err)
	}
	if err := os.WriteFile(delay, []byte("1m"), 0o600); err != nil { // children started from now on are slow
		t.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`
	tun := b.connectWith(ctx, t, "slow", initialize)
	_, err := tun.st.Recv()
	st, rpc, info, _ := splitStatus(err)
	if st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "did not complete the handshake in time") ||
		rpc.GetCode() != -32000 || info.GetReason() != "CHILD_UNAVAILABLE" {
		t.Errorf("a tunnel whose child is too slow to start ended with %v (JSON-RPC %v, reason %q); want UNAVAILABLE, -32000, CHILD_UNAVAILABLE, saying the handshake was not completed in time",
			err, rpc.GetCode(), info.GetReason())
	}
}
