package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// MaxIDBytes is the longest string id (decoded) accepted; the same bound
// applies to progress tokens and to the requestId of cancellations.
const MaxIDBytes = 256

// Kind says what a message is.
type Kind uint8

// The kinds of JSON-RPC message. KindInvalid is a line that is valid JSON
// but none of the three.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

// String names the kind, for logs.
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one decoded JSON-RPC message. Its raw fields are sub-slices of
// the decoded line, so whoever keeps one past the line's lifetime copies it.
// Members other than these five are ignored.
type Message struct {
	// Kind says which of request, notification or response it is.
	Kind Kind
	// ID is the raw id: a string of at most MaxIDBytes or an int64 integer
	// literal, kept byte for byte. It is nil when absent or null.
	ID json.RawMessage
	// Method is the decoded method name of a request or notification.
	Method string
	// Params is the raw "params" member, nil when absent.
	Params json.RawMessage
	// Result is the raw "result" member of a response, nil when absent.
	Result json.RawMessage
	// Error is the raw "error" member of a response; see DecodeError.
	Error json.RawMessage
	// Dirty reports that the line held insignificant whitespace or invalid
	// UTF-8, so its raw members must go through rawjson.AppendCompact
	// before they are passed on as canonical text.
	Dirty bool

	hasResult, hasError, hasID, nullID bool
	methodRaw                          json.RawMessage
}

// HasResult reports whether the message carried a "result" member.
func (m *Message) HasResult() bool { return m.hasResult }

// HasError reports whether the message carried an "error" member.
func (m *Message) HasError() bool { return m.hasError }

// NullID reports an id member that is null (ID is then nil): in a response,
// an error about a message the peer could not read.
func (m *Message) NullID() bool { return m.nullID }

// Decode validates one line as a JSON-RPC message.
//
// On failure it returns an *Error: -32700 when the line is not exactly one
// JSON value within the package's bounds, -32600 when it is not a valid
// message. The returned Message is filled as far as the line allowed: its
// Kind tells a malformed notification or response (which get no reply)
// from a malformed request, and its ID is set when the id itself was valid,
// so that a reply can echo it.
func Decode(line []byte) (Message, error) {
	var vals [len(envelope)][]byte
	info, err := rawjson.ScanMembers(line, envelope[:], vals[:])
	if err != nil {
		return Message{}, &Error{Code: CodeParseError, Message: "Parse error", Cause: err}
	}
	switch line[info.Start] {
	case '{':
	case '[':
		return Message{}, errorf(CodeInvalidRequest, "Batch requests are not supported")
	default:
		return Message{}, errorf(CodeInvalidRequest, "Invalid Request: not a JSON object")
	}
	m := Message{
		ID: vals[1], methodRaw: vals[2], Params: vals[3], Result: vals[4], Error: vals[5],
		hasID: vals[1] != nil, nullID: string(vals[1]) == "null",
		hasResult: vals[4] != nil, hasError: vals[5] != nil,
		Dirty: info.Space || info.BadUTF8,
	}
	return m, m.classify(vals[0])
}

// envelope are the members of a message that Decode reads, in the order of
// its vals table; all others are ignored.
var envelope = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// classify decides the kind and checks the envelope.
func (m *Message) classify(version json.RawMessage) error {
	switch {
	case m.Method != "" || m.methodRaw != nil:
		m.Kind = KindNotification
		if m.hasID {
			m.Kind = KindRequest
		}
	case m.hasResult || m.hasError:
		m.Kind = KindResponse
	default:
		m.Kind = KindInvalid
	}
	if m.hasID && !m.nullID {
		if !ValidID(m.ID) {
			m.ID = nil
			return errorf(CodeInvalidRequest, "Invalid Request: id must be a string of at most %d bytes or an int64 integer", MaxIDBytes)
		}
	} else {
		m.ID = nil
		if m.nullID && m.Kind == KindRequest {
			return errorf(CodeInvalidRequest, "Invalid Request: id must not be null")
		}
	}
	if v, ok := rawjson.StringValue(version); string(version) != `"2.0"` && (!ok || v != "2.0") {
		return errorf(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`)
	}
	if m.methodRaw != nil {
		name, ok := rawjson.StringValue(m.methodRaw)
		if !ok {
			return errorf(CodeInvalidRequest, "Invalid Request: method must be a string")
		}
		m.Method = name
		m.methodRaw = nil
	}
	if m.Kind == KindInvalid {
		return errorf(CodeInvalidRequest, "Invalid Request: neither a request, a notification nor a response")
	}
	return nil
}

// ValidID reports whether raw is a valid id (also used for progress tokens
// and cancellation targets): a string of at most MaxIDBytes bytes once
// decoded, in valid UTF-8, or an integer literal within int64 with no
// fraction or exponent. 1 and "1" are different ids.
func ValidID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		if len(raw)-2 <= MaxIDBytes && bytes.IndexByte(raw, '\\') < 0 {
			return utf8.Valid(raw)
		}
		v, ok := rawjson.StringValue(raw)
		return ok && len(v) <= MaxIDBytes && utf8.ValidString(v)
	}
	_, ok := IntID(raw)
	return ok
}

// IntID parses an integer id literal. It reports false for strings, numbers
// with a fraction or exponent, and integers outside int64.
func IntID(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || len(raw) > 20 {
		return 0, false
	}
	for i, c := range raw {
		if c == '-' && i == 0 {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}
