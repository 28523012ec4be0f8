package access

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/goleak"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// bearerCtx is an incoming context with an authorization header.
func bearerCtx(token string) context.Context {
	return metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+token))
}

func TestAPIKeys(t *testing.T) {
	a, err := New(context.Background(), Config{APIKeys: []APIKey{{Principal: "alice", SHA256: HashKey("s3cret-key-of-alice"), Groups: []string{"ops"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Authenticate(bearerCtx("s3cret-key-of-alice"))
	if err != nil || p.Name != "alice" || p.Method != "apikey" || p.Groups[0] != "ops" {
		t.Errorf("Authenticate(alice's key) = %+v, %v", p, err)
	}
	for _, ctx := range []context.Context{
		bearerCtx("s3cret-key-of-alicE"),
		bearerCtx(""),
		metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Basic czNjcmV0")),
		context.Background(),
	} {
		if p, err := a.Authenticate(ctx); err != ErrUnauthenticated || p != nil {
			t.Errorf("Authenticate = %+v, %v; want ErrUnauthenticated", p, err)
		}
	}
	if _, err := New(context.Background(), Config{APIKeys: []APIKey{{Principal: "x", SHA256: "abc"}}}); err == nil {
		t.Error("New accepted a short hash")
	}
}

// issuer signs tokens and serves its key set over HTTPS.
type issuer struct {
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey // by kid, all published
	srv     *httptest.Server
	fetches int // of the key set
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	is.rotate(t, "k1")
	is.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		is.fetches++
		var set struct {
			Keys []map[string]string `json:"keys"`
		}
		for kid, k := range is.keys {
			set.Keys = append(set.Keys, map[string]string{
				"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
				"x": b64(k.X), "y": b64(k.Y),
			})
		}
		json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(is.srv.Close)
	return is
}

func b64(n *big.Int) string {
	b := make([]byte, 32)
	return base64.RawURLEncoding.EncodeToString(n.FillBytes(b))
}

// rotate publishes a new key kid.
func (is *issuer) rotate(t *testing.T, kid string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
}

func (is *issuer) sign(t *testing.T, kid string, claims jwt.MapClaims) string {
	is.mu.Lock()
	k := is.keys[kid]
	is.mu.Unlock()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func goodClaims() jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": "https://issuer.test", "aud": "mcpbridge", "sub": "bob", "groups": []string{"eng"},
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
}

// authenticator checks JWTs against the issuer's key set, fetched over
// HTTPS, until the test ends.
func (is *issuer) authenticator(t *testing.T) *Authenticator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := New(ctx, Config{JWT: &JWTConfig{JWKSURL: is.srv.URL + "/jwks.json", HTTPClient: is.srv.Client(),
		Issuer: "https://issuer.test", Audience: "mcpbridge"}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestJWT checks tokens against a key set served over HTTPS: a valid one
// passes, with its subject and groups; expired, not yet valid, wrong
// audience or issuer, another key, alg none and HS256 are refused; a
// rotated key is found.
func TestJWT(t *testing.T) {
	is := newIssuer(t)
	a := is.authenticator(t)
	p, err := a.Authenticate(bearerCtx(is.sign(t, "k1", goodClaims())))
	if err != nil || p.Name != "bob" || p.Method != "jwt" || len(p.Groups) != 1 || p.Groups[0] != "eng" {
		t.Fatalf("a valid token = %+v, %v", p, err)
	}
	stranger := newIssuer(t) // same kid, another key
	with := func(change func(jwt.MapClaims)) jwt.MapClaims {
		c := goodClaims()
		change(c)
		return c
	}
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, goodClaims()).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, goodClaims()).SignedString([]byte("a shared secret"))
	for name, token := range map[string]string{
		"expired":        is.sign(t, "k1", with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() })),
		"no expiry":      is.sign(t, "k1", with(func(c jwt.MapClaims) { delete(c, "exp") })),
		"not yet valid":  is.sign(t, "k1", with(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() })),
		"wrong audience": is.sign(t, "k1", with(func(c jwt.MapClaims) { c["aud"] = "another" })),
		"wrong issuer":   is.sign(t, "k1", with(func(c jwt.MapClaims) { c["iss"] = "https://evil.test" })),
		"no subject":     is.sign(t, "k1", with(func(c jwt.MapClaims) { delete(c, "sub") })),
		"wrong key":      stranger.sign(t, "k1", goodClaims()),
		"alg none":       none,
		"HS256":          hs,
		"garbage":        "a.b.c",
	} {
		if p, err := a.Authenticate(bearerCtx(token)); err != ErrUnauthenticated {
			t.Errorf("%s: Authenticate = %+v, %v; want ErrUnauthenticated", name, p, err)
		}
	}
	// Within the leeway, a just-expired token still passes.
	late := is.sign(t, "k1", with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() }))
	if _, err := a.Authenticate(bearerCtx(late)); err != nil {
		t.Errorf("a token expired 10 s ago (leeway 30 s) = %v", err)
	}
	// Rotation: a token signed with a key published after the first fetch
	// makes the bridge fetch the set again.
	is.rotate(t, "k2")
	if p, err := a.Authenticate(bearerCtx(is.sign(t, "k2", goodClaims()))); err != nil || p.Name != "bob" {
		t.Errorf("a token of the rotated key = %+v, %v", p, err)
	}
}

