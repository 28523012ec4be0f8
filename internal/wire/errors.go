package wire

import (
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// DecodeError parses the raw "error" member of a response. A member that is
// not an object with an integer code and a string message is reported as ok
// false; the message is kept when only the code is missing or malformed.
func DecodeError(raw json.RawMessage) (e *jsonrpc.Error, ok bool) {
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
	e = &jsonrpc.Error{Code: code, Message: *w.Message}
	if len(w.Data) > 0 {
		e.Data, _ = rawjson.Compact(w.Data) // valid: it came from valid JSON
	}
	return e, true
}
