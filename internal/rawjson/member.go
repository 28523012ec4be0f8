package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

var errNotObject = errors.New("rawjson: not a JSON object")

// StringValue decodes raw JSON text that must be a string. It reports false
// for any other value.
func StringValue(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if inner, ok := Plain(raw); ok {
		return string(inner), true
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	return v, true
}

// Member returns the value of the top-level member key of the JSON object
// obj, which must already be valid JSON (as every raw field of a decoded
// Message is). It reports false when obj is not an object or has no such
// member; with duplicate keys the last one wins, as in encoding/json.
func Member(obj json.RawMessage, key string) (json.RawMessage, bool) {
	var found json.RawMessage
	ok := false
	EachRawField(obj, func(rawKey, value json.RawMessage) bool {
		if KeyIs(rawKey, key) {
			found, ok = value, true
		}
		return true
	})
	return found, ok
}

// Plain returns the text of the JSON string str (quotes included) when it
// reads as written: no escapes, valid UTF-8. Then the text needs no
// decoding and may be compared, or viewed, in place.
func Plain(str json.RawMessage) ([]byte, bool) {
	inner := str[1 : len(str)-1]
	return inner, bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner)
}

// KeyIs reports whether the JSON string rawKey (quotes included) is key,
// without allocating when it has no escapes.
func KeyIs(rawKey json.RawMessage, key string) bool {
	if inner, ok := Plain(rawKey); ok {
		return string(inner) == key
	}
	k, _ := StringValue(rawKey)
	return k == key
}

// Field is one member of a JSON object.
type Field struct {
	Key    string          // the decoded key
	RawKey json.RawMessage // the key as written, quotes included
	Value  json.RawMessage // the value as written
}

// Fields returns the top-level members of the already-validated JSON object
// obj in order, duplicates included; nil when obj is not an object.
// Re-emitting RawKey:Value keeps each member byte for byte.
func Fields(obj json.RawMessage) []Field {
	var out []Field
	EachField(obj, func(f Field) bool {
		out = append(out, f)
		return true
	})
	return out
}

// EachField calls fn for each top-level member of the already-validated
// JSON object obj, in order, until fn returns false. It does nothing when
// obj is not an object. It skips values without validating them.
func EachField(obj json.RawMessage, fn func(Field) bool) {
	EachRawField(obj, func(rawKey, value json.RawMessage) bool {
		key, _ := StringValue(rawKey)
		return fn(Field{Key: key, RawKey: rawKey, Value: value})
	})
}

// EachRawField is EachField without decoding the keys: fn gets each key as
// written, quotes included (KeyIs compares one without allocating).
func EachRawField(obj json.RawMessage, fn func(rawKey, value json.RawMessage) bool) {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = SkipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := SkipString(obj, i)
		rawKey := obj[i:kEnd]
		i = SkipSpace(obj, kEnd)
		i = SkipSpace(obj, i+1) // ':'
		vEnd := SkipValue(obj, i)
		if !fn(rawKey, obj[i:vEnd]) {
			return
		}
		i = SkipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = SkipSpace(obj, i+1)
		}
	}
}

// IsObject reports whether the validated JSON text raw is an object.
func IsObject(raw json.RawMessage) bool {
	i := SkipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}

// SetMember returns a copy of the JSON object obj whose top-level member key
// has the value value. It is how transports stamp reserved keys (such as
// _meta["io.modelcontextprotocol/subscriptionId"]) into pass-through JSON
// without decoding it.
//
// obj must be valid JSON text, as every raw field of a decoded message and
// every AppendCompact output is; nil or empty obj is taken as {}. value must
// be valid compact JSON. The first member named key is replaced in place and
// any later duplicates are dropped; without one, the member is appended.
// Every other member keeps its position and its bytes, escapes included.
// It returns an error, and nil, when obj is not an object.
func SetMember(obj json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	i := SkipSpace(obj, 0)
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
	i = SkipSpace(obj, i+1)
	replaced := false
	comma := func() {
		if len(out) > 1 {
			out = append(out, ',')
		}
	}
	for i < len(obj) && obj[i] == '"' {
		kEnd := SkipString(obj, i)
		rawKey := obj[i:kEnd]
		name, _ := StringValue(rawKey)
		j := SkipSpace(obj, kEnd)
		j = SkipSpace(obj, j+1) // ':'
		vEnd := SkipValue(obj, j)
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
		i = SkipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = SkipSpace(obj, i+1)
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

// DeleteMember returns a copy of the validated JSON object obj without its
// top-level member key (every member of that name); every other member
// keeps its bytes and order. An obj that is not an object gives {}.
func DeleteMember(obj json.RawMessage, key string) json.RawMessage {
	out := append(make(json.RawMessage, 0, len(obj)), '{')
	EachField(obj, func(f Field) bool {
		if f.Key == key {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, f.RawKey...)
		out = append(out, ':')
		out = append(out, f.Value...)
		return true
	})
	return append(out, '}')
}

// Elements calls fn with the index and raw text of each element of the
// validated JSON array arr, in order, until fn returns false. It reports
// false, calling nothing, when arr is not an array.
func Elements(arr json.RawMessage, fn func(i int, v json.RawMessage) bool) bool {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = SkipSpace(arr, i+1)
	for n := 0; i < len(arr) && arr[i] != ']'; n++ {
		end := SkipValue(arr, i)
		if !fn(n, arr[i:end]) {
			return true
		}
		i = SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = SkipSpace(arr, i+1)
		}
	}
	return true
}
