package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// OAuthIssuer is an OAuth authorization server as a resource server sees
// it: its metadata (RFC 8414's well-known URI, or with OIDC only OpenID
// Connect discovery's) and its key set, on plain HTTP on loopback, and
// access tokens signed with its current ES256 key. It is for the own tests
// of the packages that check tokens; the real authorization server
// (npm's oidc-provider, testdata/peers/authserver.mjs) is cmd/mcpbridge's.
type OAuthIssuer struct {
	// URL is the issuer identifier, the server's root.
	URL string
	// ClaimIssuer, when set, is the issuer the metadata names instead of
	// URL (an authorization server mix-up).
	ClaimIssuer string

	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey
	current string
}

// NewOAuthIssuer serves an issuer until the test ends.
func NewOAuthIssuer(tb testing.TB, oidc bool) *OAuthIssuer {
	tb.Helper()
	o := &OAuthIssuer{keys: map[string]*ecdsa.PrivateKey{}}
	o.Rotate(tb)
	mux := http.NewServeMux()
	metadata := "/.well-known/oauth-authorization-server"
	if oidc {
		metadata = "/.well-known/openid-configuration"
	}
	mux.HandleFunc(metadata, func(w http.ResponseWriter, r *http.Request) {
		iss := o.URL
		if o.ClaimIssuer != "" {
			iss = o.ClaimIssuer
		}
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss, "jwks_uri": o.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		defer o.mu.Unlock()
		var set struct {
			Keys []map[string]string `json:"keys"`
		}
		for kid, k := range o.keys {
			set.Keys = append(set.Keys, map[string]string{"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
				"x": coordinate(k.X), "y": coordinate(k.Y)})
		}
		json.NewEncoder(w).Encode(set)
	})
	o.srv = httptest.NewServer(mux)
	o.URL = o.srv.URL
	tb.Cleanup(o.srv.Close)
	return o
}

func coordinate(n *big.Int) string {
	return base64.RawURLEncoding.EncodeToString(n.FillBytes(make([]byte, 32)))
}

// Rotate publishes a new key and signs with it from now on; it returns
// its key id.
func (o *OAuthIssuer) Rotate(tb testing.TB) string {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.current = "k" + strconv.Itoa(len(o.keys)+1)
	o.keys[o.current] = k
	return o.current
}

// Claims are an access token's claims for aud (a string or a list), of
// sub, with scope (space-separated), valid from now for ttl.
func (o *OAuthIssuer) Claims(aud any, sub, scope string, ttl time.Duration) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": o.URL, "aud": aud, "sub": sub, "scope": scope, "client_id": "host",
		"iat": now.Unix(), "exp": now.Add(ttl).Unix()}
}

// Sign signs claims with the current key.
func (o *OAuthIssuer) Sign(tb testing.TB, claims jwt.MapClaims) string {
	tb.Helper()
	o.mu.Lock()
	kid, k := o.current, o.keys[o.current]
	o.mu.Unlock()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(k)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
