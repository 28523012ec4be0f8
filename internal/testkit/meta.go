package testkit

import (
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// ModernMeta is the _meta a 2026-07-28 request carries: the protocol
// version, client capabilities {} and the client info stdio.Connect sends
// by default, so that a request sent as raw JSON-RPC (through a Connect
// tunnel, which passes the client's _meta unchanged) is the request a
// connected stdio.Client would have sent.
const ModernMeta = `{"` + protocol.MetaProtocolVersion + `":"2026-07-28","` + protocol.MetaClientCapabilities + `":{},"` +
	protocol.MetaClientInfo + `":{"name":"mcpbridge","version":"dev"}}`

// WithModernMeta returns the JSON object params (empty: {}) with
// ModernMeta as its _meta.
func WithModernMeta(params string) string {
	if params == "" {
		params = "{}"
	}
	out, err := rawjson.SetMember(json.RawMessage(params), "_meta", json.RawMessage(ModernMeta))
	if err != nil {
		panic("testkit.WithModernMeta: " + err.Error())
	}
	return string(out)
}
