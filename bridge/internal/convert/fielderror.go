package convert

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Reasons of a FieldError: google.rpc.BadRequest.FieldViolation.reason,
// documented in bridge.proto.
const (
	ReasonInvalidJSON   = "INVALID_JSON"    // the text is not JSON
	ReasonWrongJSONType = "WRONG_JSON_TYPE" // JSON, but not the kind the field needs
	ReasonRequired      = "REQUIRED"        // empty, and the request needs it
	ReasonInvalidValue  = "INVALID_VALUE"   // anything else: out of range, owned by the bridge, not for this era
	ReasonInvalidUTF8   = "INVALID_UTF8"    // a string field that is not UTF-8
)

// FieldError is invalid input in one field of a request message. Its
// message starts with Field, the field's path by its proto names
// ("params_json", "error.code"); the gRPC edge puts it in a
// google.rpc.BadRequest and spells the field as the caller's language does.
type FieldError struct {
	Field  string
	Reason string
	Err    error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// FieldErrorf is a FieldError whose message is Field followed by the
// formatted text, for example FieldErrorf("uri", ReasonRequired, " is
// required").
func FieldErrorf(field, reason, format string, args ...any) error {
	return &FieldError{Field: field, Reason: reason, Err: fmt.Errorf(field+format, args...)}
}

// underField wraps err, a Struct or JSON error of a value inside field, as
// a FieldError of field, unless err already names a field of its own.
func underField(field string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return err
	}
	return &FieldError{Field: field, Reason: ReasonInvalidValue, Err: fmt.Errorf("%s: %w", field, err)}
}

// JSONKind names the kind of a valid JSON value, for error messages.
func JSONKind(v json.RawMessage) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == '"':
		return "a string"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v[0] == 'n':
		return "null"
	}
	return "a number"
}
