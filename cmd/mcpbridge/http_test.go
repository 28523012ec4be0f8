package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

var httpListenRE = regexp.MustCompile(`http_listen=(\S+)`)

// httpAddr is the address of a bridge's --http-listen listener, from its
// log.
func httpAddr(t testing.TB, b *bridgeProcess) string {
	t.Helper()
	m := httpListenRE.FindStringSubmatch(b.log.String())
	if m == nil {
		t.Fatalf("no http_listen in the bridge's log:\n%s", b.log)
	}
	return m[1]
}

// postJSON makes a Connect unary call as curl does: a POST of JSON to the
// method's path, no other header.
func postJSON(t *testing.T, client *http.Client, url, body string, header ...string) (int, map[string]any, http.Header) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	res, err := client.Do(newJSONPost(t, ctx, url, body, header...))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: %d, not JSON: %q", url, res.StatusCode, raw)
	}
	return res.StatusCode, out, res.Header
}

// newJSONPost is a POST of the JSON body to url under ctx, with header
// ("Name", "value" pairs) set after Content-Type.
func newJSONPost(t *testing.T, ctx context.Context, url, body string, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// preflight sends the CORS preflight of a POST with Authorization from
// origin to url, and returns the response (its body closed).
func preflight(t *testing.T, client *http.Client, url, origin string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodOptions, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// jsonPath reads a value out of decoded JSON: keys for objects, indexes
// for arrays.
func jsonPath(v any, path ...any) any {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[p]
		case int:
			a, _ := v.([]any)
			if p >= len(a) {
				return nil
			}
			v = a[p]
		}
	}
	return v
}

// The gRPC API over HTTP, as curl, a Connect client and a gRPC-Web client
// call it, through the same pipeline as gRPC: results, errors with their
// JsonRpcError, a server stream's progress; and no CORS unless asked.
func TestServeHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	// A bare :port is on loopback, as the flag's help says.
	b := startBridge(t, nil, "--http-listen", ":0", "--", mcpbridgeBin, "demo", "-tick", "0")
	addr := httpAddr(t, b)
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		t.Errorf("--http-listen :0 listens on %s, want 127.0.0.1", addr)
	}
	base := "http://" + addr
	method := base + "/mcpbridge.v1.BridgeService/"

	// curl: JSON in, JSON out.
	code, res, _ := postJSON(t, http.DefaultClient, method+"CallTool", `{"name":"echo","arguments":{"message":"hi"}}`)
	if got := jsonPath(res, "content", 0, "text", "text"); code != 200 || got != "hi" {
		t.Errorf("CallTool echo over Connect JSON = %d %v; want 200 and the text hi", code, res)
	}
	// An error: the status as Connect's code and HTTP status, the child's
	// JSON-RPC error in the details.
	code, res, _ = postJSON(t, http.DefaultClient, method+"CallTool", `{"name":"no_such_tool"}`)
	var rpcErr map[string]any
	ds, _ := res["details"].([]any)
	for _, d := range ds {
		if jsonPath(d, "type") == "mcpbridge.v1.JsonRpcError" {
			rpcErr, _ = jsonPath(d, "debug").(map[string]any)
		}
	}
	if code != http.StatusBadRequest || res["code"] != "invalid_argument" || rpcErr["code"] != float64(-32602) {
		t.Errorf("CallTool of an unknown tool over Connect JSON = %d %v; want 400, invalid_argument and a JsonRpcError -32602", code, res)
	}

	args, err := structpb.NewStruct(map[string]any{"message": "over gRPC-Web"})
	if err != nil {
		t.Fatal(err)
	}
	// gRPC-Web, binary, as a browser's generated client sends it.
	web := connect.NewClient[mcpbridgev1.CallToolRequest, mcpbridgev1.CallToolResponse](http.DefaultClient, method+"CallTool", connect.WithGRPCWeb())
	got, err := web.CallUnary(ctx, connect.NewRequest(&mcpbridgev1.CallToolRequest{Name: "echo", Arguments: args}))
	if err != nil || got.Msg.GetContent()[0].GetText().GetText() != "over gRPC-Web" {
		t.Errorf("CallTool over gRPC-Web = %v, %v", got, err)
	}
	// A server stream over the Connect protocol: progress as it comes,
	// then the result.
	stream := connect.NewClient[mcpbridgev1.CallToolStreamRequest, mcpbridgev1.CallToolStreamResponse](http.DefaultClient, method+"CallToolStream", connect.WithProtoJSON())
	progressArgs, err := structpb.NewStruct(map[string]any{"seconds": 0.3, "steps": 3})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := stream.CallServerStream(ctx, connect.NewRequest(&mcpbridgev1.CallToolStreamRequest{Name: "progress", Arguments: progressArgs}))
	if err != nil {
		t.Fatal(err)
	}
	progress, result := 0, ""
	for ss.Receive() {
		switch {
		case ss.Msg().GetProgress() != nil:
			if result != "" {
				t.Error("progress after the result")
			}
			progress++
		case ss.Msg().GetResult() != nil:
			result = ss.Msg().GetResult().GetContent()[0].GetText().GetText()
		}
	}
	if err := ss.Err(); err != nil || progress != 3 || !strings.HasPrefix(result, "done") {
		t.Errorf("CallToolStream progress over Connect: %d progress messages, result %q, %v; want 3 and done…", progress, result, err)
	}
	ss.Close()

	// No CORS by default: a preflight gets no Access-Control-Allow-Origin,
	// so a page on another origin cannot call.
	if v := preflight(t, http.DefaultClient, method+"CallTool", "https://app.example").Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("preflight without --http-cors-origin: Access-Control-Allow-Origin %q, want none", v)
	}
}

