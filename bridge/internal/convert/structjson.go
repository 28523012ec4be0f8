package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file converts between JSON text and google.protobuf.Struct and
// Value, both ways.
//
// The stdio Client hands over results it has validated, so the parser need
// not report where JSON goes wrong; it still never panics on bad input. It
// is what protojson does for Struct and Value (numbers become doubles; one
// outside the float64 range is an error), at a fraction of the cost:
// results are decoded on every typed call. With duplicate keys the last one
// wins, as rawjson.Member has it. The writer emits compact JSON with keys
// sorted (a Struct is a map; sorting makes the bytes deterministic) and
// numbers as encoding/json writes them.

// Struct converts a JSON object to a Struct.
func Struct(v json.RawMessage) (*structpb.Struct, error) {
	i := rawjson.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	st := &structpb.Struct{}
	t := newText(v)
	end, err := parseObject(&t, i, 0, st)
	if err == nil && rawjson.SkipSpace(v, end) != len(v) {
		err = errBadJSON
	}
	return st, err
}

// Value converts any JSON value to a Value.
func Value(v json.RawMessage) (*structpb.Value, error) {
	t := newText(v)
	val, end, err := parseValue(&t, 0, 0)
	if err == nil && rawjson.SkipSpace(v, end) != len(v) {
		err = errBadJSON
	}
	return val, err
}

var errBadJSON = errors.New("malformed JSON")

// text is the JSON text being converted, with its bytes also as one
// string, s: a string without escapes, a key or a value, is a substring
// of s rather than an allocation of its own. A result's Struct and Value
// are built on every typed call (a CallTool result's _meta and
// structuredContent), and most of their strings have no escapes. The copy
// is made for text with no escapes at all, where every string's bytes are
// in it once, and for small text (sharedTextMax); a large text with
// escapes, whose decoded strings would be held twice, gets none (s empty)
// and every string is its own.
type text struct {
	b []byte
	s string
}

// sharedTextMax is the largest text with escapes that is copied to s.
const sharedTextMax = 4 << 10

func newText(b []byte) text {
	t := text{b: b}
	if len(b) <= sharedTextMax || bytes.IndexByte(b, '\\') < 0 {
		t.s = string(b)
	}
	return t
}

// str is parseString, a substring of t when the string has no escapes.
func (t *text) str(i int) (string, int, error) {
	start := i + 1
	end := rawjson.SkipString(t.b, i) - 1 // the closing quote
	if t.s != "" && end >= start && t.b[end] == '"' && bytes.IndexByte(t.b[start:end], '\\') < 0 {
		return t.s[start:end], end + 1, nil
	}
	return parseString(t.b, i)
}

// maxJSONDepth bounds nesting, so that a deep result cannot exhaust the
// stack.
const maxJSONDepth = 10000

// parseString decodes the JSON string that starts at b[i].
func parseString(b []byte, i int) (string, int, error) {
	start := i + 1
	end := rawjson.SkipString(b, i) - 1 // the closing quote
	if end < start || b[end] != '"' {
		return "", len(b), errBadJSON
	}
	j := bytes.IndexByte(b[start:end], '\\')
	if j < 0 { // no escapes: the common case
		return string(b[start:end]), end + 1, nil
	}
	j += start
	// Escapes only shrink the text, so the token's length bounds the
	// string's: one allocation of that size, written once and returned
	// without another copy (a 10 MiB text block with a newline every line
	// took five times its size when the buffer grew as it went;
	// docs/performance.md).
	var out strings.Builder
	out.Grow(end - start)
	out.Write(b[start:j])
	for j < len(b) {
		c := b[j]
		switch {
		case j == end:
			return out.String(), j + 1, nil
		case c != '\\':
			k := bytes.IndexByte(b[j:end], '\\')
			if k < 0 {
				k = end - j
			}
			out.Write(b[j : j+k])
			j += k
			continue
		}
		if j+1 >= len(b) {
			break
		}
		switch e := b[j+1]; e {
		case '"', '\\', '/':
			out.WriteByte(e)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := hex4(b, j+2)
			if !ok {
				return "", j, errBadJSON
			}
			j += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(b, j+2); ok && j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out.WriteRune(d)
						j += 6
						continue
					}
				}
				r = utf8.RuneError // a lone surrogate, as encoding/json has it
			}
			out.WriteRune(r)
			continue
		default:
			return "", j, errBadJSON
		}
		j += 2
	}
	return "", j, errBadJSON
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// parseValue decodes the JSON value that starts at b[i] (after any space).
func parseValue(t *text, i, depth int) (*structpb.Value, int, error) {
	b := t.b
	i = rawjson.SkipSpace(b, i)
	if i >= len(b) || depth > maxJSONDepth {
		return nil, i, errBadJSON
	}
	switch c := b[i]; c {
	case '{':
		o := &structValue{}
		o.k.StructValue, o.v.Kind = &o.s, &o.k
		j, err := parseObject(t, i, depth+1, &o.s)
		return &o.v, j, err
	case '[':
		o := &listValue{}
		o.k.ListValue, o.v.Kind = &o.l, &o.k
		list := &o.l
		i = rawjson.SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return &o.v, i + 1, nil
		}
		for {
			v, j, err := parseValue(t, i, depth+1)
			if err != nil {
				return nil, j, err
			}
			list.Values = append(list.Values, v)
			i = rawjson.SkipSpace(b, j)
			switch {
			case i < len(b) && b[i] == ',':
				i++
			case i < len(b) && b[i] == ']':
				return &o.v, i + 1, nil
			default:
				return nil, i, errBadJSON
			}
		}
	case '"':
		str, j, err := t.str(i)
		o := &stringValue{k: structpb.Value_StringValue{StringValue: str}}
		o.v.Kind = &o.k
		return &o.v, j, err
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if lit[0] == c && len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
				if c == 'n' {
					o := &nullValue{}
					o.v.Kind = &o.k
					return &o.v, i + 4, nil
				}
				o := &boolValue{k: structpb.Value_BoolValue{BoolValue: c == 't'}}
				o.v.Kind = &o.k
				return &o.v, i + len(lit), nil
			}
		}
		return nil, i, errBadJSON
	}
	f, j, err := parseNumber(b, i)
	if err != nil {
		return nil, j, err
	}
	o := &numberValue{k: structpb.Value_NumberValue{NumberValue: f}}
	o.v.Kind = &o.k
	return &o.v, j, nil
}

