package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// TestSessionDigestIsKeyed: the digest that GetServer and the metrics show
// for a session is not the plain SHA-256 of its name, which anyone could
// compute for a guessed name, and it stays the same while the bridge runs.
func TestSessionDigestIsKeyed(t *testing.T) {
	b := startStreamsBridge(t, policyServer(t, "s", PolicySession))
	ctx := testCtx(t)
	digest := func() string {
		t.Helper()
		if _, err := b.client.CallTool(withSession(ctx, "alice"), &mcpbridgev1.CallToolRequest{Server: "s", Name: "pid"}); err != nil {
			t.Fatal(err)
		}
		res, err := b.client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "s"})
		if err != nil || len(res.GetChildren()) != 1 {
			t.Fatalf("GetServer = %v, %v; want one session child", res, err)
		}
		return res.GetChildren()[0].GetSession()
	}
	first, again := digest(), digest()
	plain := sha256.Sum256([]byte("alice"))
	if first != again || len(first) != 12 || first == hex.EncodeToString(plain[:6]) {
		t.Errorf("session digests %q then %q; want one 12-digit digest, not the plain SHA-256 prefix %x", first, again, plain[:6])
	}
}
