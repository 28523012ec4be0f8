package tunnel

import (
	"encoding/json"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// The tunnel's end-to-end tests, with real children and a real gRPC
// server, are package bridge's TestConnect*; these are the pieces that
// need neither.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestTakeProgressToken: the client's progress token leaves the params
// (the stdio client mints its own) and comes back with its JSON type; a
// token that is neither a string nor an integer is refused.
func TestTakeProgressToken(t *testing.T) {
	for _, c := range []struct{ in, params, token string }{
		{`{"name":"x","_meta":{"progressToken":7,"k":1}}`, `{"name":"x","_meta":{"k":1}}`, `7`},
		{`{"name":"x","_meta":{"progressToken":"t-1"}}`, `{"name":"x","_meta":{}}`, `"t-1"`},
		{`{"name":"x"}`, `{"name":"x"}`, ``},
	} {
		meta, _ := rawjson.Member(json.RawMessage(c.in), "_meta")
		params, token, err := takeProgressToken(json.RawMessage(c.in), meta)
		if err != nil || string(params) != c.params || string(token) != c.token {
			t.Errorf("takeProgressToken(%s) = %s, %s, %v; want %s, %s", c.in, params, token, err, c.params, c.token)
		}
	}
	_, _, err := takeProgressToken(json.RawMessage(`{"_meta":{"progressToken":{"a":1}}}`), json.RawMessage(`{"progressToken":{"a":1}}`))
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("an object as a progress token: %v, want -32602", err)
	}
}

// TestInitializeResult: a 2025 client's initialize is answered from what
// the bridge learnt of the child, at the client's version.
func TestInitializeResult(t *testing.T) {
	got := initializeResult("2025-11-25", json.RawMessage(`{"tools":{}}`), json.RawMessage(`{"name":"s","version":"1"}`), "use it")
	want := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"instructions":"use it"}`
	if string(got) != want {
		t.Errorf("initializeResult = %s, want %s", got, want)
	}
	if got := initializeResult("2025-06-18", nil, nil, ""); string(got) != `{"protocolVersion":"2025-06-18","capabilities":{}}` {
		t.Errorf("initializeResult with nothing learnt = %s", got)
	}
}
