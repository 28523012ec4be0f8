package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// FuzzRequest feeds arbitrary input lines through server.Serve to the
// runtime: whatever arrives, Serve ends cleanly at EOF and every output
// line is one valid JSON-RPC message. Seeds are in testdata/fuzz.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		request(1, "server/discover", `{`+meta26+`}`),
		request(1, "tools/call", `{"name":"elicit",`+meta26All+`,"inputResponses":{"user_name":{"action":"accept"}},"requestState":"x"}`),
		request(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}`) + "\n" + request(2, "tools/call", `{"name":"elicit"}`),
		request(1, "subscriptions/listen", `{`+meta26+`,"notifications":{"toolsListChanged":true}}`),
		request("a", "resources/read", `{"uri":"test://template/{id}/data",`+meta26+`}`),
		request(1, "tools/list", `{"_meta":{`+v26+`,"io.modelcontextprotocol/clientCapabilities":{"extensions":{"a.b/c":{}}}},"cursor":"eA.AAAA"}`),
		request(1, "completion/complete", `{"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg1","value":"p"},`+meta26+`}`),
	} {
		f.Add([]byte(seed))
	}
	srv := newTestServer(f, mcp.Config{PageSize: 3})
	srv.RemoveTools("park") // it waits for a cancellation that EOF does not send
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		if err := server.Serve(context.Background(), srv, bytes.NewReader(input), &out, server.Config{}); err != nil {
			t.Fatalf("Serve = %v", err)
		}
		for line := range strings.Lines(out.String()) {
			m, err := wire.Decode([]byte(strings.TrimSuffix(line, "\n")))
			if err != nil || m.Kind == wire.KindInvalid {
				t.Fatalf("output line %q is not a JSON-RPC message: %v", line, err)
			}
			if m.Kind == wire.KindResponse && m.HasResult() && !rawjson.IsObject(m.Result) {
				t.Fatalf("result %s is not an object", m.Result)
			}
		}
	})
}

// metaKeyOracle is the _meta key grammar of the 2026-07-28 schema
// (MetaObject), written independently of the runtime's parser.
var metaKeyOracle = regexp.MustCompile(`^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// FuzzMetaKey sends a tools/list whose _meta carries key through the
// runtime: it must be refused with -32602 exactly when the key is outside
// the grammar.
func FuzzMetaKey(f *testing.F) {
	for _, seed := range []string{"", "a", "progressToken", "com.example/key", "com.example/", "io.modelcontextprotocol/x",
		"a.b-c.d9/n_a.m-e", "1a/b", "a-/b", "a..b/c", "/x", "x/", "a/b/c", "-x", "x-", "x.y", "_x", "a b", "é", "a.b/c.", "traceparent"} {
		f.Add(seed)
	}
	srv := newServer(f, "fuzz", mcp.Config{})
	srv.AddTool(mcp.Tool{Name: "t"}, noop)
	sess := srv.NewSession(nil)
	f.Cleanup(sess.Close)
	reserved := map[string]bool{"io.modelcontextprotocol/protocolVersion": true, "io.modelcontextprotocol/clientCapabilities": true,
		"io.modelcontextprotocol/clientInfo": true, "io.modelcontextprotocol/logLevel": true}
	f.Fuzz(func(t *testing.T, key string) {
		rawKey, _ := json.Marshal(key)
		var decoded string
		json.Unmarshal(rawKey, &decoded) // invalid UTF-8 became U+FFFD
		if reserved[decoded] {
			return
		}
		params := `{"_meta":{` + v26 + `,` + noCaps + `,` + string(rawKey) + `:1}}`
		_, err := sess.Handle(context.Background(), &seam.Request{ID: json.RawMessage(`1`), Method: "tools/list", Params: json.RawMessage(params)})
		valid := metaKeyOracle.MatchString(decoded)
		var rpc *jsonrpc.Error
		switch {
		case valid && err != nil:
			t.Fatalf("key %q is valid, but tools/list = %v", decoded, err)
		case !valid && (!errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams):
			t.Fatalf("key %q is invalid, but tools/list = %v, want -32602", decoded, err)
		}
	})
}
