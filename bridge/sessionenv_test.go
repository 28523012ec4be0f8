package bridge

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// TestSessionEnvNamesRefused: a server whose session variables would let
// a caller choose what its child loads or runs does not validate; other
// names do. (pool's TestRefusedSessionEnvDocumented holds docs/security.md
// to the list.)
func TestSessionEnvNamesRefused(t *testing.T) {
	refused := []string{"LD_PRELOAD", "ld_library_path", "DYLD_INSERT_LIBRARIES", "PATH", "NODE_OPTIONS", "PYTHONSTARTUP",
		"GIT_SSH_COMMAND", "MALLOC_CHECK_", "LUA_INIT_5_4", "BASH_ENV", "TMPDIR", reaper.Env, "MCPBRIDGE_ANYTHING"}
	for _, name := range refused {
		sc := ServerConfig{Name: "s", Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{name: "x-value"}}}
		err := (&Config{Servers: []ServerConfig{sc}}).Validate()
		if err == nil || !strings.Contains(err.Error(), name+" may not be set from request metadata") {
			t.Errorf("env_from_metadata %s: Validate = %v, want a refusal naming it", name, err)
		}
	}
	for _, name := range []string{"USER_TOKEN", "GITHUB_TOKEN", "API_KEY", "LANG"} {
		if err := CheckSessionEnvName(name); err != nil {
			t.Errorf("CheckSessionEnvName(%s) = %v", name, err)
		}
	}
}

// TestSessionEnvControlCharacters: a session whose metadata value for an
// environment variable holds a control character is refused with
// INVALID_ARGUMENT naming the metadata key, never the value, and no child
// starts for it; a clean value starts the session.
func TestSessionEnvControlCharacters(t *testing.T) {
	sc := policyServer(t, "s", PolicySession)
	sc.Session.EnvFromMetadata = map[string]string{"USER_TOKEN": "x-user-token-bin"} // binary metadata carries any byte
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	for _, value := range []string{"secret\x00tail", "secret\nFORGED=1", "secret\x7f", "secret\ttab"} {
		_, err := b.client.CallTool(withSession(ctx, "bad-0001", "x-user-token-bin", value), &mcpbridgev1.CallToolRequest{Server: "s", Name: "pid"})
		if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), `"x-user-token-bin"`) ||
			strings.Contains(st.Message(), "secret") {
			t.Errorf("a value %q = %v; want INVALID_ARGUMENT naming the key and not the value", value, err)
		}
	}
	servers, err := b.client.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	if err != nil || len(servers.GetServers()) != 1 || len(servers.GetServers()[0].GetChildren()) != 0 {
		t.Fatalf("ListServers = %v, %v; want no child", servers, err)
	}
	res, err := b.client.CallTool(withSession(ctx, "good-0002", "x-user-token-bin", "token-ok"),
		&mcpbridgev1.CallToolRequest{Server: "s", Name: "env", Arguments: argsStruct(`{"name":"USER_TOKEN"}`)})
	if err != nil || res.GetContent()[0].GetText().GetText() != "token-ok" {
		t.Errorf("a clean value = %v, %v; want the child to see it", res, err)
	}
}
