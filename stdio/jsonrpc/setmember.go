package jsonrpc

import (
	"encoding/json"
	"errors"
)

var errNotObject = errors.New("jsonrpc: not a JSON object")

// SetMember returns a copy of the JSON object obj whose top-level member key
// has the value value. It is how transports stamp reserved keys (such as
// _meta["io.modelcontextprotocol/subscriptionId"]) into pass-through JSON
// without decoding it.
//
// obj must be valid JSON text, as every raw field of a decoded Message and
// every AppendCompact output is; nil or empty obj is taken as {}. value must
// be valid compact JSON. The first member named key is replaced in place and
// any later duplicates are dropped; without one, the member is appended.
// Every other member keeps its position and its bytes, escapes included.
// It returns an error, and nil, when obj is not an object.
func SetMember(obj json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	i := skipSpaceAt(obj, 0)
	if i == len(obj) {
		out := AppendString([]byte{'{'}, key)
		out = append(out, ':')
		out = append(out, value...)
		return append(out, '}'), nil
	}
	if obj[i] != '{' {
		return nil, errNotObject
	}
	out := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	out = append(out, '{')
	i = skipSpaceAt(obj, i+1)
	replaced := false
	comma := func() {
		if len(out) > 1 {
			out = append(out, ',')
		}
	}
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipString(obj, i)
		rawKey := obj[i:kEnd]
		name, _ := StringValue(rawKey)
		j := skipSpaceAt(obj, kEnd)
		j = skipSpaceAt(obj, j+1) // ':'
		vEnd := skipValue(obj, j)
		switch {
		case name != key:
			comma()
			out = append(out, rawKey...)
			out = append(out, ':')
			out = append(out, obj[j:vEnd]...)
		case !replaced:
			comma()
			out = append(out, rawKey...)
			out = append(out, ':')
			out = append(out, value...)
			replaced = true
		}
		i = skipSpaceAt(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpaceAt(obj, i+1)
		}
	}
	if !replaced {
		comma()
		out = AppendString(out, key)
		out = append(out, ':')
		out = append(out, value...)
	}
	return append(out, '}'), nil
}
