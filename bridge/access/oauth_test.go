package access

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

const testResource = "https://bridge.example.com"

var testScopes = []Scope{
	{Name: "mcp:read", Servers: []string{"*"}, Resources: []string{"*"}, Prompts: []string{"*"}},
	{Name: "mcp:tools", Servers: []string{"*"}, Tools: []string{"*"}},
	{Name: "demo:echo", Servers: []string{"demo"}, Tools: []string{"echo"}},
}

func oauthAuthenticator(t *testing.T, as *testkit.OAuthIssuer) (*Authenticator, error) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return New(ctx, Config{OAuth: &OAuthConfig{Issuer: as.URL, Resource: testResource, Scopes: testScopes}})
}

func mustOAuth(t *testing.T, as *testkit.OAuthIssuer) *Authenticator {
	t.Helper()
	a, err := oauthAuthenticator(t, as)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestOAuthTokens checks access tokens against the metadata's key set:
// the audience decides which servers a token is for, the scopes are read,
// and a token of another resource, issuer or key, expired, or signed with
// none or HMAC is an invalid token.
func TestOAuthTokens(t *testing.T) {
	for _, oidc := range []bool{false, true} {
		as := testkit.NewOAuthIssuer(t, oidc)
		a := mustOAuth(t, as)
		check := func(claims jwt.MapClaims) (*Principal, error) {
			return a.Check(Credentials{Authorization: []string{"Bearer " + as.Sign(t, claims)}})
		}
		claimsOf := func(aud any, scope string) jwt.MapClaims { return as.Claims(aud, "alice", scope, time.Hour) }
		p, err := check(claimsOf(testResource+"/", "mcp:tools mcp:read"))
		if err != nil {
			t.Fatalf("oidc=%v: a token for the bridge: %v", oidc, err)
		}
		if p.ID() != "oauth:alice" || p.Servers != nil || !slices.Equal(p.Scopes, []string{"mcp:read", "mcp:tools"}) || p.Expires.IsZero() {
			t.Fatalf("the principal: %+v", p)
		}
		if !p.ForServer("demo") || !p.ForServer("other") {
			t.Fatal("a token for the bridge is for every server")
		}
		p, err = check(claimsOf([]string{"https://elsewhere.example", testResource + "/mcp/demo"}, ""))
		if err != nil {
			t.Fatalf("a token for one server: %v", err)
		}
		if !slices.Equal(p.Servers, []string{"demo"}) || !p.ForServer("demo") || p.ForServer("other") {
			t.Fatalf("a token for demo's resource: servers %v", p.Servers)
		}
		scp := claimsOf(testResource, "")
		delete(scp, "scope")
		scp["scp"] = []any{"mcp:read", "demo:echo"}
		if p, err = check(scp); err != nil || !slices.Equal(p.Scopes, []string{"demo:echo", "mcp:read"}) {
			t.Fatalf("scp as a list: %v %v", p, err)
		}

		bad := map[string]jwt.MapClaims{
			"another resource":      claimsOf("https://elsewhere.example", "mcp:tools"),
			"a resource's sub-path": claimsOf(testResource+"/mcp/demo/x", "mcp:tools"),
			"a prefix of the name":  claimsOf(testResource+"x", "mcp:tools"),
			"no audience":           claimsOf(nil, "mcp:tools"),
		}
		expired := claimsOf(testResource, "mcp:tools")
		expired["exp"] = time.Now().Add(-time.Hour).Unix()
		bad["expired"] = expired
		other := claimsOf(testResource, "mcp:tools")
		other["iss"] = "https://other-issuer.example"
		bad["another issuer"] = other
		for name, c := range bad {
			if c["aud"] == nil {
				delete(c, "aud")
			}
			if _, err := check(c); !errors.Is(err, ErrInvalidToken) || !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("%s: %v, want ErrInvalidToken", name, err)
			}
		}
		for _, m := range []jwt.SigningMethod{jwt.SigningMethodHS256, jwt.SigningMethodNone} {
			tok := jwt.NewWithClaims(m, claimsOf(testResource, "mcp:tools"))
			tok.Header["kid"] = "k1"
			var key any = []byte("public key as a secret")
			if m == jwt.SigningMethodNone {
				key = jwt.UnsafeAllowNoneSignatureType
			}
			s, err := tok.SignedString(key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Check(Credentials{Authorization: []string{"Bearer " + s}}); err == nil {
				t.Errorf("alg %s accepted", m.Alg())
			}
		}
		// A key the set lacks is fetched again: a rotation at the issuer.
		as.Rotate(t)
		if _, err := check(claimsOf(testResource, "mcp:tools")); err != nil {
			t.Fatalf("a token of a rotated key: %v", err)
		}
	}
}

// TestOAuthConfig: what a resource server refuses to start with.
func TestOAuthConfig(t *testing.T) {
	as := testkit.NewOAuthIssuer(t, false)
	ctx := context.Background()
	for name, c := range map[string]OAuthConfig{
		"http issuer off loopback": {Issuer: "http://login.example.com", Resource: testResource, Scopes: testScopes},
		"http resource":            {Issuer: as.URL, Resource: "http://bridge.example.com", Scopes: testScopes},
		"relative resource":        {Issuer: as.URL, Resource: "/mcp", Scopes: testScopes},
		"no scopes":                {Issuer: as.URL, Resource: testResource},
		"a scope with a space":     {Issuer: as.URL, Resource: testResource, Scopes: []Scope{{Name: "a b", Servers: []string{"*"}}}},
		"a scope twice":            {Issuer: as.URL, Resource: testResource, Scopes: []Scope{{Name: "a", Servers: []string{"*"}}, {Name: "a", Servers: []string{"*"}}}},
		"a scope of no server":     {Issuer: as.URL, Resource: testResource, Scopes: []Scope{{Name: "a"}}},
		"no metadata":              {Issuer: as.URL + "/nothing", Resource: testResource, Scopes: testScopes},
	} {
		if _, err := New(ctx, Config{OAuth: &c}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	as.ClaimIssuer = "https://mix-up.example"
	if _, err := oauthAuthenticator(t, as); err == nil || !strings.Contains(err.Error(), "mix-up") {
		t.Errorf("metadata naming another issuer: %v", err)
	}
}

// TestResourceServer: the metadata URLs, the challenges and the scopes
// they name, and the scopes' rules.
func TestResourceServer(t *testing.T) {
	a := mustOAuth(t, testkit.NewOAuthIssuer(t, false))
	rs := a.ResourceServer()
	if got := rs.MetadataURL(""); got != testResource+WellKnownPath {
		t.Errorf("the bridge's metadata URL: %s", got)
	}
	if got := rs.MetadataURL("demo"); got != testResource+WellKnownPath+"/mcp/demo" {
		t.Errorf("demo's metadata URL: %s", got)
	}
	withPath := &ResourceServer{Resource: "https://example.com/bridge/"}
	if got := withPath.MetadataURL("demo"); got != "https://example.com"+WellKnownPath+"/bridge/mcp/demo" {
		t.Errorf("a resource with a path: %s", got)
	}
	if got := rs.ScopesFor("other", Server, ""); !slices.Equal(got, []string{"mcp:read", "mcp:tools"}) {
		t.Errorf("the scopes of server other: %v", got)
	}
	if got := rs.ScopesFor("demo", Tool, "echo"); !slices.Equal(got, []string{"mcp:tools", "demo:echo"}) {
		t.Errorf("the scopes of demo's echo: %v", got)
	}
	if got := rs.ScopesFor("demo", Prompt, "p"); !slices.Equal(got, []string{"mcp:read"}) {
		t.Errorf("the scopes of a prompt: %v", got)
	}
	want := `Bearer resource_metadata="` + testResource + WellKnownPath + `/mcp/demo", scope="mcp:read mcp:tools demo:echo", error="invalid_token"`
	if got := rs.Challenge("demo", true); got != want {
		t.Errorf("the challenge:\n got %s\nwant %s", got, want)
	}
	if got := rs.InsufficientScope("", "mcp:read mcp:tools"); got != `Bearer error="insufficient_scope", scope="mcp:read mcp:tools", resource_metadata="`+testResource+WellKnownPath+`"` {
		t.Errorf("insufficient_scope: %s", got)
	}

	rules := a.ScopeRules()
	reader := &Principal{Name: "alice", Method: "oauth", Scopes: []string{"mcp:read"}}
	echoer := &Principal{Name: "alice", Method: "oauth", Scopes: []string{"demo:echo"}}
	for _, c := range []struct {
		p                  *Principal
		server, name, what string
		kind               Kind
		want               bool
	}{
		{reader, "demo", "greeting", "a prompt by mcp:read", Prompt, true},
		{reader, "demo", "echo", "a tool by mcp:read", Tool, false},
		{echoer, "demo", "echo", "demo's echo by demo:echo", Tool, true},
		{echoer, "other", "echo", "other's echo by demo:echo", Tool, false},
		{&Principal{Name: "alice", Method: "jwt", Claims: jwt.MapClaims{"scope": "mcp:tools"}}, "demo", "echo", "a JWT's scope claim", Tool, false},
	} {
		if got := rules.Allow(c.p, c.server, c.kind, c.name); got != c.want {
			t.Errorf("%s: allowed %v, want %v", c.what, got, c.want)
		}
	}
	if (&Authenticator{}).ScopeRules() != nil || (&Authenticator{}).ResourceServer() != nil {
		t.Error("scopes without OAuth")
	}
}
