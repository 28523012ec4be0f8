package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// jwksServer serves one ES256 key over HTTPS and signs tokens with it.
type jwksServer struct {
	key    *ecdsa.PrivateKey
	srv    *httptest.Server
	caFile string // the server's certificate, for auth.jwt.ca_file
}

func newJWKSServer(t *testing.T) *jwksServer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(n *big.Int) string { return base64.RawURLEncoding.EncodeToString(n.FillBytes(make([]byte, 32))) }
	j := &jwksServer{key: key}
	j.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig", "x": b64(key.X), "y": b64(key.Y)}}})
	}))
	t.Cleanup(j.srv.Close)
	j.caFile = filepath.Join(t.TempDir(), "jwks-ca.pem")
	pemCert := "-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString(j.srv.Certificate().Raw) + "\n-----END CERTIFICATE-----\n"
	os.WriteFile(j.caFile, []byte(pemCert), 0o600)
	return j
}

func (j *jwksServer) token(t *testing.T, sub string, exp time.Duration, aud string) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "https://issuer.test", "aud": aud, "sub": sub,
		"iat": time.Now().Unix(), "exp": time.Now().Add(exp).Unix()})
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(j.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServeAuthEndToEnd runs `mcpbridge serve --config` with TLS, mTLS,
// API keys and a JWKS served over HTTPS by the test, and drives it with
// grpcurl as a user would: each credential passes or fails as it should,
// the rules allow the echo tool to the key and the JWT and everything to
// alice's certificate, a JWT whose subject is the key's principal is not
// that principal, health needs no credential, and the audit log has the
// calls without their arguments.
func TestServeAuthEndToEnd(t *testing.T) {
	g := findGrpcurl(t)
	f := newTLSFiles(t)
	j := newJWKSServer(t)
	key := "ci-bot-key-5d1f0c3e9a7b4c2d8e6f"
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	config := writeConfig(t, "", fmt.Sprintf(`auth:
  api_keys:
    - {principal: ci-bot, sha256: %s}
  jwt: {jwks_url: %q, ca_file: %q, issuer: "https://issuer.test", audience: mcpbridge}
  mtls: true
rules:
  - {principals: [ci-bot, "jwt:bob"], servers: ["*"], tools: [echo]}
  - {principals: ["mtls:alice"], servers: ["*"], tools: ["*"], resources: ["*"], prompts: ["*"]}
audit: %s
servers:
  - command: %s
`, access.HashKey(key), j.srv.URL+"/jwks.json", j.caFile, audit, yamlList([]string{mcpbridgeBin, "demo"})))
	b := startBridge(t, nil, append(f.args(), "--client-ca", f.caFile, "--config", config)...)
	tlsArgs := []string{"-cacert", f.caFile}
	mtls := append(tlsArgs, "-cert", f.aliceCert, "-key", f.aliceKey)
	// A client certificate is required of every connection here; the
	// bearer credentials ride on one of the CA's certificates (bob's).
	bobCert := filepath.Join(t.TempDir(), "bob.pem")
	bobKey := filepath.Join(t.TempDir(), "bob-key.pem")
	f.ca.Client(t, "bob").Write(t, bobCert, bobKey)
	withBearer := func(token string) []string {
		return append(append([]string{}, tlsArgs...), "-cert", bobCert, "-key", bobKey, "-H", "authorization: Bearer "+token)
	}
	for _, c := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"API key", withBearer(key), true},
		{"a wrong API key", withBearer(key + "x"), false},
		{"a valid JWT", withBearer(j.token(t, "bob", time.Hour, "mcpbridge")), true},
		{"an expired JWT", withBearer(j.token(t, "carol", -time.Hour, "mcpbridge")), false},
		{"a JWT for another audience", withBearer(j.token(t, "carol", time.Hour, "another")), false},
		{"alice's certificate", mtls, true},
	} {
		echoed, stderr, code := g.echo(t, b.addr, "hi", c.args...)
		if ok := code == 0 && echoed == "hi"; ok != c.ok {
			t.Errorf("%s: CallTool echo = %q, exit %d, %s; want success %v", c.name, echoed, code, stderr, c.ok)
		}
		if !c.ok && !strings.Contains(stderr, "Unauthenticated") {
			t.Errorf("%s: %s, want Unauthenticated", c.name, stderr)
		}
	}
	// The rules: the key may call echo only; alice's certificate anything.
	_, stderr, code := g.run(t, append(withBearer(key), "-d", `{"name":"progress","arguments":{"seconds":0}}`, b.addr, "mcpbridge.v1.BridgeService/CallTool")...)
	if code == 0 || !strings.Contains(stderr, "PermissionDenied") {
		t.Errorf("ci-bot's CallTool progress = exit %d, %s; want PermissionDenied", code, stderr)
	}
	if _, stderr, code := g.run(t, append(mtls, "-d", `{"name":"progress","arguments":{"seconds":0}}`, b.addr, "mcpbridge.v1.BridgeService/CallTool")...); code != 0 {
		t.Errorf("alice's CallTool progress = exit %d, %s", code, stderr)
	}
	// A rule's bare name is an API key's principal: a JWT whose subject is
	// ci-bot authenticates, as jwt:ci-bot, and no rule allows it anything.
	if _, stderr, code := g.echo(t, b.addr, "hi", withBearer(j.token(t, "ci-bot", time.Hour, "mcpbridge"))...); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
		t.Errorf("a JWT with sub ci-bot: CallTool echo = exit %d, %s; want PermissionDenied", code, stderr)
	}
	// Health needs no credential (only the TLS client certificate the
	// listener asks of everyone).
	if out, stderr, code := g.run(t, append(append([]string{}, tlsArgs...), "-cert", bobCert, "-key", bobKey, b.addr, "grpc.health.v1.Health/Check")...); code != 0 || !strings.Contains(out, "SERVING") {
		t.Errorf("health without a credential = %q, exit %d, %s", out, code, stderr)
	}
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"method":"tools/call"`); n < 4 || !strings.Contains(string(data), `"principal":"bob","auth":"jwt"`) ||
		!strings.Contains(string(data), `"principal":"alice","auth":"mtls"`) || !strings.Contains(string(data), `"code":"PermissionDenied"`) {
		t.Errorf("audit log = %s; want the calls of ci-bot, bob (JWT) and alice and the denial", data)
	}
}
