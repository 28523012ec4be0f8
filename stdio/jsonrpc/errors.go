package jsonrpc

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Error codes used by mcpbridge. The standard JSON-RPC codes are on the
// wire; CodeConnectionClosed and CodeRequestTimeout are produced locally by
// the client and never sent (they match the TypeScript SDK's local codes).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeConnectionClosed reports a child that exited, closed its output or
	// could not be written to, and calls made after Close.
	CodeConnectionClosed = -32000
	// CodeRequestTimeout reports a call that was abandoned by its timeout or
	// its caller's context.
	CodeRequestTimeout = -32001
	// CodeResourceNotFound is the legacy (2025) resource-not-found code,
	// passed through from peers.
	CodeResourceNotFound = -32002

	// CodeHeaderMismatch, CodeMissingCapability and CodeUnsupportedVersion
	// are the 2026-07-28 protocol errors.
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
	// CodeURLElicitationRequired is the 2025-11-25 URL elicitation error.
	CodeURLElicitationRequired = -32042
)

// Error is a JSON-RPC error. Code, Message and Data are the wire fields.
// Cause is local diagnosis (an exit status, an I/O error, ctx.Err(), a
// recovered panic): it is never serialised and is what Unwrap returns.
//
// Is compares codes only, so
//
//	errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout})
//
// holds for any timeout, however it was wrapped.
type Error struct {
	// Code is the JSON-RPC error code.
	Code int64
	// Message is the error's message, as sent or to be sent.
	Message string
	// Data is the error's data member as JSON text, nil when absent.
	Data json.RawMessage
	// Cause is the local error behind it, never sent on the wire.
	Cause error
}

// Error returns the code and message, followed by the cause when there is one.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("jsonrpc error %d: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Unwrap returns Cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t.Code == e.Code
}

// Errorf returns an *Error with a formatted message and no data.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns an *Error whose Data is v marshalled to JSON. A value
// that cannot be marshalled is a programming error and panics.
func WithData(code int64, message string, v any) *Error {
	data, err := rawjson.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("jsonrpc: error data %T: %v", v, err))
	}
	return &Error{Code: code, Message: message, Data: data}
}
