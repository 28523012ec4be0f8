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

// metaView is what the adapter reads of a request's params._meta, read
// in one pass over params and one over _meta (each key's last value, as
// rawjson.Member has it), rather than once for each question.
type metaView struct {
	version    json.RawMessage // protocolVersion, nil when absent
	caps       bool            // clientCapabilities is present
	info       bool            // clientInfo is present
	logLevel   bool            // logLevel is present
	token      json.RawMessage // progressToken, nil when absent
	hasVersion bool
}

// readMeta reads params._meta; a _meta that is not an object is none.
func readMeta(params json.RawMessage) metaView {
	var v metaView
	m, ok := meta(params)
	if !ok {
		return v
	}
	rawjson.EachRawField(m, func(k, val json.RawMessage) bool {
		switch {
		case rawjson.KeyIs(k, protocol.MetaProtocolVersion):
			v.version, v.hasVersion = val, true
		case rawjson.KeyIs(k, protocol.MetaClientCapabilities):
			v.caps = true
		case rawjson.KeyIs(k, protocol.MetaClientInfo):
			v.info = true
		case rawjson.KeyIs(k, protocol.MetaLogLevel):
			v.logLevel = true
		case rawjson.KeyIs(k, "progressToken"):
			v.token = val
		}
		return true
	})
	return v
}

// hasModernVersion reports whether _meta carries a 2026-style protocol
// version, whatever its value: such a request is stateless, even an
// initialize.
func (v *metaView) hasModernVersion() bool { return v.hasVersion }

// versionString is _meta's protocolVersion when it is a string.
func (v *metaView) versionString() (string, bool) {
	if !v.hasVersion {
		return "", false
	}
	return rawjson.StringValue(v.version)
}

// progressToken is _meta's progressToken when it is a valid token (a
// string or an integer).
func (v *metaView) progressToken() (json.RawMessage, bool) {
	if v.token == nil || !wire.ValidID(v.token) {
		return nil, false
	}
	return v.token, true
}

// sharedCanCarry reports whether the connected Client would send the
// request unchanged: its _meta already holds every key the Client stamps,
// with the version it is connected at, and its method is not one it
// refuses.
func sharedCanCarry(method string, v *metaView) bool {
	if slices.Contains(protocol.LegacyOnly, method) {
		return false
	}
	s, ok := v.versionString()
	return ok && s == protocol.Version20260728 && v.caps && v.info
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
