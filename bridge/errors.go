package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// errorDomain is google.rpc.ErrorInfo.domain for every error the bridge
// returns.
const errorDomain = "mcpbridge"

// ErrorInfo reasons, documented in bridge.proto.
const (
	reasonChildError       = "CHILD_ERROR"
	reasonChildUnavailable = "CHILD_UNAVAILABLE"
	reasonTimeout          = "TIMEOUT"
	reasonCapacity         = "CAPACITY"
	reasonInvalidInput     = "INVALID_INPUT"
	reasonUnknownServer    = "UNKNOWN_SERVER"
	reasonTooLarge         = "TOO_LARGE"
	reasonUnauthenticated  = "UNAUTHENTICATED"
)

// callError is an error on its way to the gRPC edge: the JSON-RPC error,
// where it happened, and what the status needs beyond the code.
type callError struct {
	rpc        *jsonrpc.Error
	server     string
	method     string
	reason     string              // "" derives it from the code
	retryAfter time.Duration       // > 0 adds RetryInfo (UNAVAILABLE while restarting)
	pid        int                 // > 0: the child it concerns, in ErrorInfo's metadata
	field      *convert.FieldError // bad input in one field: a google.rpc.BadRequest
}

func (e *callError) Error() string { return e.rpc.Error() }
func (e *callError) Unwrap() error { return e.rpc }

// invalidInput is bad input from a gRPC client, refused before it reaches a
// child. An argument that is (or wraps) a convert.FieldError adds its field
// violation.
func invalidInput(server, method, format string, args ...any) error {
	ce := &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...), server: server, method: method, reason: reasonInvalidInput}
	for _, a := range args {
		if err, ok := a.(error); ok {
			errors.As(err, &ce.field)
		}
	}
	return ce
}

// invalidField is bad input in one field of the request, named by its
// proto path: INVALID_ARGUMENT whose message starts with the field, with a
// google.rpc.BadRequest.
func invalidField(server, method, field, reason, format string, args ...any) error {
	return invalidInput(server, method, "%v", convert.FieldErrorf(field, reason, format, args...))
}

// toStatus turns any error from a call into the gRPC status a client sees.
// It is the one place where errors leave the bridge: JSON-RPC codes map as
// docs/errors.md says, the original error travels in the details as
// mcpbridge.v1.JsonRpcError with a google.rpc.ErrorInfo, and nothing else
// (no causes, stacks or paths) is exposed.
func toStatus(server, method string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err // already a deliberate status
	}
	var ce *callError
	var u *supervisor.UnavailableError
	switch {
	case errors.As(err, &ce):
	case errors.As(err, &u): // no child to call: restarting, failed or stopping
		ce = &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "%s", u.Message), retryAfter: u.RetryAfter}
	default:
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			// What the stdio client reports for the same events, so that
			// every status carries a JsonRpcError.
			switch {
			case errors.Is(err, context.Canceled):
				rpc = &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout, Message: "Request cancelled", Cause: err}
			case errors.Is(err, context.DeadlineExceeded):
				rpc = &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout, Message: "Request timed out", Cause: err}
			default:
				rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
			}
		}
		ce = &callError{rpc: rpc}
	}
	if ce.server == "" {
		ce.server = server
	}
	if ce.method == "" {
		ce.method = method
	}
	code, reason := grpcCode(ce.rpc)
	if errors.Is(ce.rpc, stdio.ErrTooLarge) { // a request or response over a line limit
		code, reason = codes.ResourceExhausted, reasonTooLarge
	}
	if ce.reason != "" {
		reason = ce.reason
	}
	switch reason {
	case reasonPermissionDenied:
		code = codes.PermissionDenied
	case reasonUnauthenticated:
		// As the auth interceptor answers: nothing that helps an attacker.
		return status.Error(codes.Unauthenticated, "authentication required")
	}
	st := status.New(code, ce.rpc.Message)
	meta := map[string]string{"server": ce.server, "method": ce.method, "code": strconv.FormatInt(ce.rpc.Code, 10)}
	if ce.pid > 0 {
		meta["pid"] = strconv.Itoa(ce.pid)
	}
	details := []protoadapt.MessageV1{
		&mcpbridgev1.JsonRpcError{Code: code32(ce.rpc.Code), Message: ce.rpc.Message, DataJson: string(ce.rpc.Data)},
		&errdetails.ErrorInfo{Reason: reason, Domain: errorDomain, Metadata: meta},
	}
	if ce.field != nil {
		details = append(details, &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
			Field: ce.field.Field, Reason: ce.field.Reason, Description: ce.rpc.Message,
		}}})
	}
	if ce.retryAfter > 0 && (code == codes.Unavailable || code == codes.ResourceExhausted) {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(ce.retryAfter)})
	}
	if withDetails, err := st.WithDetails(details...); err == nil {
		st = withDetails
	}
	return st.Err()
}

// grpcCode maps a JSON-RPC error to a gRPC code and an ErrorInfo reason
// (docs/errors.md).
func grpcCode(e *jsonrpc.Error) (codes.Code, string) {
	switch e.Code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams:
		return codes.InvalidArgument, reasonChildError
	case jsonrpc.CodeMethodNotFound:
		return codes.Unimplemented, reasonChildError
	case jsonrpc.CodeInternalError:
		if retryable(e.Data) {
			return codes.ResourceExhausted, reasonCapacity
		}
		return codes.Internal, reasonChildError
	case jsonrpc.CodeConnectionClosed:
		return codes.Unavailable, reasonChildUnavailable
	case jsonrpc.CodeRequestTimeout:
		if errors.Is(e.Cause, context.Canceled) {
			return codes.Canceled, reasonTimeout
		}
		return codes.DeadlineExceeded, reasonTimeout
	case jsonrpc.CodeResourceNotFound:
		return codes.NotFound, reasonChildError
	case jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingCapability, jsonrpc.CodeUnsupportedVersion, jsonrpc.CodeURLElicitationRequired:
		return codes.FailedPrecondition, reasonChildError
	default:
		return codes.Unknown, reasonChildError
	}
}

// retryable reports a capacity refusal: -32603 whose data says
// {"retryable":true}.
func retryable(data json.RawMessage) bool {
	if len(data) == 0 {
		return false
	}
	var d struct {
		Retryable bool `json:"retryable"`
	}
	return json.Unmarshal(data, &d) == nil && d.Retryable
}

// code32 is a JSON-RPC code as JsonRpcError.code carries it: itself when it
// fits in an int32 (every code known does), else -32603; ErrorInfo's
// "code" metadata always has the exact code.
func code32(code int64) int32 {
	if code < math.MinInt32 || code > math.MaxInt32 {
		return jsonrpc.CodeInternalError
	}
	return int32(code)
}
