package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// authServer is testdata/peers/authserver.mjs running: a real OAuth 2.1
// authorization server (npm's oidc-provider) on loopback, with dynamic
// client registration, resource indicators, JWT access tokens, a login and
// consent step, confidential test clients and key rotation
// (docs/testing.md, "Real peers").
type authServer struct {
	Issuer        string `json:"issuer"`
	TokenEndpoint string `json:"token_endpoint"`
	Kid           string `json:"kid"`
}

// peerScript is node and the path of a script of testdata/peers, or ends
// the test (testkit.MissingPeer) when node or the package is missing.
func peerScript(t *testing.T, script, pkg string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testkit.MissingPeer(t, "node (Node.js 20 or later)", "apt-get install nodejs npm && "+installHostPeers)
		return nil
	}
	peers := filepath.Join(testkit.ModuleRoot(t), "testdata", "peers")
	if _, err := os.Stat(filepath.Join(peers, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
		testkit.MissingPeer(t, pkg, installHostPeers)
		return nil
	}
	return []string{node, filepath.Join(peers, script)}
}

// startAuthServer runs the authorization server until the test ends.
func startAuthServer(t *testing.T) *authServer {
	t.Helper()
	argv := peerScript(t, "authserver.mjs", "oidc-provider")
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr strings.Builder // read only once the process has exited
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("the authorization server's log:\n%s", stderr.String())
		}
	})
	as := &authServer{}
	select {
	case line := <-first:
		if err := json.Unmarshal([]byte(line), as); err != nil || as.Issuer == "" {
			t.Fatalf("authserver.mjs printed %q: %v", line, err)
		}
	case <-exited:
		t.Fatalf("authserver.mjs exited:\n%s", stderr.String())
	case <-time.After(testTimeout):
		t.Fatalf("authserver.mjs did not start within %s", testTimeout)
	}
	return as
}

// token is a client credentials grant's access token (a JWT) of one of
// the authorization server's confidential clients, for resource.
func (as *authServer) token(t *testing.T, client, resource, scope string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "client_secret": {strings.TrimSuffix(client, "-client") + "-secret"},
		"resource": {resource}, "scope": {scope}}
	resp, err := http.PostForm(as.TokenEndpoint, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("token of %s for %s: %d %s", client, resource, resp.StatusCode, body)
	}
	return tok.AccessToken
}

// rotate has the authorization server sign with a new key from now on.
func (as *authServer) rotate(t *testing.T) string {
	t.Helper()
	resp, err := http.Post(as.Issuer+"/admin/rotate", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Kid string `json:"kid"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Kid == "" {
		t.Fatalf("rotate: %d %v", resp.StatusCode, err)
	}
	return out.Kid
}

// jwtPart decodes part (0: header, 1: payload) of a JWT.
func jwtPart(t *testing.T, token string, part int) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[part])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// wwwAuthenticate is a response's WWW-Authenticate challenge as its
// parameters.
func wwwAuthenticate(h http.Header) map[string]string {
	v, ok := strings.CutPrefix(h.Get("Www-Authenticate"), "Bearer ")
	if !ok {
		return nil
	}
	params := map[string]string{}
	for part := range strings.SplitSeq(v, ", ") {
		k, val, _ := strings.Cut(part, "=")
		params[k] = strings.Trim(val, `"`)
	}
	return params
}

// errorInfo is the google.rpc.ErrorInfo of a status error, nil for none.
func errorInfo(err error) *errdetails.ErrorInfo {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}

