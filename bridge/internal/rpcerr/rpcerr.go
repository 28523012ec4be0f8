// Package rpcerr is where errors leave the bridge (docs/errors.md): a
// CallError carries a JSON-RPC error on its way to the gRPC edge, with
// what its status needs beyond the code, and ToStatus turns any error of
// a call into the status a client sees, the original JSON-RPC error in
// its details. A tunnel answers with the CallError's JSON-RPC error
// instead.
package rpcerr

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

// Domain is google.rpc.ErrorInfo.domain for every error the bridge
// returns.
const Domain = "mcpbridge"

// ErrorInfo reasons, documented in bridge.proto.
const (
	ReasonChildError       = "CHILD_ERROR"
	ReasonChildUnavailable = "CHILD_UNAVAILABLE"
	ReasonTimeout          = "TIMEOUT"
	ReasonCapacity         = "CAPACITY"
	ReasonInvalidInput     = "INVALID_INPUT"
	ReasonUnknownServer    = "UNKNOWN_SERVER"
	ReasonTooLarge         = "TOO_LARGE"
	ReasonUnauthenticated  = "UNAUTHENTICATED"
	ReasonPermissionDenied = "PERMISSION_DENIED" // the rules deny the call
)

// CallError is an error on its way to the gRPC edge: the JSON-RPC error,
// where it happened, and what the status needs beyond the code.
type CallError struct {
	RPC    *jsonrpc.Error
	Server string
	Method string
	Reason string // "" derives it from the code
	// Scope, on a PERMISSION_DENIED of an OAuth access token, is the
	// scopes a token needs for the call (ErrorInfo metadata scope).
	Scope      string
	RetryAfter time.Duration       // > 0 adds RetryInfo (UNAVAILABLE while restarting)
	Pid        int                 // > 0: the child it concerns, in ErrorInfo's metadata
	Field      *convert.FieldError // bad input in one field: a google.rpc.BadRequest
}

func (e *CallError) Error() string { return e.RPC.Error() }
func (e *CallError) Unwrap() error { return e.RPC }

// InvalidInput is bad input from a gRPC client, refused before it reaches a
// child. An argument that is (or wraps) a convert.FieldError adds its field
// violation.
func InvalidInput(server, method, format string, args ...any) error {
	ce := &CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...), Server: server, Method: method, Reason: ReasonInvalidInput}
	for _, a := range args {
		if err, ok := a.(error); ok {
			errors.As(err, &ce.Field)
		}
	}
	return ce
}

// InvalidField is bad input in one field of the request, named by its
// proto path: INVALID_ARGUMENT whose message starts with the field, with a
// google.rpc.BadRequest.
func InvalidField(server, method, field, reason, format string, args ...any) error {
	return InvalidInput(server, method, "%v", convert.FieldErrorf(field, reason, format, args...))
}

// ToStatus turns any error from a call into the gRPC status a client sees.
// It is the one place where errors leave the bridge: JSON-RPC codes map as
// docs/errors.md says, the original error travels in the details as
// mcpbridge.v1.JsonRpcError with a google.rpc.ErrorInfo, and nothing else
// (no causes, stacks or paths) is exposed.
func ToStatus(server, method string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err // already a deliberate status
	}
	var ce *CallError
	var u *supervisor.UnavailableError
	switch {
	case errors.As(err, &ce):
	case errors.As(err, &u): // no child to call: restarting, failed or stopping
		ce = &CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "%s", u.Message), RetryAfter: u.RetryAfter}
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
		ce = &CallError{RPC: rpc}
	}
	if ce.Server == "" {
		ce.Server = server
	}
	if ce.Method == "" {
		ce.Method = method
	}
	code, reason := GRPCCode(ce.RPC)
	if errors.Is(ce.RPC, stdio.ErrTooLarge) { // a request or response over a line limit
		code, reason = codes.ResourceExhausted, ReasonTooLarge
	}
	if ce.Reason != "" {
		reason = ce.Reason
	}
	switch reason {
	case ReasonPermissionDenied:
		code = codes.PermissionDenied
	case ReasonUnauthenticated:
		// As the auth interceptor answers: nothing that helps an attacker.
		return status.Error(codes.Unauthenticated, "authentication required")
	}
	st := status.New(code, ce.RPC.Message)
	meta := map[string]string{"server": ce.Server, "method": ce.Method, "code": strconv.FormatInt(ce.RPC.Code, 10)}
	if ce.Pid > 0 {
		meta["pid"] = strconv.Itoa(ce.Pid)
	}
	if ce.Scope != "" {
		// The challenge of an OAuth access token without the scope the
		// call needs (docs/authorization.md), as HTTP says it.
		meta["error"], meta["scope"] = "insufficient_scope", ce.Scope
	}
	details := []protoadapt.MessageV1{
		&mcpbridgev1.JsonRpcError{Code: code32(ce.RPC.Code), Message: ce.RPC.Message, DataJson: string(ce.RPC.Data)},
		&errdetails.ErrorInfo{Reason: reason, Domain: Domain, Metadata: meta},
	}
	if ce.Field != nil {
		details = append(details, &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
			Field: ce.Field.Field, Reason: ce.Field.Reason, Description: ce.RPC.Message,
		}}})
	}
	if ce.RetryAfter > 0 && (code == codes.Unavailable || code == codes.ResourceExhausted) {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(ce.RetryAfter)})
	}
	if withDetails, err := st.WithDetails(details...); err == nil {
		st = withDetails
	}
	return st.Err()
}

// GRPCCode maps a JSON-RPC error to a gRPC code and an ErrorInfo reason
// (docs/errors.md).
func GRPCCode(e *jsonrpc.Error) (codes.Code, string) {
	switch e.Code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams:
		return codes.InvalidArgument, ReasonChildError
	case jsonrpc.CodeMethodNotFound:
		return codes.Unimplemented, ReasonChildError
	case jsonrpc.CodeInternalError:
		if retryable(e.Data) {
			return codes.ResourceExhausted, ReasonCapacity
		}
		return codes.Internal, ReasonChildError
	case jsonrpc.CodeConnectionClosed:
		return codes.Unavailable, ReasonChildUnavailable
	case jsonrpc.CodeRequestTimeout:
		if errors.Is(e.Cause, context.Canceled) {
			return codes.Canceled, ReasonTimeout
		}
		return codes.DeadlineExceeded, ReasonTimeout
	case jsonrpc.CodeResourceNotFound:
		return codes.NotFound, ReasonChildError
	case jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingCapability, jsonrpc.CodeUnsupportedVersion, jsonrpc.CodeURLElicitationRequired:
		return codes.FailedPrecondition, ReasonChildError
	default:
		return codes.Unknown, ReasonChildError
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

// ErrDraining is the cause with which the bridge's drain cancels a
// long-lived stream's context, and its abort a call's (docs/operations.md,
// "Graceful shutdown").
var ErrDraining = errors.New("bridge: shutting down")

// drainRetry is the RetryInfo delay of a stream or call the shutdown
// ended.
const drainRetry = time.Second

// RefusedDraining reports that the drain or the abort cancelled ctx.
func RefusedDraining(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrDraining)
}

// Drained replaces the outcome of a stream or call that the shutdown ended
// with UNAVAILABLE and RetryInfo; any other outcome is left as it is.
func Drained(ctx context.Context, server, method string, err error) error {
	if !RefusedDraining(ctx) {
		return err
	}
	return ToStatus(server, method, &CallError{
		RPC:        &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The bridge is shutting down"},
		RetryAfter: drainRetry,
	})
}
