package wire

import (
	"encoding/json"
	"strconv"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// The frame builders below append one complete message followed by LF.
// Raw arguments (ids, params, results, data) must already be valid compact
// JSON, as Decode and rawjson.AppendCompact produce; a nil params is left
// out.

// AppendRequest appends a request frame.
func AppendRequest(dst []byte, id json.RawMessage, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"method":`...)
	dst = rawjson.AppendString(dst, method)
	if params != nil {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, "}\n"...)
}

// AppendNotification appends a notification frame.
func AppendNotification(dst []byte, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = rawjson.AppendString(dst, method)
	if params != nil {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, "}\n"...)
}

// AppendResponse appends a success response frame.
func AppendResponse(dst []byte, id json.RawMessage, result json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, "}\n"...)
}

// AppendError appends an error response frame. A nil id is written as
// null, for requests whose id could not be read.
func AppendError(dst []byte, id json.RawMessage, e *Error) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"error":`...)
	dst = AppendErrorObject(dst, e)
	return append(dst, "}\n"...)
}

// AppendErrorObject appends the JSON object {code, message, data?} of e.
func AppendErrorObject(dst []byte, e *Error) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, e.Code, 10)
	dst = append(dst, `,"message":`...)
	dst = rawjson.AppendString(dst, e.Message)
	if len(e.Data) > 0 {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, '}')
}

func appendID(dst []byte, id json.RawMessage) []byte {
	if id == nil {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}