// TestOAuthResourceServer runs the bridge as an OAuth resource server of a
// real authorization server (oidc-provider) and uses it as remote hosts
// would: the official TypeScript SDK client discovers everything from a
// 401, registers, obtains a token through login and consent (PKCE, the
// resource indicator), calls a tool over /mcp and steps up when a call
// needs a scope its token lacks; the same token works on the gRPC door.
// Tokens of the server's confidential clients show each refusal: another
// resource, an expired token (which also ends the stream it opened), a
// missing scope (403 insufficient_scope naming it, PERMISSION_DENIED with
// it on gRPC) and a key rotation picked up without a restart. No token
// ever reaches a child: its environment and every byte it read are
// searched for each one.
func TestOAuthResourceServer(t *testing.T) {
	as := startAuthServer(t)
	addr := closedPort(t)
	resource := "http://" + addr
	rec := t.TempDir()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	recorder := fmt.Sprintf("env > %s/env; tee -a %s/in | %s demo -tick 0", rec, rec, mcpbridgeBin)
	config := writeConfig(t, "", fmt.Sprintf(`auth:
  oauth:
    issuer: %s
    resource: %s
    leeway: 1s                   # an expiring token's end comes soon after its exp
    scopes:
      mcp:read: {servers: ["*"], tools: [], resources: ["*"], prompts: ["*"]}
      mcp:tools: {servers: ["*"], tools: ["*"]}
audit: %s
servers:
  - name: demo
    command: %s
  - name: recorded
    command: [sh, -c, %q]
`, as.Issuer, resource, audit, yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"}), recorder))
	b := startBridge(t, nil, "--http-listen", addr, "--config", config)
	client := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	bearer := func(token string) context.Context {
		return metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)
	}
	echo := func(ctx context.Context, server, msg string) error {
		args, _ := structpb.NewStruct(map[string]any{"message": msg})
		res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "echo", Arguments: args})
		if err == nil && (len(res.GetContent()) == 0 || res.GetContent()[0].GetText().GetText() != msg) {
			return fmt.Errorf("echo answered %v", res)
		}
		return err
	}
	call := func(tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`,
			testkit.WithModernMeta(`{"name":"`+tool+`","arguments":`+args+`}`))
	}
	demoURL := resource + "/mcp/demo"
	var used []string // every token presented, for the search of the child's input

	// Discovery: the 401 points to the metadata, which points to the
	// authorization server.
	p := postMCP(t, demoURL, call("echo", `{"message":"no token"}`))
	ch := wwwAuthenticate(p.header)
	if p.status != http.StatusUnauthorized || ch["resource_metadata"] != resource+"/.well-known/oauth-protected-resource/mcp/demo" ||
		ch["scope"] != "mcp:read mcp:tools" || ch["error"] != "" {
		t.Fatalf("no token: %s; want 401 with the metadata of demo and its scopes", p)
	}
	for path, want := range map[string]string{"/mcp/demo": demoURL, "": resource} {
		resp, err := http.Get(resource + "/.well-known/oauth-protected-resource" + path)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || md["resource"] != want || fmt.Sprint(md["authorization_servers"]) != "["+as.Issuer+"]" ||
			fmt.Sprint(md["scopes_supported"]) != "[mcp:read mcp:tools]" || fmt.Sprint(md["bearer_methods_supported"]) != "[header]" {
			t.Errorf("metadata at %q: %d %v", path, resp.StatusCode, md)
		}
	}
	if resp, err := http.Get(resource + "/.well-known/oauth-protected-resource/mcp/nothing"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("metadata of an unknown server: %v %v, want 404", resp.Status, err)
	} else {
		resp.Body.Close()
	}
	err := echo(t.Context(), "demo", "no token")
	if info := errorInfo(err); status.Code(err) != codes.Unauthenticated || info == nil ||
		info.GetMetadata()["resource_metadata"] != resource+"/.well-known/oauth-protected-resource" || info.GetMetadata()["scope"] != "mcp:read mcp:tools" {
		t.Errorf("gRPC without a token: %v (%v); want UNAUTHENTICATED with the metadata's URL", err, info)
	}

	// A token for demo's resource with both scopes: demo on both doors,
	// and no other server.
	tools := as.token(t, "test-client", demoURL, "mcp:read mcp:tools")
	used = append(used, tools)
	if err := echo(bearer(tools), "demo", "grpc with a token"); err != nil {
		t.Errorf("gRPC with a token for demo: %v", err)
	}
	if p := postMCP(t, demoURL, call("echo", `{"message":"http with a token"}`), "Authorization", "Bearer "+tools); p.status != http.StatusOK ||
		!strings.Contains(p.last(), "http with a token") {
		t.Errorf("/mcp/demo with a token: %s", p)
	}
	if err := echo(bearer(tools), "recorded", "elsewhere"); status.Code(err) != codes.PermissionDenied {
		t.Errorf("a token for demo's resource used on server recorded: %v, want PERMISSION_DENIED", err)
	}

	// A token for another resource is not for this bridge at all.
	other := as.token(t, "test-client", "http://127.0.0.1:1/mcp/demo", "mcp:read mcp:tools")
	used = append(used, other)
	if p := postMCP(t, demoURL, call("echo", `{"message":"other"}`), "Authorization", "Bearer "+other); p.status != http.StatusUnauthorized ||
		wwwAuthenticate(p.header)["error"] != "invalid_token" {
		t.Errorf("a token for another resource: %s; want 401 invalid_token", p)
	}
	if err := echo(bearer(other), "demo", "other"); status.Code(err) != codes.Unauthenticated || errorInfo(err).GetMetadata()["error"] != "invalid_token" {
		t.Errorf("gRPC with a token for another resource: %v (%v)", err, errorInfo(err))
	}

	// Without the scope a tool needs: 403 that names it, and lists
	// without the tools.
	read := as.token(t, "test-client", resource, "mcp:read")
	used = append(used, read)
	p = postMCP(t, demoURL, call("echo", `{"message":"read only"}`), "Authorization", "Bearer "+read)
	if ch := wwwAuthenticate(p.header); p.status != http.StatusForbidden || ch["error"] != "insufficient_scope" || ch["scope"] != "mcp:read mcp:tools" ||
		ch["resource_metadata"] != resource+"/.well-known/oauth-protected-resource/mcp/demo" {
		t.Errorf("a call beyond the token's scope: %s; want 403 insufficient_scope naming mcp:tools", p)
	}
	err = echo(bearer(read), "demo", "read only")
	if info := errorInfo(err); status.Code(err) != codes.PermissionDenied || info.GetMetadata()["error"] != "insufficient_scope" || info.GetMetadata()["scope"] != "mcp:read mcp:tools" {
		t.Errorf("gRPC beyond the token's scope: %v (%v)", err, info)
	}
	code, body, h := postJSON(t, http.DefaultClient, resource+"/mcpbridge.v1.BridgeService/CallTool", `{"server":"demo","name":"echo","arguments":{"message":"connect"}}`,
		"Authorization", "Bearer "+read)
	if ch := wwwAuthenticate(h); code != http.StatusForbidden || body["code"] != "permission_denied" || ch["error"] != "insufficient_scope" || ch["scope"] != "mcp:read mcp:tools" {
		t.Errorf("the API over Connect beyond the token's scope: %d %v %v", code, body, h)
	}
	if list, err := client.ListTools(bearer(read), &mcpbridgev1.ListToolsRequest{Server: "demo"}); err != nil || len(list.GetTools()) != 0 {
		t.Errorf("ListTools with mcp:read: %v %v; want no tools", list.GetTools(), err)
	}
	// A token for the whole bridge with mcp:tools reaches every server.
	whole := as.token(t, "test-client", resource, "mcp:tools")
	used = append(used, whole)
	for _, server := range []string{"demo", "recorded"} {
		if err := echo(bearer(whole), server, "whole bridge "+server); err != nil {
			t.Errorf("a token for the bridge on %s: %v", server, err)
		}
	}
	if p := postMCP(t, resource+"/mcp/recorded", call("echo", `{"message":"recorded over http"}`), "Authorization", "Bearer "+whole); p.status != http.StatusOK {
		t.Errorf("/mcp/recorded with a token for the bridge: %s", p)
	}

	// A key rotation at the issuer: the new key is fetched on its first
	// token, without a restart.
	kid := as.rotate(t)
	rotated := as.token(t, "test-client", resource, "mcp:tools")
	used = append(used, rotated)
	if got := jwtPart(t, rotated, 0)["kid"]; got != kid || kid == as.Kid {
		t.Fatalf("the rotated token's kid %v, want the new %s (the first was %s)", got, kid, as.Kid)
	}
	if err := echo(bearer(rotated), "demo", "rotated"); err != nil {
		t.Errorf("a token of the rotated key: %v", err)
	}

	// An expired token ends the stream it opened, on gRPC and on /mcp,
	// and is refused after.
	short := as.token(t, "short-client", resource, "mcp:read mcp:tools")
	used = append(used, short)
	if exp := jwtPart(t, short, 1); exp["exp"].(float64)-exp["iat"].(float64) != 3 {
		t.Fatalf("short-client's token lives %v s", exp["exp"].(float64)-exp["iat"].(float64))
	}
	args, _ := structpb.NewStruct(map[string]any{"seconds": 60})
	stream, err := client.CallToolStream(bearer(short), &mcpbridgev1.CallToolStreamRequest{Server: "demo", Name: "progress", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	streamEnd := make(chan error, 1)
	go func() {
		for {
			if _, err := stream.Recv(); err != nil {
				streamEnd <- err
				return
			}
		}
	}()
	httpEnd := make(chan mcpPost, 1)
	go func() {
		httpEnd <- postMCP(t, demoURL, call("progress", `{"seconds":60}`), "Authorization", "Bearer "+short)
	}()
	select {
	case err := <-streamEnd:
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("the stream of an expiring token ended with %v, want UNAUTHENTICATED", err)
		}
	case <-time.After(testTimeout):
		t.Errorf("the stream of an expired token is still open after %s", testTimeout)
	}
	select {
	case p := <-httpEnd:
		if strings.Contains(p.last(), `"result"`) {
			t.Errorf("the /mcp stream of an expired token ended with a result: %s", p)
		}
	case <-time.After(testTimeout):
		t.Errorf("the /mcp stream of an expired token is still open after %s", testTimeout)
	}
	if err := echo(bearer(short), "demo", "expired"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("an expired token: %v", err)
	}

	// The TypeScript SDK as the host: its own OAuth, then its token on
	// the gRPC door.
	host := peerScript(t, "oauth-host.mjs", "@modelcontextprotocol/sdk")
	ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, host[0], host[1], demoURL).CombinedOutput()
	steps := map[string]map[string]any{}
	for line := range strings.SplitSeq(string(out), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			steps[fmt.Sprint(m["step"])] = m
		}
	}
	if err != nil || steps["done"] == nil {
		t.Fatalf("oauth-host.mjs: %v\n%s", err, out)
	}
	conn := steps["connect"]
	if conn["aud"] != demoURL || conn["resource"] != demoURL || conn["pkce"] != "S256" || conn["scope"] != "mcp:read mcp:tools" || conn["client"] == nil {
		t.Errorf("the SDK's authorization: %v", conn)
	}
	if fmt.Sprint(steps["list"]["tools"]) == "[]" || steps["call"]["text"] != "hello over oauth" {
		t.Errorf("the SDK's list and call: %v %v", steps["list"], steps["call"])
	}
	if fmt.Sprint(steps["read-only-list"]["tools"]) != "[]" || steps["step-up"]["text"] != "stepped up" ||
		steps["step-up"]["scope"] != "mcp:read mcp:tools" || steps["step-up"]["requested"] != "mcp:read mcp:tools" {
		t.Errorf("the SDK's step-up: %v %v", steps["read-only-list"], steps["step-up"])
	}
	sdkToken, _ := conn["token"].(string)
	used = append(used, sdkToken)
	if err := echo(bearer(sdkToken), "demo", "the SDK's token on gRPC"); err != nil {
		t.Errorf("the SDK's token on the gRPC door: %v", err)
	}

	// No token reached a child: not its environment, not a byte it read.
	env, _ := os.ReadFile(filepath.Join(rec, "env"))
	in, _ := os.ReadFile(filepath.Join(rec, "in"))
	if !strings.Contains(string(in), "recorded over http") || !strings.Contains(string(in), "whole bridge recorded") || len(env) == 0 {
		t.Fatalf("the recorder saw nothing: env %d bytes, input %q", len(env), in)
	}
	for i, tok := range used {
		sig := tok[strings.LastIndex(tok, ".")+1:]
		for what, data := range map[string][]byte{"environment": env, "input": in} {
			if strings.Contains(string(data), sig) || strings.Contains(string(data), "Bearer") {
				t.Errorf("token %d reached the child's %s", i, what)
			}
		}
	}

	// The audit log has the refusal for the missing scope, with its
	// principal and method.
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"auth":"oauth","outcome":"refused","refused":"permission_denied","code":"PermissionDenied","scope":"mcp:read mcp:tools"`) {
		t.Errorf("the audit log has no OAuth caller or scope refusal:\n%s", data)
	}
}