// A Value is allocated together with its kind, and with the Struct or
// ListValue the kind holds: one allocation where structpb's constructors
// take two or three, for what every typed call builds (a result's _meta
// and structuredContent). The Value is an ordinary message; the
// pointers are into one object, which stays alive while any is held.
type (
	structValue struct {
		v structpb.Value
		k structpb.Value_StructValue
		s structpb.Struct
	}
	listValue struct {
		v structpb.Value
		k structpb.Value_ListValue
		l structpb.ListValue
	}
	stringValue struct {
		v structpb.Value
		k structpb.Value_StringValue
	}
	numberValue struct {
		v structpb.Value
		k structpb.Value_NumberValue
	}
	boolValue struct {
		v structpb.Value
		k structpb.Value_BoolValue
	}
	nullValue struct {
		v structpb.Value
		k structpb.Value_NullValue
	}
)

// parseNumber decodes the JSON number that starts at b[i] as a double.
func parseNumber(b []byte, i int) (float64, int, error) {
	j := rawjson.SkipValue(b, i) // a number runs to the next delimiter
	if !isJSONNumber(b[i:j]) {
		return 0, j, errBadJSON
	}
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil {
		return 0, j, fmt.Errorf("the number %s does not fit a double", b[i:j])
	}
	return f, j, nil
}

// isJSONNumber reports whether tok is a JSON number (RFC 8259 §6), which
// strconv.ParseFloat alone does not check (it takes "Inf", "0x1p3", "+1").
func isJSONNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}

// parseObject decodes the JSON object that starts at b[i] into st.
func parseObject(t *text, i, depth int, st *structpb.Struct) (int, error) {
	b := t.b
	st.Fields = map[string]*structpb.Value{}
	i = rawjson.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		i = rawjson.SkipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return i, errBadJSON
		}
		key, j, err := t.str(i)
		if err != nil {
			return j, err
		}
		i = rawjson.SkipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return i, errBadJSON
		}
		v, j, err := parseValue(t, i+1, depth)
		if err != nil {
			return j, err
		}
		st.Fields[key] = v
		i = rawjson.SkipSpace(b, j)
		switch {
		case i < len(b) && b[i] == ',':
			i++
		case i < len(b) && b[i] == '}':
			return i + 1, nil
		default:
			return i, errBadJSON
		}
	}
}

// AppendStruct appends s as a JSON object, keys sorted.
func AppendStruct(dst []byte, s *structpb.Struct) ([]byte, error) {
	fields := s.GetFields()
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = rawjson.AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendValue(dst, fields[k]); err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// AppendValue appends v as JSON. A number that is not finite, or a Value
// with no kind set, is an error, as protojson has it.
func AppendValue(dst []byte, v *structpb.Value) ([]byte, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return append(dst, "null"...), nil
	case *structpb.Value_BoolValue:
		return strconv.AppendBool(dst, k.BoolValue), nil
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return nil, fmt.Errorf("the number %v is not valid JSON", k.NumberValue)
		}
		return rawjson.AppendFloat(dst, k.NumberValue), nil
	case *structpb.Value_StringValue:
		return rawjson.AppendString(dst, k.StringValue), nil
	case *structpb.Value_StructValue:
		return AppendStruct(dst, k.StructValue)
	case *structpb.Value_ListValue:
		dst = append(dst, '[')
		for i, el := range k.ListValue.GetValues() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendValue(dst, el); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return append(dst, ']'), nil
	}
	return nil, errors.New("a google.protobuf.Value has no kind set")
}

// requestMeta is a typed request's `_meta`: the caller's meta plus the keys
