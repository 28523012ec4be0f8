package wire

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Error is a JSON-RPC error object as the wire carries it: what Decode
// refuses a line with, what DecodeError reads and AppendError writes. Its
// fields are those of package stdio/jsonrpc's public Error, in the same
// order, so that each converts to the other in place
// ((*jsonrpc.Error)(e)): this package, the lowest layer, knows nothing of
// the packages above it.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage
	Cause   error
}

// The JSON-RPC 2.0 codes of Decode's refusals.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("jsonrpc error %d: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

func errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// DecodeError parses the raw "error" member of a response. A member that is
// not an object with an integer code and a string message is reported as ok
// false; the message is kept when only the code is missing or malformed.
func DecodeError(raw json.RawMessage) (e *Error, ok bool) {
	var w struct {
		Code    *json.Number    `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &w); err != nil || w.Code == nil || w.Message == nil {
		return nil, false
	}
	code, err := w.Code.Int64()
	if err != nil {
		return nil, false
	}
	e = &Error{Code: code, Message: *w.Message}
	if len(w.Data) > 0 {
		e.Data, _ = rawjson.Compact(w.Data) // valid: it came from valid JSON
	}
	return e, true
}
