package bridge

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkAuth compares, in one run, the same CallTool (the policy
// fixture's pid tool, a fast child) from 8 callers without
// authentication, with an API key, with a JWT (ES256, a JWKS file), and,
// over TLS, without and with a client certificate as the credential
// (mTLS), each with one authorization rule when authenticated. The
// difference between path=none and the others is what checking a
// credential costs per call (TLS's own cost is tls against none).
// Reproduce with
//
//	go test -run '^$' -bench 'Auth$' -benchtime 3s -count 3 ./bridge/
func BenchmarkAuth(b *testing.B) {
	key := "bench-key-0123456789abcdef0123456789"
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	jwks := filepath.Join(b.TempDir(), "jwks.json")
	coord := func(n *big.Int) string { return base64.RawURLEncoding.EncodeToString(n.FillBytes(make([]byte, 32))) }
	raw, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
		"use": "sig", "x": coord(ecKey.X), "y": coord(ecKey.Y)}}})
	os.WriteFile(jwks, raw, 0o600)
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "i", "aud": "a", "sub": "bench",
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	tok.Header["kid"] = "k1"
	token, err := tok.SignedString(ecKey)
	if err != nil {
		b.Fatal(err)
	}
	ca := testkit.NewCA(b, "bench CA")
	server, client := ca.Server(b, "127.0.0.1"), ca.Client(b, "bench")
	serverPair, _ := tls.X509KeyPair(server.CertPEM, server.KeyPEM)
	clientPair, _ := tls.X509KeyPair(client.CertPEM, client.KeyPEM)
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	rules := access.Rules{{Principals: []string{"bench", "jwt:bench", "mtls:bench"}, Servers: []string{"*"}, Tools: []string{"*"}}}

	for _, c := range []struct {
		name   string
		acfg   *access.Config
		bearer string
		tls    bool
		mtls   bool
	}{
		{"path=none", nil, "", false, false},
		{"path=apikey", &access.Config{APIKeys: []access.APIKey{{Principal: "bench", SHA256: access.HashKey(key)}}}, key, false, false},
		{"path=jwt", &access.Config{JWT: &access.JWTConfig{JWKSFile: jwks, Issuer: "i", Audience: "a"}}, token, false, false},
		{"path=tls", nil, "", true, false},
		{"path=mtls", &access.Config{MTLS: true}, "", true, true},
	} {
		b.Run(c.name+"/callers=8", func(b *testing.B) {
			cfg := Config{Servers: []ServerConfig{fixtureServer(b, "", "policy")}, Logger: slog.New(slog.DiscardHandler)}
			if c.acfg != nil {
				a, err := access.New(context.Background(), *c.acfg)
				if err != nil {
					b.Fatal(err)
				}
				cfg.Auth, cfg.Rules = a, rules
			}
			svc, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { svc.Close() })
			var serverOpts []grpc.ServerOption
			clientCreds := insecure.NewCredentials()
			if c.tls {
				st := &tls.Config{Certificates: []tls.Certificate{serverPair}}
				ct := &tls.Config{RootCAs: roots}
				if c.mtls {
					st.ClientAuth, st.ClientCAs = tls.RequireAndVerifyClientCert, roots
					ct.Certificates = []tls.Certificate{clientPair}
				}
				serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(st)))
				clientCreds = credentials.NewTLS(ct)
			}
			gs := svc.NewGRPCServer(serverOpts...)
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			served := make(chan struct{})
			go func() { defer close(served); gs.Serve(lis) }()
			b.Cleanup(func() { gs.Stop(); <-served })
			conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(clientCreds))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { conn.Close() })
			bc := mcpbridgev1.NewBridgeServiceClient(conn)
			ctx := context.Background()
			if c.bearer != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.bearer)
			}
			req := &mcpbridgev1.CallToolRequest{Name: "pid"}
			call := func() error { _, err := bc.CallTool(ctx, req); return err }
			if err := call(); err != nil {
				b.Fatal(err)
			}
			runCallers(b, 8, call)
		})
	}
}