// TestJWTUnknownKeyDoesNotWait: a token that names a key id the set
// lacks makes the set be fetched again once; another such token before a
// fetch is allowed again (once a minute) is refused at once, without
// waiting for that fetch. Authentication runs on a connection's reader
// goroutine, which must not be held for a minute.
func TestJWTUnknownKeyDoesNotWait(t *testing.T) {
	is := newIssuer(t)
	a := is.authenticator(t)
	stranger := newIssuer(t)
	stranger.rotate(t, "unknown-1")
	stranger.rotate(t, "unknown-2")
	fetches := func() int {
		is.mu.Lock()
		defer is.mu.Unlock()
		return is.fetches
	}
	start := fetches()
	if _, err := a.Authenticate(bearerCtx(stranger.sign(t, "unknown-1", goodClaims()))); err != ErrUnauthenticated {
		t.Fatalf("a token of an unknown key = %v, want ErrUnauthenticated", err)
	}
	if got := fetches(); got != start+1 {
		t.Fatalf("key set fetches after a token of an unknown key = %d, want %d", got, start+1)
	}
	// Before the fix it waited a minute for the next fetch allowance; the
	// bound is half that.
	second := make(chan error, 1)
	go func() {
		_, err := a.Authenticate(bearerCtx(stranger.sign(t, "unknown-2", goodClaims())))
		second <- err
	}()
	select {
	case err := <-second:
		if err != ErrUnauthenticated {
			t.Fatalf("a second token of an unknown key = %v, want ErrUnauthenticated", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a second token of an unknown key is still waiting after 30 s, for the next fetch allowance")
	}
	if got := fetches(); got != start+1 {
		t.Errorf("key set fetches after a second token of an unknown key = %d, want still %d", got, start+1)
	}
}

func TestJWKSFile(t *testing.T) {
	is := newIssuer(t)
	resp, err := is.srv.Client().Get(is.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	json.NewDecoder(resp.Body).Decode(&raw)
	path := filepath.Join(t.TempDir(), "jwks.json")
	os.WriteFile(path, raw, 0o600)
	a, err := New(context.Background(), Config{JWT: &JWTConfig{JWKSFile: path, Issuer: "https://issuer.test", Audience: "mcpbridge"}})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := a.Authenticate(bearerCtx(is.sign(t, "k1", goodClaims()))); err != nil || p.Name != "bob" {
		t.Errorf("Authenticate = %+v, %v", p, err)
	}
	if _, err := New(context.Background(), Config{JWT: &JWTConfig{JWKSURL: "http://plain.test/jwks", Issuer: "i", Audience: "a"}}); err == nil ||
		!strings.Contains(err.Error(), "https") {
		t.Errorf("New with an http JWKS URL = %v, want a refusal", err)
	}
}

func TestRules(t *testing.T) {
	rules := Rules{
		{Principals: []string{"alice"}, Servers: []string{"*"}, Tools: []string{"*"}, Resources: []string{"*"}, Prompts: []string{"*"}},
		{Groups: []string{"eng"}, Servers: []string{"files"}, Tools: []string{"read_*"}, Resources: []string{"file:///pub/*"}},
		{Claims: map[string]string{"tier": "gold"}, Servers: []string{"search"}, Tools: []string{"query"}},
	}
	if err := rules.Check(); err != nil {
		t.Fatal(err)
	}
	alice := &Principal{Name: "alice", Method: "apikey"}
	bob := &Principal{Name: "bob", Method: "apikey", Groups: []string{"eng"}}
	carol := &Principal{Name: "carol", Claims: jwt.MapClaims{"tier": "gold"}}
	for _, c := range []struct {
		p      *Principal
		server string
		kind   Kind
		name   string
		want   bool
	}{
		{alice, "files", Tool, "delete_all", true},
		{bob, "files", Tool, "read_file", true},
		{bob, "files", Tool, "delete_all", false},
		{bob, "files", Resource, "file:///pub/a", true},
		{bob, "files", Resource, "file:///etc/passwd", false},
		{alice, "files", Resource, "file:///etc/passwd", true},
		{alice, "files", Prompt, "any", true},
		{bob, "files", Prompt, "any", false},    // no prompt list: no prompt
		{carol, "search", Resource, "x", false}, // no resource list: no resource
		{carol, "search", Server, "", true},     // but the server itself
		{bob, "search", Server, "", false},
		{bob, "files", Server, "", true},
		{carol, "search", Tool, "query", true},
		{carol, "search", Tool, "admin", false},
		{nil, "files", Server, "", false},
	} {
		if got := rules.Allow(c.p, c.server, c.kind, c.name); got != c.want {
			t.Errorf("Allow(%v, %s, %d, %q) = %v, want %v", c.p, c.server, c.kind, c.name, got, c.want)
		}
	}
	if !Rules(nil).Allow(nil, "x", Tool, "y") {
		t.Error("no rules must allow everything")
	}
	if err := (Rules{{Servers: []string{"*"}}}).Check(); err == nil {
		t.Error("a rule for nobody passed Check")
	}
}

// TestResourceURIs: resource patterns see the URI as a child that decodes
// it sees it: an escaped "..", "/" or NUL does not slip past a pattern.
func TestResourceURIs(t *testing.T) {
	bob := &Principal{Name: "bob", Method: "apikey"}
	rules := Rules{{Principals: []string{"bob"}, Servers: []string{"demo"}, Resources: []string{"demo://greeting/*", "file:///pub/*"}},
		{Principals: []string{"bob"}, Servers: []string{"any"}, Resources: []string{"*"}}}
	for _, c := range []struct {
		uri  string
		want bool
	}{
		{"demo://greeting/bob", true},
		{"demo://greeting/..%2fcounter", false}, // a child's {name} is ../counter
		{"demo://greeting/%2e%2e/counter", false},
		{"demo://greeting/%2E%2E%2Fcounter", false},
		{"demo://greeting/a/..%2fbob", true}, // demo://greeting/bob
		{"demo://greeting/a%2fb", false},     // two segments once decoded
		{"demo://greeting/bob%00", false},
		{"demo://greeting/bob?x=%00", false},
		{"demo://greeting/bo%zzb", false}, // a malformed escape
		{"demo://greeting/bob%", false},
		{"demo://gre%65ting/bob", true},
		{"demo://greeting%2f..%2fcounter/x", false},
		{"demo://counter", false},
		{"file:///pub/a", true},
		{"file:///pub/..%2fetc%2fpasswd", false},
		{"file:///pub/%2e%2e/%2e%2e/etc/passwd", false},
		{"file:///pub//..", false}, // a file system takes // as /: this is file:///
		{"file:///pub/x/..%2fy", true},
	} {
		if got := rules.Allow(bob, "demo", Resource, c.uri); got != c.want {
			norm, ok := resourceURI(c.uri)
			t.Errorf("Allow(%q) = %v, want %v (normalised %q, %v)", c.uri, got, c.want, norm, ok)
		}
	}
	// "*" admits every resource, but not one no rule may allow.
	for uri, want := range map[string]bool{"demo://anything/at/all": true, "demo://x/%00": false, "demo://x/..%2f..%2fy": false, "demo://x/%zz": false} {
		if got := rules.Allow(bob, "any", Resource, uri); got != want {
			t.Errorf("Allow(%q) under \"*\" = %v, want %v", uri, got, want)
		}
	}
	for in, want := range map[string]string{
		"demo://greeting/a/./b/../c": "demo://greeting/a/c",
		"file:///a//b/":              "file:///a/b/",
		"urn:x:a/./b":                "urn:x:a/b",
		"demo://h/a%20b?q=%2e%2e#f":  "demo://h/a b?q=%2e%2e#f",
		"mailto:bob@example.com":     "mailto:bob@example.com",
	} {
		if got, ok := resourceURI(in); !ok || got != want {
			t.Errorf("resourceURI(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestPrincipalsByMethod: a rule's principal is an ID, method and name,
// so that a JWT whose subject is an API key's principal, or a
// certificate with that common name, is not that principal. A bare name is
// an API key's; "*" is anyone authenticated.
func TestPrincipalsByMethod(t *testing.T) {
	rules := Rules{
		{Principals: []string{"bob"}, Servers: []string{"keys"}},
		{Principals: []string{"jwt:bob"}, Servers: []string{"jwts"}},
		{Principals: []string{"mtls:bob", "apikey:carol"}, Servers: []string{"certs"}},
		{Principals: []string{"*"}, Servers: []string{"open"}},
	}
	if err := rules.Check(); err != nil {
		t.Fatal(err)
	}
	key := &Principal{Name: "bob", Method: "apikey"}
	tok := &Principal{Name: "bob", Method: "jwt"}
	cert := &Principal{Name: "bob", Method: "mtls"}
	carol := &Principal{Name: "carol", Method: "apikey"}
	for _, c := range []struct {
		p      *Principal
		server string
		want   bool
	}{
		{key, "keys", true},
		{tok, "keys", false}, // a JWT with sub bob is not the API key's bob
		{cert, "keys", false},
		{tok, "jwts", true},
		{key, "jwts", false},
		{cert, "jwts", false},
		{cert, "certs", true},
		{tok, "certs", false},
		{carol, "certs", true},
		{key, "open", true},
		{tok, "open", true},
		{cert, "open", true},
		{nil, "open", false},
	} {
		if got := rules.Allow(c.p, c.server, Server, ""); got != c.want {
			t.Errorf("Allow(%s, %s) = %v, want %v", c.p.ID(), c.server, got, c.want)
		}
	}
	if key.ID() != "apikey:bob" || tok.ID() != "jwt:bob" || cert.ID() != "mtls:bob" {
		t.Errorf("IDs = %s, %s, %s", key.ID(), tok.ID(), cert.ID())
	}
	// A qualified name with an unknown method is a mistake, not a name.
	for _, who := range []string{"jtw:bob", "ci:bot", "jwt:"} {
		if err := (Rules{{Principals: []string{who}, Servers: []string{"*"}}}).Check(); err == nil {
			t.Errorf("Check accepted the principal %q", who)
		}
	}
}

// TestExpires: a principal says until when its credential holds: a JWT's
// exp plus the leeway, a client certificate's NotAfter, never for an API
// key.
func TestExpires(t *testing.T) {
	is := newIssuer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := New(ctx, Config{APIKeys: []APIKey{{Principal: "alice", SHA256: HashKey("s3cret-key-of-alice")}}, MTLS: true,
		JWT: &JWTConfig{JWKSURL: is.srv.URL + "/jwks.json", HTTPClient: is.srv.Client(), Issuer: "https://issuer.test", Audience: "mcpbridge"}})
	if err != nil {
		t.Fatal(err)
	}
	claims := goodClaims()
	exp := time.Unix(claims["exp"].(int64), 0).Add(30 * time.Second) // the default leeway
	token := is.sign(t, "k1", claims)
	for range 2 { // verified, then from the cache
		if p, err := a.Authenticate(bearerCtx(token)); err != nil || !p.Expires.Equal(exp) {
			t.Errorf("the JWT's principal = %+v, %v; want Expires %v", p, err, exp)
		}
	}
	if p, err := a.Authenticate(bearerCtx("s3cret-key-of-alice")); err != nil || !p.Expires.IsZero() {
		t.Errorf("the API key's principal = %+v, %v; want no Expires", p, err)
	}
	notAfter := time.Now().Add(48 * time.Hour).Truncate(time.Second)
	leaf := &x509.Certificate{Subject: pkix.Name{CommonName: "carol"}, NotAfter: notAfter}
	tlsCtx := peer.NewContext(context.Background(), &peer.Peer{AuthInfo: credentials.TLSInfo{
		State: tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{leaf}}}}})
	if p, err := a.Authenticate(tlsCtx); err != nil || p.ID() != "mtls:carol" || !p.Expires.Equal(notAfter) {
		t.Errorf("the certificate's principal = %+v, %v; want mtls:carol until %v", p, err, notAfter)
	}
}

// FuzzBearer feeds arbitrary bearer tokens to the API key and JWT paths:
// nothing panics, and nothing but a valid key or a valid JWT passes.
func FuzzBearer(f *testing.F) {
	f.Add("s3cret")
	f.Add("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.e30.AAAA")
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	jwk, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "r1", "alg": "RS256", "use": "sig",
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()), "e": "AQAB"}}})
	path := filepath.Join(f.TempDir(), "jwks.json")
	os.WriteFile(path, jwk, 0o600)
	a, err := New(context.Background(), Config{APIKeys: []APIKey{{Principal: "k", SHA256: HashKey("s3cret")}},
		JWT: &JWTConfig{JWKSFile: path, Issuer: "i", Audience: "a"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		// Only the key passes: no token here is signed by the set's key.
		if p, err := a.bearer(token); (err == nil) != (token == "s3cret") {
			t.Fatalf("bearer(%q) = %+v, %v", token, p, err)
		}
	})
}

// BenchmarkAuthenticate is the CPU one credential check costs, apart from
// gRPC: an API key (a SHA-256 and a map lookup) against an ES256 JWT, on
// its first use (a signature verification and the claims) and later (the
// cache of verified tokens). Reproduce with
//
//	go test -run '^$' -bench Authenticate -count 3 ./bridge/access/
func BenchmarkAuthenticate(b *testing.B) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
		"use": "sig", "x": b64(key.X), "y": b64(key.Y)}}})
	path := filepath.Join(b.TempDir(), "jwks.json")
	os.WriteFile(path, raw, 0o600)
	a, err := New(context.Background(), Config{APIKeys: []APIKey{{Principal: "k", SHA256: HashKey("bench-api-key-0123456789")}},
		JWT: &JWTConfig{JWKSFile: path, Issuer: "https://issuer.test", Audience: "mcpbridge"}})
	if err != nil {
		b.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, goodClaims())
	tok.Header["kid"] = "k1"
	token, _ := tok.SignedString(key)
	for _, c := range []struct {
		name, cred string
		fresh      bool // every check verifies the signature
	}{{"apikey", "bench-api-key-0123456789", false}, {"jwt/first-use", token, true}, {"jwt/cached", token, false}} {
		ctx := bearerCtx(c.cred)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.fresh {
					a.mu.Lock()
					clear(a.verified)
					a.mu.Unlock()
				}
				if _, err := a.Authenticate(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
