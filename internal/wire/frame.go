package wire

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// The frame builders below append one complete message followed by LF.
// Raw arguments (ids, params, results, data) must already be valid compact
// JSON, as Decode and rawjson.AppendCompact produce; a nil params is left
// out.

// Each builder grows dst once, to the frame's size (a method's escapes
// aside), rather than at each part: the frames of a call are built from
// nil on every hop.

// frameOverhead bounds a frame's bytes besides its raw parts and its
// method: the envelope's keys and punctuation, a null id, the LF.
const frameOverhead = 48

// AppendRequest appends a request frame.
func AppendRequest(dst []byte, id json.RawMessage, method string, params json.RawMessage) []byte {
	dst = slices.Grow(dst, frameOverhead+len(id)+len(method)+len(params))
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
	dst = slices.Grow(dst, frameOverhead+len(method)+len(params))
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
	dst = slices.Grow(dst, frameOverhead+len(id)+len(result))
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, "}\n"...)
}

// AppendError appends an error response frame. A nil id is written as
// null, for requests whose id could not be read.
func AppendError(dst []byte, id json.RawMessage, e *Error) []byte {
	dst = slices.Grow(dst, 2*frameOverhead+len(id)+len(e.Message)+len(e.Data))
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
