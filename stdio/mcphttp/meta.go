package mcphttp

import (
	"encoding/json"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

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
	return hasMeta(params, protocol.MetaProtocolVersion)
}

// sharedCanCarry reports whether the connected Client would send the
// request unchanged: its _meta already holds every key the Client stamps,
// with the version it is connected at, and its method is not one it
// refuses.
func sharedCanCarry(method string, params json.RawMessage) bool {
	if slices.Contains(protocol.LegacyOnly, method) {
		return false
	}
	v, ok := metaString(params, protocol.MetaProtocolVersion)
	return ok && v == protocol.Version20260728 &&
		hasMeta(params, protocol.MetaClientCapabilities) && hasMeta(params, protocol.MetaClientInfo)
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
