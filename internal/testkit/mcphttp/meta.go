package mcphttp

import (
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// metaLogLevel is the 2026 _meta key that opts a request into logs.
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// removedIn2026 are the methods a Client connected at 2026-07-28 refuses
// locally (package stdio's doc comment, "methods that exist only in the
// other era"). Requests for them go to the verbatim child, so that the
// server, not the Client, answers.
var removedIn2026 = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"tasks/result": true, "tasks/list": true,
}

// meta returns params._meta when it is an object.
func meta(params json.RawMessage) (json.RawMessage, bool) {
	m, ok := rawjson.Member(params, "_meta")
	if !ok || !rawjson.IsObject(m) {
		return nil, false
	}
	return m, true
}

// metaString returns the string value of params._meta[key].
func metaString(params json.RawMessage, key string) (string, bool) {
	m, ok := meta(params)
	if !ok {
		return "", false
	}
	raw, ok := rawjson.Member(m, key)
	if !ok {
		return "", false
	}
	return rawjson.StringValue(raw)
}

func hasMeta(params json.RawMessage, key string) bool {
	m, ok := meta(params)
	if !ok {
		return false
	}
	_, ok = rawjson.Member(m, key)
	return ok
}

// hasModernVersion reports whether params carry a 2026-style protocol
// version in _meta, whatever its value: such a request is stateless, even
// an initialize.
func hasModernVersion(params json.RawMessage) bool {
	return hasMeta(params, stdio.MetaProtocolVersion)
}

// sharedCanCarry reports whether the connected Client would send the
// request unchanged: its _meta already holds every key the Client stamps,
// with the version it is connected at, and its method is not one it
// refuses.
func sharedCanCarry(method string, params json.RawMessage) bool {
	if removedIn2026[method] {
		return false
	}
	v, ok := metaString(params, stdio.MetaProtocolVersion)
	return ok && v == stdio.Version20260728 &&
		hasMeta(params, stdio.MetaClientCapabilities) && hasMeta(params, stdio.MetaClientInfo)
}

// progressToken returns params._meta.progressToken when it is a valid
// token (a string or an integer).
func progressToken(params json.RawMessage) (json.RawMessage, bool) {
	m, ok := meta(params)
	if !ok {
		return nil, false
	}
	token, ok := rawjson.Member(m, "progressToken")
	if !ok || !wire.ValidID(token) {
		return nil, false
	}
	return token, true
}

// setMeta returns params with _meta[key] set to value, every other member
// kept byte for byte; params that are not an object come back unchanged.
func setMeta(params json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	m, _ := meta(params) // nil, taken as {}, when there is none
	m, err := rawjson.SetMember(m, key, value)
	if err != nil {
		return params
	}
	out, err := rawjson.SetMember(params, "_meta", m)
	if err != nil {
		return params
	}
	return out
}