// Over TLS the HTTP listener speaks HTTP/2 by ALPN and asks for the same
// credentials as gRPC (here an API key as a bearer token), and CORS lets
// the configured origin alone call, with Authorization.
func TestServeHTTPAuthAndCORS(t *testing.T) {
	f := newTLSFiles(t)
	key := "web-page-key-3b8e61f0c2d94a57"
	config := writeConfig(t, "", fmt.Sprintf(`http_listen: 127.0.0.1:0
http_cors_origins: [https://app.example]
auth:
  api_keys:
    - {principal: web, sha256: %s}
rules:
  - {principals: [web], servers: ["*"], tools: [echo]}
servers:
  - command: %s
`, access.HashKey(key), yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"})))
	b := startBridge(t, nil, append(f.args(), "--config", config)...)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: f.roots()}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "https://" + httpAddr(t, b) + "/mcpbridge.v1.BridgeService/CallTool"
	echo := `{"name":"echo","arguments":{"message":"hi"}}`

	if code, res, _ := postJSON(t, client, url, echo); code != http.StatusUnauthorized || res["code"] != "unauthenticated" {
		t.Errorf("CallTool without credentials = %d %v; want 401 unauthenticated", code, res)
	}
	if code, res, _ := postJSON(t, client, url, echo, "Authorization", "Bearer "+key+"x"); code != http.StatusUnauthorized {
		t.Errorf("CallTool with a wrong key = %d %v; want 401", code, res)
	}
	code, res, _ := postJSON(t, client, url, echo, "Authorization", "Bearer "+key)
	if jsonPath(res, "content", 0, "text", "text") != "hi" || code != 200 {
		t.Errorf("CallTool with the key = %d %v; want 200 and hi", code, res)
	}
	// The rules hold as over gRPC: the key may call echo only.
	if code, res, _ := postJSON(t, client, url, `{"name":"whoami"}`, "Authorization", "Bearer "+key); code != http.StatusForbidden || res["code"] != "permission_denied" {
		t.Errorf("CallTool whoami with the key = %d %v; want 403 permission_denied", code, res)
	}
	// HTTP/2 by ALPN.
	ok := preflight(t, client, url, "https://app.example")
	if ok.Proto != "HTTP/2.0" {
		t.Errorf("over TLS: %s, want HTTP/2.0", ok.Proto)
	}
	if ok.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(strings.ToLower(ok.Header.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("preflight from the configured origin: %v; want it allowed, with Authorization", ok.Header)
	}
	if v := preflight(t, client, url, "https://evil.example").Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("preflight from another origin: Access-Control-Allow-Origin %q, want none", v)
	}
}
