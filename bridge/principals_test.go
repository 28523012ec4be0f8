package bridge

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// notifyLog is the streams fixture's notify tool making the child log
// data, unsolicited.
func notifyLog(data string) *mcpbridgev1.CallToolRequest {
	return &mcpbridgev1.CallToolRequest{Server: "s", Name: "notify", Arguments: argsStruct(
		`{"method":"notifications/message","params":{"level":"info","logger":"fixture","data":"` + data + `"}}`)}
}

// TestLogsStayWithTheirPrincipal: on a shared legacy child, bob's
// Subscribe with a log level and bob's tunnel after its logging/setLevel
// get the logs of bob's calls and never those of alice's.
func TestLogsStayWithTheirPrincipal(t *testing.T) {
	t.Parallel()
	b := startSecureBridge(t, Config{Servers: []ServerConfig{streamsFixtureServer(t, "s", "legacy")}})
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	sub, err := b.bc.Subscribe(bob, &mcpbridgev1.SubscribeRequest{Server: "s", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := sub.Recv(); err != nil || ack.GetAcknowledged() == nil {
		t.Fatalf("bob's Subscribe = %v, %v", ack, err)
	}
	tun := openTunnel(bob, t, b.bc, "s")
	tun.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`)
	tun.response(`"lvl"`, nil)

	if _, err := b.bc.CallTool(alice, notifyLog("alice-secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.bc.CallTool(bob, notifyLog("bob-own")); err != nil {
		t.Fatal(err)
	}
	// The child's stdout is one ordered stream, and each reader's queue
	// keeps its order: had alice's log reached bob, it would come before
	// his own.
	for {
		msg, err := sub.Recv()
		if err != nil {
			t.Fatalf("bob's Subscribe ended before his own log: %v", err)
		}
		data := msg.GetLog().GetData().GetStringValue()
		if data == "alice-secret" {
			t.Fatal("alice's log reached bob's Subscribe stream")
		}
		if data == "bob-own" {
			break
		}
	}
	for {
		m, text := tun.recv()
		if m.Kind != wire.KindNotification || m.Method != "notifications/message" {
			continue
		}
		if strings.Contains(text, "alice-secret") {
			t.Fatal("alice's log reached bob's tunnel")
		}
		if strings.Contains(text, "bob-own") {
			break
		}
	}
}

// TestLevelFollowsTheCallersInFlight: a legacy child that logs only once
// told a level (the Go SDK server) logs at bob's level during bob's calls
// and not during alice's, who asked for no logs: the bytes the child
// writes during alice's call are the same before and after bob's reader
// appeared.
func TestLevelFollowsTheCallersInFlight(t *testing.T) {
	t.Parallel()
	b := startSecureBridge(t, Config{Servers: []ServerConfig{goSDKServer(t, "g", protocol.Version20251125)}})
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	tool := &mcpbridgev1.CallToolRequest{Server: "g", Name: "test_tool_with_logging", Arguments: argsStruct(`{}`)}
	received := func() int64 { return b.svc.serverSet()["g"].Children()[0].Counters().BytesIn.Load() }
	alicesCall := func() int64 {
		t.Helper()
		before := received()
		if _, err := b.bc.CallTool(alice, tool); err != nil {
			t.Fatal(err)
		}
		return received() - before
	}
	alicesCall()
	quiet := alicesCall()

	sub, err := b.bc.Subscribe(bob, &mcpbridgev1.SubscribeRequest{Server: "g", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := sub.Recv(); err != nil || ack.GetAcknowledged() == nil {
		t.Fatalf("bob's Subscribe = %v, %v", ack, err)
	}
	if _, err := b.bc.CallTool(bob, tool); err != nil {
		t.Fatal(err)
	}
	if msg, err := sub.Recv(); err != nil || msg.GetLog() == nil {
		t.Fatalf("bob's Subscribe after his logging call = %v, %v; want his call's log", msg, err)
	}
	// One logging/setLevel answer may come with alice's call (the child
	// is lowered for her); each of the tool's three log lines is longer
	// than 100 bytes.
	if during := alicesCall(); during > quiet+100 {
		t.Errorf("the child wrote %d bytes during alice's call with bob's reader open, %d without: it logged for bob during alice's call", during, quiet)
	}
}

// TestRevokedKeyEndsStreams: a reload that removes bob's key ends his
// open Subscribe and tunnel with UNAUTHENTICATED; alice's go on.
func TestRevokedKeyEndsStreams(t *testing.T) {
	t.Parallel()
	cfg := Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared)}}
	b := startSecureBridge(t, cfg)
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	subscribe := func(who context.Context) func() error {
		sub, err := b.bc.Subscribe(who, &mcpbridgev1.SubscribeRequest{Server: "p"})
		if err == nil {
			_, err = sub.Recv()
		}
		if err != nil {
			t.Fatal(err)
		}
		return func() error { _, err := sub.Recv(); return err }
	}
	bobsSub := subscribe(bob)
	subscribe(alice)
	tun := openTunnel(bob, t, b.bc, "p")
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"pid"}`) + `}`)
	if m, text := tun.response("1", nil); m.HasError() {
		t.Fatalf("bob's tunnel before the reload: %s", text)
	}

	onlyAlice, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{{Principal: "alice", SHA256: access.HashKey(aliceKey)}}})
	if err != nil {
		t.Fatal(err)
	}
	next := b.svc.cfg
	next.Servers = append([]ServerConfig(nil), b.svc.cfg.Servers...)
	next.Auth = onlyAlice
	if err := b.svc.Reload(next); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "bob's Subscribe after his key was removed", bobsSub(), codes.Unauthenticated)
	for {
		if _, err := tun.st.Recv(); err != nil {
			wantCode(t, "bob's tunnel after his key was removed", err, codes.Unauthenticated)
			break
		}
	}
	_, err = b.bc.ListTools(bob, &mcpbridgev1.ListToolsRequest{Server: "p"})
	wantCode(t, "bob's new call", err, codes.Unauthenticated)
	if _, err := b.bc.ListTools(alice, &mcpbridgev1.ListToolsRequest{Server: "p"}); err != nil {
		t.Errorf("alice's call after the reload = %v", err)
	}
	// alice's Subscribe is still open: the child has one subscriber (bob's
	// handler left before his stream's status was sent).
	if n := b.svc.serverSet()["p"].Children()[0].Status().Child.Subscribers.Load(); n != 1 {
		t.Errorf("%d Subscribe streams on the child after bob's ended, want alice's alone", n)
	}
}

