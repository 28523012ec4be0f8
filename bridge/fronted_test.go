package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// A request that names no server, to a bridge that fronts several, is
// refused (INVALID_ARGUMENT, UNKNOWN_SERVER) with a message that says the
// bridge fronts several servers, which ones the caller may use, and every
// way to name one.
func TestNoServerNamedAmongSeveral(t *testing.T) {
	t.Parallel()
	rules := access.Rules{
		{Principals: []string{"alice"}, Servers: []string{"*"}, Tools: []string{"*"}},
		{Groups: []string{"guests"}, Servers: []string{"p", "r"}, Tools: []string{"pid"}},
	}
	b := startSecureBridge(t, Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared), policyServer(t, "r", PolicyShared),
		policyServer(t, "other", PolicyShared)}, Rules: rules})
	ctx := testCtx(t)
	ways := []string{"fronts several servers", "server field", "mcp-server metadata key", "/mcp/{name}", "mcpbridge connect --server NAME"}
	for _, tc := range []struct {
		who, key, listed string
	}{
		{"alice", aliceKey, `("other", "p", "r")`},
		{"bob", bobKey, `("p", "r")`}, // the servers bob may use, no other
	} {
		_, err := b.bc.CallTool(as(ctx, tc.key), &mcpbridgev1.CallToolRequest{Name: "pid"})
		st, rpc, info, _ := splitStatus(err)
		if st.Code() != codes.InvalidArgument || info.GetReason() != "UNKNOWN_SERVER" || rpc.GetCode() != -32602 {
			t.Errorf("%s's CallTool naming no server = %v (reason %q, JSON-RPC %v); want INVALID_ARGUMENT, UNKNOWN_SERVER, -32602",
				tc.who, err, info.GetReason(), rpc.GetCode())
		}
		for _, want := range append(ways, tc.listed) {
			if !strings.Contains(st.Message(), want) {
				t.Errorf("%s's CallTool naming no server: %q does not say %q", tc.who, st.Message(), want)
			}
		}
		if strings.Contains(st.Message(), `unknown server ""`) {
			t.Errorf("%s's CallTool naming no server: %q still calls \"\" an unknown server", tc.who, st.Message())
		}
	}
	// A name that is not there is still an unknown server, by its name.
	_, err := b.bc.CallTool(as(ctx, aliceKey), &mcpbridgev1.CallToolRequest{Server: "nope", Name: "pid"})
	if st, _, info, _ := splitStatus(err); st.Message() != `unknown server "nope"` || info.GetReason() != "UNKNOWN_SERVER" {
		t.Errorf("CallTool to nope = %v, want unknown server \"nope\" (UNKNOWN_SERVER)", err)
	}

	// The list is bounded.
	set := map[string]*pool.Server{}
	for i := range 12 {
		set[fmt.Sprintf("s%02d", i)] = nil
	}
	unauth := newService(t, Config{Servers: []ServerConfig{policyServer(t, "a", PolicyShared)}})
	if got, want := unauth.nameOneOf(context.Background(), set), `("s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07" and 4 more)`; !strings.Contains(got, want) {
		t.Errorf("twelve servers: %q, want %q", got, want)
	}
}
