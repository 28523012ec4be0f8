package httpdoor

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

const oauthResource = "https://bridge.example.com/base"

// oauthBridge is a test bridge whose authenticator is an OAuth resource
// server of a test issuer.
func oauthBridge(t *testing.T) (*testBridge, *testkit.OAuthIssuer) {
	t.Helper()
	iss := testkit.NewOAuthIssuer(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	auth, err := access.New(ctx, access.Config{OAuth: &access.OAuthConfig{Issuer: iss.URL, Resource: oauthResource, Scopes: []access.Scope{
		{Name: "mcp:read", Servers: []string{"*"}, Resources: []string{"*"}},
		{Name: "demo:tools", Servers: []string{"demo"}, Tools: []string{"*"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return &testBridge{auth: auth}, iss
}

// TestProtectedResourceMetadata: the metadata of the bridge and of each
// server, served to anyone at RFC 9728's paths under the resource's own
// path, and nothing else passes the guard without a token.
func TestProtectedResourceMetadata(t *testing.T) {
	b, iss := oauthBridge(t)
	s := serveDoor(t, b, Options{})
	for path, want := range map[string]struct {
		resource, scopes string
	}{
		"/.well-known/oauth-protected-resource/base":          {oauthResource, "mcp:read demo:tools"},
		"/.well-known/oauth-protected-resource/base/":         {oauthResource, "mcp:read demo:tools"},
		"/.well-known/oauth-protected-resource/base/mcp/demo": {oauthResource + "/mcp/demo", "mcp:read demo:tools"},
	} {
		resp, body := s.do(t, http.MethodGet, path, "", "")
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			Scopes               []string `json:"scopes_supported"`
			Bearer               []string `json:"bearer_methods_supported"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &md) != nil || md.Resource != want.resource ||
			strings.Join(md.Scopes, " ") != want.scopes || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != iss.URL ||
			strings.Join(md.Bearer, ",") != "header" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{
		"/.well-known/oauth-protected-resource",               // not the resource's path
		"/.well-known/oauth-protected-resource/base/mcp/else", // no such server
		"/.well-known/oauth-protected-resource/base/mcp/demo/x",
		"/.well-known/oauth-protected-resource/other",
	} {
		if resp, body := s.do(t, http.MethodGet, path, "", ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d %s, want 404", path, resp.StatusCode, body)
		}
	}
	if resp, _ := s.do(t, http.MethodHead, "/.well-known/oauth-protected-resource/base", "", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD of the metadata: %d", resp.StatusCode)
	}
	// A POST there is no metadata request: it needs a token like any.
	if resp, _ := s.post(t, "/.well-known/oauth-protected-resource/base", "application/json", "{}"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST to the metadata's path: %d, want 401", resp.StatusCode)
	}
	if n := s.reached(); n != 0 {
		t.Errorf("%d requests reached the bridge", n)
	}
}

// TestOAuthChallenges: a 401 on each path points to its metadata and
// names the scopes that let a caller use it, with invalid_token for a
// token that does not hold here; a token that holds passes.
func TestOAuthChallenges(t *testing.T) {
	b, iss := oauthBridge(t)
	s := serveDoor(t, b, Options{})
	md := "https://bridge.example.com/.well-known/oauth-protected-resource/base"
	for _, c := range []struct {
		path, token, want string
	}{
		{"/mcp/demo", "", `Bearer resource_metadata="` + md + `/mcp/demo", scope="mcp:read demo:tools"`},
		{"/mcp/other", "", `Bearer resource_metadata="` + md + `/mcp/other", scope="mcp:read"`},
		{"/mcp", "", `Bearer resource_metadata="` + md + `", scope="mcp:read demo:tools"`},
		{"/mcpbridge.v1.BridgeService/ListServers", "", `Bearer resource_metadata="` + md + `", scope="mcp:read demo:tools"`},
		{"/mcp/demo", iss.Sign(t, iss.Claims("https://elsewhere.example", "alice", "mcp:read", time.Hour)),
			`Bearer resource_metadata="` + md + `/mcp/demo", scope="mcp:read demo:tools", error="invalid_token"`},
		{"/mcp/demo", iss.Sign(t, iss.Claims(oauthResource, "alice", "mcp:read", -time.Hour)),
			`Bearer resource_metadata="` + md + `/mcp/demo", scope="mcp:read demo:tools", error="invalid_token"`},
		{"/mcp/demo", "not-a-jwt", `Bearer resource_metadata="` + md + `/mcp/demo", scope="mcp:read demo:tools", error="invalid_token"`},
	} {
		var header []string
		if c.token != "" {
			header = []string{"Authorization", "Bearer " + c.token}
		}
		resp, body := s.post(t, c.path, "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header...)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Www-Authenticate") != c.want {
			t.Errorf("POST %s (token %.10q): %d %q %s\nwant 401 %s", c.path, c.token, resp.StatusCode, resp.Header.Get("Www-Authenticate"), body, c.want)
		}
	}
	ok := iss.Sign(t, iss.Claims(oauthResource+"/mcp/demo", "alice", "mcp:read", time.Hour))
	if resp, body := s.post(t, "/mcpbridge.v1.BridgeService/ListServers", "application/json", "{}", "Authorization", "Bearer "+ok); resp.StatusCode != http.StatusOK {
		t.Errorf("a token for demo's resource: %d %s", resp.StatusCode, body)
	}
}

// TestScopeChallenge: the 403 of a call beyond a token's scope is made
// of the door's refusal only, with the bridge's and the token's scopes.
func TestScopeChallenge(t *testing.T) {
	b, _ := oauthBridge(t)
	d, err := New(b, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := httptest.NewRequest(http.MethodPost, "/mcp/demo", nil)
	p := &access.Principal{Name: "alice", Method: "oauth", Scopes: []string{"mcp:read", "own:scope"}}
	r = r.WithContext(access.NewContext(r.Context(), p))
	refusal := func(data string) *jsonrpc.Error {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Permission denied", Data: json.RawMessage(data)}
	}
	for _, c := range []struct {
		e    *jsonrpc.Error
		want string
	}{
		{refusal(`{"error":"insufficient_scope","scope":"mcp:read own:scope demo:tools"}`),
			`Bearer error="insufficient_scope", scope="mcp:read own:scope demo:tools", resource_metadata="https://bridge.example.com/.well-known/oauth-protected-resource/base/mcp/demo"`},
		{refusal(`{"error":"insufficient_scope","scope":"admin:everything"}`), ""}, // a scope neither the bridge's nor the token's
		{refusal(`{"error":"insufficient_scope","scope":""}`), ""},
		{refusal(`{"error":"insufficient_scope","scope":"x\" y"}`), ""},
		{refusal(`{"error":"other","scope":"mcp:read"}`), ""},
		{&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: json.RawMessage(`{"error":"insufficient_scope","scope":"mcp:read"}`)}, ""},
	} {
		if got := d.scopeChallenge(r, c.e); got != c.want {
			t.Errorf("challenge of %s: %q, want %q", c.e.Data, got, c.want)
		}
	}
	anon := httptest.NewRequest(http.MethodPost, "/mcp/demo", nil)
	if got := d.scopeChallenge(anon, refusal(`{"error":"insufficient_scope","scope":"mcp:read"}`)); got != "" {
		t.Errorf("a challenge without a principal: %q", got)
	}
}

// TestRenewedCredentials: an MCP session of an OAuth token is its
// principal's and client's: a later request of theirs with another token
// (refreshed, stepped up) is the same caller and renews the session's
// credentials, and another client of the same principal is another
// caller.
func TestRenewedCredentials(t *testing.T) {
	b, iss := oauthBridge(t)
	s := serveDoor(t, b, Options{})
	request := func(scope, client string) *http.Request {
		claims := iss.Claims(oauthResource, "alice", scope, time.Hour)
		claims["client_id"] = client
		tok := iss.Sign(t, claims)
		r := httptest.NewRequest(http.MethodPost, "/mcp/demo", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		p, err := b.auth.Check(access.RequestCredentials(r))
		if err != nil {
			t.Fatal(err)
		}
		return r.WithContext(access.NewContext(r.Context(), p))
	}
	first := request("mcp:read", "host")
	conn, err := s.d.open(context.Background(), first, "demo", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	opened := b.opened()[0].ctx
	if p := access.FromContext(opened); p == nil || strings.Join(p.Scopes, " ") != "mcp:read" {
		t.Fatalf("the session's principal: %+v", p)
	}
	stepped := request("mcp:read demo:tools", "host")
	if s.d.caller(stepped) != callerOf(first) {
		t.Fatal("a new token of the same principal and client is another caller")
	}
	if p := access.FromContext(opened); strings.Join(p.Scopes, " ") != "demo:tools mcp:read" {
		t.Errorf("after a stepped-up request, the session's scopes are %v", p.Scopes)
	}
	if q, err := b.auth.Authenticate(opened); err != nil || strings.Join(q.Scopes, " ") != "demo:tools mcp:read" {
		t.Errorf("the session's credentials authenticate as %+v, %v; want the stepped-up token", q, err)
	}
	if callerOf(request("mcp:read", "other-host")) == callerOf(first) {
		t.Error("another OAuth client of the same principal is the same caller")
	}
}
