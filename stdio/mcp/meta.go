package mcp

import (
	"encoding/json"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file reads what a client says about itself: the _meta object of a
// 2026-07-28 request (docs/protocol.md, "Request _meta"), its key grammar,
// and client capabilities in either era.

// ClientCapabilities is what a client declares it can do: in 2026-07-28
// per request (_meta io.modelcontextprotocol/clientCapabilities), in the
// 2025 revisions once, in initialize. A nil field means not declared.
// It is also the shape of a -32021 error's requiredCapabilities.
type ClientCapabilities struct {
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability declares roots/list support.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"` // 2025 revisions only
}

// SamplingCapability declares sampling/createMessage support; Context and
// Tools, when not nil, declare includeContext and tool use.
type SamplingCapability struct {
	Context json.RawMessage `json:"context,omitempty"`
	Tools   json.RawMessage `json:"tools,omitempty"`
}

// ElicitationCapability declares elicitation/create support. Form and URL,
// when not nil, declare the modes; an empty object (neither) means form
// only (2025-11-25).
type ElicitationCapability struct {
	Form json.RawMessage `json:"form,omitempty"`
	URL  json.RawMessage `json:"url,omitempty"`
}

// supportsElicitation reports whether the client takes elicitations of
// mode ("" or "form" for a form, "url").
func (c ClientCapabilities) supportsElicitation(mode string) bool {
	e := c.Elicitation
	switch {
	case e == nil:
		return false
	case mode == "url":
		return e.URL != nil
	default:
		return e.Form != nil || e.URL == nil
	}
}

// parseCapabilities reads a ClientCapabilities object, raw being valid
// JSON. A known member of the wrong type, or an extension id outside the
// _meta key grammar with its mandatory prefix, is -32602.
func parseCapabilities(raw json.RawMessage, where string) (ClientCapabilities, *jsonrpc.Error) {
	var caps ClientCapabilities
	if !rawjson.IsObject(raw) {
		return caps, invalidParams("%s must be an object", where)
	}
	members := 0
	for _, f := range rawjson.Fields(raw) {
		members++
		switch f.Key {
		case "roots", "sampling", "elicitation", "experimental", "extensions":
			if !rawjson.IsObject(f.Value) {
				return caps, invalidParams("%s.%s must be an object", where, f.Key)
			}
		}
	}
	if members == 0 {
		// {}: what a client that declares nothing sends with every
		// 2026-07-28 request.
		return caps, nil
	}
	if err := json.Unmarshal(raw, &caps); err != nil {
		return caps, invalidParams("%s is malformed", where)
	}
	for id, v := range caps.Extensions {
		if !validMetaKey(id) || !strings.Contains(id, "/") || !rawjson.IsObject(v) {
			return caps, invalidParams("%s.extensions has an invalid extension %q", where, id)
		}
	}
	return caps, nil
}

// validMetaKey reports whether key follows the _meta key grammar of the
// 2026-07-28 schema (MetaObject): an optional prefix of dot-separated
// labels ending in "/" (each label starts with a letter and ends with a
// letter or digit, hyphens inside), then a name that is empty or starts
// and ends alphanumeric, with '-', '_' and '.' inside.
func validMetaKey(key string) bool {
	name := key
	if i := strings.IndexByte(key, '/'); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if prefix == "" {
			return false
		}
		for label := range strings.SplitSeq(prefix, ".") {
			if !validLabel(label) {
				return false
			}
		}
	}
	if name == "" {
		return true
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return false
	}
	for i := 1; i < len(name)-1; i++ {
		if c := name[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func validLabel(l string) bool {
	if l == "" || !isLetter(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := 1; i < len(l)-1; i++ {
		if c := l[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

// requestMeta is a validated 2026-07-28 request _meta.
type requestMeta struct {
	clientInfo json.RawMessage // nil when absent
	logLevel   LoggingLevel    // "" when absent
}

// checkCapabilities is step 3 of docs/protocol.md, "Validation order": the
// _meta of a request whose version is served must carry clientCapabilities,
// an object.
func checkCapabilities(meta json.RawMessage) (ClientCapabilities, *jsonrpc.Error) {
	raw, ok := rawjson.Member(meta, protocol.MetaClientCapabilities)
	if !ok {
		return ClientCapabilities{}, invalidParams("_meta.%s is required", protocol.MetaClientCapabilities)
	}
	return parseCapabilities(raw, "_meta."+protocol.MetaClientCapabilities)
}

// checkMetaKeys is step 5 of docs/protocol.md, "Validation order" for _meta
// itself: every key in the grammar (docs/protocol.md, "Request _meta"),
// clientInfo an Implementation, logLevel a known level.
func checkMetaKeys(meta json.RawMessage, m *requestMeta) *jsonrpc.Error {
	for _, f := range rawjson.Fields(meta) {
		if !validMetaKey(f.Key) {
			return invalidParams("_meta key %q is outside the key grammar", f.Key)
		}
		switch f.Key {
		case protocol.MetaClientInfo:
			if !validImplementation(f.Value) {
				return invalidParams("_meta.%s must be an Implementation with a name and a version", protocol.MetaClientInfo)
			}
			m.clientInfo = f.Value
		case protocol.MetaLogLevel:
			s, _ := rawjson.StringValue(f.Value)
			level, ok := parseLevel(s)
			if !ok {
				return invalidParams("_meta.%s must be a logging level", protocol.MetaLogLevel)
			}
			m.logLevel = level
		}
	}
	return nil
}

// validImplementation reports whether raw is an object with a string name
// and a string version, decoded as encoding/json decodes it into
// {Name, Version *string}: the 2026-07-28 clientInfo of every request.
func validImplementation(raw json.RawMessage) bool {
	if !rawjson.IsObject(raw) {
		return false
	}
	var vals [2]json.RawMessage
	if !exactMembers(raw, []string{"name", "version"}, 2, vals[:]) {
		var info struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		}
		return json.Unmarshal(raw, &info) == nil && info.Name != nil && info.Version != nil
	}
	name, ok1 := optString(vals[0])
	version, ok2 := optString(vals[1])
	return ok1 && ok2 && name != nil && version != nil
}

// exactMembers finds the members of the validated object obj that
// encoding/json would decode into struct fields named keys, the first
// strings of them of type *string: vals[i] is the last member named
// keys[i], nil when there is none. It reports false, leaving the decoding
// to encoding/json, when a member's name equals one of keys only
// case-insensitively (which encoding/json also accepts), or when a member
// of a *string field is neither a string nor null (where encoding/json's
// error depends on every duplicate). It spares the hot paths (tools/call's
// name and arguments, clientInfo) the reflection of json.Unmarshal for a
// couple of members.
func exactMembers(obj json.RawMessage, keys []string, nString int, vals []json.RawMessage) bool {
	ok := true
	rawjson.EachField(obj, func(f rawjson.Field) bool {
		for i, k := range keys {
			switch {
			case f.Key == k:
				if i < nString && f.Value[0] != '"' && string(f.Value) != "null" {
					ok = false
					return false
				}
				vals[i] = f.Value
			case strings.EqualFold(f.Key, k): // as encoding/json matches names
				ok = false
				return false
			}
		}
		return true
	})
	return ok
}

// optString decodes a member as encoding/json decodes it into a *string:
// absent or null gives nil, a string its value; ok is false for any other
// value.
func optString(raw json.RawMessage) (s *string, ok bool) {
	if raw == nil || string(raw) == "null" {
		return nil, true
	}
	v, ok := rawjson.StringValue(raw)
	if !ok {
		return nil, false
	}
	return &v, true
}