// TestExpiredTokenEndsStream: a Subscribe opened with a JWT ends
// UNAUTHENTICATED once the token expires.
func TestExpiredTokenEndsStream(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	coord := func(n *big.Int) string { return base64.RawURLEncoding.EncodeToString(n.FillBytes(make([]byte, 32))) }
	raw, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
		"use": "sig", "x": coord(key.X), "y": coord(key.Y)}}})
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	// A token's end is its exp plus the leeway: a short one here.
	a, err := access.New(context.Background(), access.Config{JWT: &access.JWTConfig{JWKSFile: jwks, Issuer: "i", Audience: "a", Leeway: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared)}, Logger: slog.New(slog.DiscardHandler), Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	bc := mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, svc.NewGRPCServer()))
	mint := func(life time.Duration) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "i", "aud": "a", "sub": "carol",
			"iat": time.Now().Unix(), "exp": time.Now().Add(life).Unix()})
		tok.Header["kid"] = "k1"
		token, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	// The child ready first, with a token that outlives its start on a
	// loaded machine: the short-lived token's two seconds are then the
	// Subscribe's alone.
	warm := metadata.AppendToOutgoingContext(testCtx(t), "authorization", "Bearer "+mint(time.Minute))
	if _, err := bc.Ping(warm, &mcpbridgev1.PingRequest{Server: "p"}); err != nil {
		t.Fatal(err)
	}
	ctx := metadata.AppendToOutgoingContext(testCtx(t), "authorization", "Bearer "+mint(2*time.Second))
	sub, err := bc.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "p"})
	if err == nil {
		_, err = sub.Recv()
	}
	if err != nil {
		t.Fatalf("Subscribe with a fresh token = %v", err)
	}
	_, err = sub.Recv() // nothing arrives until the token expires
	wantCode(t, "Subscribe after the token expired", err, codes.Unauthenticated)
}
