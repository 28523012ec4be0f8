package wire

import (
	"bytes"
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Peek tells, from the kept head and tail of an over-long line, which
// message it held, so that a request can still be answered and a call
// still failed by id: the top-level "id" (a number or a string; nil when
// neither end shows it) and the message's kind.
//
// The head is read member by member from the start, and the tail member
// by member back from the closing brace, as long as the values are
// scalars; the bulky member (params, result) sits between them. The kind
// is KindRequest when an id and a "method" member show, KindResponse when
// an id shows without one (method comes before params in every serializer
// in use, and a response has none), KindNotification when a method shows
// without an id (which may still hide in the discarded middle), and
// KindInvalid when neither shows.
func (e *LineTooLongError) Peek() (id json.RawMessage, kind Kind) {
	headID, headMethod := peekHead(bytes.TrimPrefix(e.Head, bom))
	tailID, tailMethod := peekTail(e.Tail)
	id = headID
	if id == nil {
		id = tailID
	}
	method := headMethod || tailMethod
	switch {
	case id != nil && method:
		return id, KindRequest
	case id != nil:
		return id, KindResponse
	case method:
		return nil, KindNotification
	}
	return nil, KindInvalid
}

// validID reports an id value: a JSON number or string, complete.
func validID(v []byte) bool {
	if len(v) == 0 || (v[0] != '"' && v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return false
	}
	_, err := rawjson.Scan(v)
	return err == nil
}

// peekHead walks the top-level members at the start of a line cut short,
// up to the first value that runs past the head.
func peekHead(b []byte) (id json.RawMessage, method bool) {
	i := rawjson.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = rawjson.SkipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return id, method
		}
		end := rawjson.SkipString(b, i)
		if end >= len(b) {
			return id, method
		}
		key := b[i:end]
		i = rawjson.SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return id, method
		}
		i = rawjson.SkipSpace(b, i+1)
		if i >= len(b) {
			return id, method
		}
		vend := rawjson.SkipValue(b, i)
		if vend >= len(b) { // the value runs past the head
			return id, method
		}
		switch string(key) {
		case `"id"`:
			if v := b[i:vend]; validID(v) {
				id = bytes.Clone(v)
			}
		case `"method"`:
			method = true
		}
		i = rawjson.SkipSpace(b, vend)
		if i >= len(b) || b[i] != ',' {
			return id, method
		}
		i++
	}
}

// peekTail walks the top-level members at the end of a line back from its
// closing brace, while their values are scalars it can read backwards (a
// number, true, false, null, or a string without escapes).
func peekTail(b []byte) (id json.RawMessage, method bool) {
	i := len(b) - 1
	back := func() {
		for i >= 0 && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i--
		}
	}
	back()
	if i < 0 || b[i] != '}' {
		return nil, false
	}
	i--
	for {
		back()
		if i < 0 {
			return id, method
		}
		vend := i + 1
		switch c := b[i]; {
		case c == '"':
			j := bytes.LastIndexByte(b[:i], '"')
			if j < 0 || bytes.IndexByte(b[j:i], '\\') >= 0 || (j > 0 && b[j-1] == '\\') {
				return id, method
			}
			i = j - 1
		case c == '}' || c == ']':
			return id, method // a structured value: the walk ends here
		default:
			for i >= 0 && b[i] != ':' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
				i--
			}
		}
		value := b[i+1 : vend]
		back()
		if i < 0 || b[i] != ':' {
			return id, method
		}
		i--
		back()
		if i < 0 || b[i] != '"' {
			return id, method
		}
		j := bytes.LastIndexByte(b[:i], '"')
		if j < 0 || (j > 0 && b[j-1] == '\\') {
			return id, method
		}
		key := b[j : i+1]
		i = j - 1
		back()
		if i >= 0 && b[i] != ',' && b[i] != '{' {
			return id, method // not a key after all
		}
		switch string(key) {
		case `"id"`:
			if id == nil && validID(value) {
				id = bytes.Clone(value)
			}
		case `"method"`:
			method = true
		}
		if i < 0 || b[i] == '{' {
			return id, method
		}
		i--
	}
}
