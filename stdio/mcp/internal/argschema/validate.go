package argschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file validates JSON text against the subset of JSON Schema that the
// schemas inferred from Go types use (schema.go), and decodes it into the
// Go value in the same pass: the text is read once, never decoded into
// map[string]any first, and integers go into integer fields exactly.
//
// The subset: type (null, boolean, integer, number, string, array, object,
// or a list of them), enum, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, minLength, maxLength (in code points), pattern, items,
// minItems, maxItems, properties, required and additionalProperties (false
// or a schema). title, description, default, format, examples and the like
// are annotations. Anything else is refused when the plan is compiled.

// maxViolations bounds what one validation reports.
const maxViolations = 10

// ValidationError reports JSON that does not satisfy its schema. It holds
// at most 10 violations, in the order they were found. Package mcp
// exports it as mcp.ValidationError.
type ValidationError struct {
	Violations []Violation
}

// Violation is one way a value breaks its schema (mcp.Violation). Path names the value:
// "" for the whole, then member names joined by dots and array indexes in
// brackets ("address.zip", "tags[2]"); a member name that is not a plain
// identifier is quoted (`labels["a b"]`).
type Violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error lists the violations as "path: message", joined by "; ".
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// String returns "path: message", or the message alone at the root.
func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// typeSet is a set of JSON types; the empty set allows every type.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger // a number with no fractional part
	tNumber  // any number, integers included
	tString
	tArray
	tObject
)

var typeNames = []struct {
	t       typeSet
	name, a string
}{
	{tNull, "null", "null"}, {tBoolean, "boolean", "a boolean"}, {tInteger, "integer", "an integer"},
	{tNumber, "number", "a number"}, {tString, "string", "a string"}, {tArray, "array", "an array"},
	{tObject, "object", "an object"},
}

// describe names the set for a message: "an integer or null".
func (ts typeSet) describe() string {
	var parts []string
	for _, n := range typeNames {
		if ts&n.t != 0 && !(n.t == tInteger && ts&tNumber != 0) {
			parts = append(parts, n.a)
		}
	}
	return strings.Join(parts, " or ")
}

// GoKind is how a plan decodes into its Go type.
type GoKind uint8

const (
	kNone      GoKind = iota // validate only
	KBool                    // bool kinds
	KString                  // string kinds
	KInt                     // signed integers
	KUint                    // unsigned integers
	KFloat                   // float32 and float64
	kStruct                  // a struct: one field per property
	kSlice                   // a slice
	kArray                   // a Go array
	kMap                     // a map with string keys
	kInterface               // an interface: encoding/json with UseNumber
	kJSON                    // a json.Unmarshaler or encoding.TextUnmarshaler: encoding/json
)

// Numeric constraints a plan has, as bits of plan.bounds.
const (
	hasMinimum = 1 << iota
	hasMaximum
	hasExclusiveMinimum
	hasExclusiveMaximum
)

// Plan validates one JSON value against one schema of the subset and, when
// it has a Go type, decodes the value into it in the same pass. A Plan is
// immutable once compiled, and safe for concurrent use.
type Plan struct {
	types typeSet

	enum     []any  // string, float64, bool or nil; nil slice: no enum
	enumText string // the enum for messages: "celsius, fahrenheit"

	bounds                   uint8
	minimum, maximum         float64
	exclusiveMin, exclusiveM float64

	minLength, maxLength int // -1 when absent
	pattern              *regexp.Regexp

	items              *Plan
	minItems, maxItems int // -1 when absent

	Props  []Prop
	index  map[string]int // name → props index, for larger objects
	closed bool           // additionalProperties: false
	values *Plan          // additionalProperties' schema, when it is one

	// Decoding: Kind, the Go type under ptrs levels of pointers.
	Kind   GoKind
	Ptrs   int
	goType reflect.Type
	bits   int // integer and float sizes
}

// Prop is one property of an object plan.
type Prop struct {
	Name     string
	Plan     *Plan
	Required bool
	field    []int           // the struct field's index path (kStruct)
	def      json.RawMessage // default, decoded when the property is absent
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// identifier reports whether a member name can be written bare in a path.
func identifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '_' && c != '-' && c != '$' {
			return false
		}
	}
	return true
}

// state is one validation's outcome so far. A violation records where it
// was found, as the value's text (a sub-slice of root), and the path is
// spelled out from that only when the validation fails: the pass itself
// keeps no path and allocates nothing for one.
type state struct {
	root       []byte
	violations []Violation
	at         []located
}

// located is where a violation was found: the value at, and for a
// missing property its name.
type located struct {
	at   []byte
	name string
}

func (st *state) full() bool { return len(st.violations) >= maxViolations }

// add records a violation of the value whose text is at, a sub-slice of
// st.root, or of its member name when name is not "".
func (st *state) add(at []byte, name string, format string, args ...any) {
	if st.full() {
		return
	}
	st.violations = append(st.violations, Violation{Message: fmt.Sprintf(format, args...)})
	st.at = append(st.at, located{at, name})
}

// isRoot reports whether text is the whole value validated.
func (st *state) isRoot(text []byte) bool {
	return len(text) == len(st.root) && &text[0] == &st.root[0]
}

func (st *state) err() error {
	if len(st.violations) == 0 {
		return nil
	}
	for i, l := range st.at {
		st.violations[i].Path = string(pathTo(st.root, l.at, l.name))
	}
	return &ValidationError{Violations: st.violations}
}

// pathTo spells the path from root to the value at (a sub-slice of root),
// then name when it is not "". It walks down from root to the member or
// item whose text holds at. A value that is not inside root (a default)
// gets name alone.
func pathTo(root, at []byte, name string) []byte {
	var b []byte
	off := cap(root) - cap(at)
	if off < 0 || off >= len(root) || &root[off] != &at[0] {
		return appendStep(b, name, -1)
	}
	v, base := root, 0
	for base != off {
		found := false
		switch v[0] {
		case '{':
			for _, f := range rawjson.Fields(v) {
				start := base + cap(v) - cap(f.Value)
				if off >= start && off < start+len(f.Value) {
					b, v, base, found = appendStep(b, f.Key, -1), f.Value, start, true
					break
				}
			}
		case '[':
			rawjson.Elements(v, func(i int, e json.RawMessage) bool {
				start := base + cap(v) - cap(e)
				if off >= start && off < start+len(e) {
					b, v, base, found = appendStep(b, "", i), e, start, true
					return false
				}
				return true
			})
		}
		if !found {
			break
		}
	}
	if name != "" {
		b = appendStep(b, name, -1)
	}
	return b
}

// appendStep appends one step of a path: an item index when index ≥ 0,
// else a member name, bare when it is an identifier.
func appendStep(b []byte, name string, index int) []byte {
	switch {
	case index >= 0:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(index), 10)
		return append(b, ']')
	case identifier(name):
		if len(b) > 0 {
			b = append(b, '.')
		}
		return append(b, name...)
	}
	b = append(b, '[')
	b = rawjson.AppendString(b, name)
	return append(b, ']')
}

// validate checks the JSON text data, which must be valid JSON (as every
// message the wire package decodes is), without decoding it.
func (p *Plan) validate(data []byte) error {
	st := state{root: trimSpace(data)}
	p.run(&st, st.root, reflect.Value{})
	return st.err()
}

// Decode validates data, which must be valid JSON, and decodes it into
// dest, an addressable value of the plan's Go type.
func (p *Plan) Decode(data []byte, dest reflect.Value) error {
	st := state{root: trimSpace(data)}
	p.run(&st, st.root, dest)
	return st.err()
}

// trimSpace returns the one value of data without surrounding space;
// "null" for text with no value.
func trimSpace(data []byte) []byte {
	i := rawjson.SkipSpace(data, 0)
	if i == len(data) {
		return []byte("null")
	}
	return data[i:rawjson.SkipValue(data, i)]
}

// run validates the value text, exactly one JSON value without
// surrounding space, and decodes it into dest when dest is valid.
func (p *Plan) run(st *state, text []byte, dest reflect.Value) {
	if st.full() {
		return
	}
	if p.Kind == kNone || p.Kind >= kInterface {
		if p.Kind >= kInterface && dest.IsValid() {
			p.runThenUnmarshal(st, text, dest)
			return
		}
		dest = reflect.Value{}
	}
	var t typeSet
	switch text[0] {
	case 'n':
		t = tNull
	case 't', 'f':
		t = tBoolean
	case '"':
		t = tString
	case '[':
		t = tArray
	case '{':
		t = tObject
	default:
		t = tNumber
	}
	if t == tNumber {
		p.number(st, text, dest)
		return
	}
	if p.types != 0 && p.types&t == 0 {
		st.add(text, "", "want %s, got %s", p.types.describe(), shown(text))
		return
	}
	if t == tNull {
		// A null leaves a pointer, slice or map nil, and is in the enum of
		// a nullable property when there is one.
		if p.enum != nil && !p.inEnum(func(e any) bool { return e == nil }) {
			st.add(text, "", "null is not one of %s", p.enumText)
		}
		return
	}
	if dest.IsValid() {
		dest = p.alloc(dest)
	}
	switch t {
	case tBoolean:
		b := text[0] == 't'
		if p.enum != nil && !p.inEnum(func(e any) bool { return e == b }) {
			st.add(text, "", "%s is not one of %s", text, p.enumText)
			return
		}
		if dest.IsValid() {
			dest.SetBool(b)
		}
	case tString:
		p.str(st, text, dest)
	case tArray:
		p.array(st, text, dest)
	case tObject:
		p.object(st, text, dest)
	}
}

// runThenUnmarshal validates text with the plan's constraints and then
// leaves the decoding to encoding/json: for types with their own
// UnmarshalJSON or UnmarshalText, and for interfaces, which get
// json.Number rather than float64 so that integers stay exact.
func (p *Plan) runThenUnmarshal(st *state, text []byte, dest reflect.Value) {
	before := len(st.violations)
	p.run(st, text, reflect.Value{})
	if len(st.violations) > before {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	if p.Kind == kInterface {
		dec.UseNumber()
	}
	if err := dec.Decode(dest.Addr().Interface()); err != nil {
		st.add(text, "", "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
}

// alloc follows dest through the plan's pointers, allocating them.
func (p *Plan) alloc(dest reflect.Value) reflect.Value {
	for range p.Ptrs {
		if dest.IsNil() {
			dest.Set(reflect.New(dest.Type().Elem()))
		}
		dest = dest.Elem()
	}
	return dest
}

func (p *Plan) inEnum(match func(any) bool) bool {
	for _, e := range p.enum {
		if match(e) {
			return true
		}
	}
	return false
}

// shown abbreviates a value for a message: strings and numbers as sent
// (cut at 40 bytes), arrays and objects by their type.
func shown(text []byte) string {
	switch text[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	if len(text) <= 40 {
		return string(text)
	}
	cut := 37
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	s := string(text[:cut]) + "…"
	if text[0] == '"' {
		s += `"`
	}
	return s
}

// number is a JSON number as the constraints see it: an exact integer
// when it has no fractional part and fits in 64 bits, else a float64.
type number struct {
	isInt bool   // no fractional part, whatever its size
	exact bool   // mag is its magnitude
	neg   bool   // negative (and not zero)
	mag   uint64 // the magnitude, when exact
	f     float64
}

// cmp compares n with b exactly when n is exact, else as float64s.
func (n *number) cmp(b float64) int {
	if !n.exact {
		switch {
		case n.f < b:
			return -1
		case n.f > b:
			return 1
		}
		return 0
	}
	// Rounding is monotonic, so a float64 that differs from b orders the
	// exact value the same way; only a tie needs the integers compared.
	f := float64(n.mag)
	if n.neg {
		f = -f
	}
	switch {
	case f < b:
		return -1
	case f > b:
		return 1
	case b >= 1<<64:
		return -1
	case b <= -(1 << 64):
		return 1
	}
	// b is an integer of magnitude below 2^64, like n.
	bm, bneg := uint64(math.Abs(b)), b < 0
	switch {
	case n.neg && !bneg:
		return -1
	case !n.neg && bneg:
		return 1
	case n.mag == bm:
		return 0
	case (n.mag < bm) != n.neg:
		return -1
	}
	return 1
}

// parseNumber reads a JSON number's text: whether it is an integer (no
// fractional part once the exponent is applied: 1.0 and 1e2 are), and its
// magnitude when that fits in 64 bits. It does not convert to float64.
func parseNumber(text []byte) number {
	var n number
	i := 0
	if text[0] == '-' {
		n.neg = true
		i++
	}
	intStart := i
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	intDigits := text[intStart:i]
	var frac []byte
	if i < len(text) && text[i] == '.' {
		i++
		start := i
		for i < len(text) && text[i] >= '0' && text[i] <= '9' {
			i++
		}
		frac = text[start:i]
	}
	exp := 0
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		eneg := false
		if text[i] == '+' || text[i] == '-' {
			eneg = text[i] == '-'
			i++
		}
		for ; i < len(text); i++ {
			if exp < 1e8 { // saturate: past this, only the sign matters
				exp = exp*10 + int(text[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	digit := func(k int) byte {
		if k < len(intDigits) {
			return intDigits[k] - '0'
		}
		return frac[k-len(intDigits)] - '0'
	}
	// The value is D × 10^e, D being the digits of both parts.
	first, last := 0, len(intDigits)+len(frac)
	for first < last && digit(first) == 0 {
		first++
	}
	if first == last { // zero, whatever its spelling
		n.isInt, n.exact, n.neg = true, true, false
		return n
	}
	e := exp - len(frac)
	for digit(last-1) == 0 {
		last--
		e++
	}
	if e < 0 {
		return n // a fractional part
	}
	n.isInt = true
	if last-first+e > 20 {
		return n // at least 10^20: beyond 64 bits
	}
	var mag uint64
	for k := first; k < last; k++ {
		hi, lo := bits.Mul64(mag, 10)
		lo, carry := bits.Add64(lo, uint64(digit(k)), 0)
		if hi != 0 || carry != 0 {
			return n
		}
		mag = lo
	}
	for range e {
		hi, lo := bits.Mul64(mag, 10)
		if hi != 0 {
			return n
		}
		mag = lo
	}
	n.exact, n.mag = true, mag
	return n
}

// number validates a number and decodes it into an integer or float
// field. An integer field takes only integers in its type's range, with
// their exact value; a float field's constraints see the float it gets.
func (p *Plan) number(st *state, text []byte, dest reflect.Value) {
	if p.types != 0 && p.types&(tNumber|tInteger) == 0 {
		st.add(text, "", "want %s, got %s", p.types.describe(), shown(text))
		return
	}
	n := parseNumber(text)
	if p.types != 0 && p.types&tNumber == 0 && !n.isInt {
		st.add(text, "", "want %s, got %s", p.types.describe(), shown(text))
		return
	}
	switch {
	case p.Kind == KInt || p.Kind == KUint:
		if !p.fits(n) {
			st.add(text, "", "%s is outside the integer range %s", shown(text), p.intRange())
			return
		}
	case p.Kind == KFloat || !n.exact:
		size := 64
		if p.Kind == KFloat {
			size = p.bits
		}
		f, err := strconv.ParseFloat(string(text), size)
		if err != nil {
			st.add(text, "", "%s is out of range for a number", shown(text))
			return
		}
		n.f, n.exact = f, false
	}
	if p.bounds != 0 {
		switch {
		case p.bounds&hasMinimum != 0 && n.cmp(p.minimum) < 0:
			st.add(text, "", "%s is below the minimum %s", shown(text), formatFloat(p.minimum))
			return
		case p.bounds&hasMaximum != 0 && n.cmp(p.maximum) > 0:
			st.add(text, "", "%s is above the maximum %s", shown(text), formatFloat(p.maximum))
			return
		case p.bounds&hasExclusiveMinimum != 0 && n.cmp(p.exclusiveMin) <= 0:
			st.add(text, "", "%s is not above the exclusive minimum %s", shown(text), formatFloat(p.exclusiveMin))
			return
		case p.bounds&hasExclusiveMaximum != 0 && n.cmp(p.exclusiveM) >= 0:
			st.add(text, "", "%s is not below the exclusive maximum %s", shown(text), formatFloat(p.exclusiveM))
			return
		}
	}
	if p.enum != nil && !p.inEnum(func(e any) bool { f, ok := e.(float64); return ok && n.cmp(f) == 0 }) {
		st.add(text, "", "%s is not one of %s", shown(text), p.enumText)
		return
	}
	if !dest.IsValid() {
		return
	}
	dest = p.alloc(dest)
	switch p.Kind {
	case KInt:
		v := int64(n.mag)
		if n.neg {
			v = -v // n.mag is at most 2^63 here, and -(2^63) wraps to itself
		}
		dest.SetInt(v)
	case KUint:
		dest.SetUint(n.mag)
	case KFloat:
		dest.SetFloat(n.f)
	}
}

// fits reports whether n is a value of the plan's integer type.
func (p *Plan) fits(n number) bool {
	switch {
	case !n.exact:
		return false
	case p.Kind == KUint:
		return !n.neg && (p.bits == 64 || n.mag < 1<<p.bits)
	case n.neg:
		return n.mag <= 1<<(p.bits-1)
	}
	return n.mag < 1<<(p.bits-1)
}

// intRange spells the range of the plan's integer type.
func (p *Plan) intRange() string {
	if p.Kind == KUint {
		return "0 to " + strconv.FormatUint(math.MaxUint64>>(64-p.bits), 10)
	}
	return strconv.FormatInt(math.MinInt64>>(64-p.bits), 10) + " to " + strconv.FormatInt(math.MaxInt64>>(64-p.bits), 10)
}

// formatFloat spells a bound as JSON would.
func formatFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return string(rawjson.AppendFloat(nil, f))
}

// str validates a string and decodes it into a string field. A string
// without escapes is checked in place, without a copy.
func (p *Plan) str(st *state, text []byte, dest reflect.Value) {
	if p.enum == nil && p.minLength < 0 && p.maxLength < 0 && p.pattern == nil && !dest.IsValid() {
		return
	}
	b := text[1 : len(text)-1]
	if bytes.IndexByte(b, '\\') >= 0 || !utf8.Valid(b) {
		s, _ := rawjson.StringValue(text)
		b = []byte(s)
	}
	if p.minLength >= 0 || p.maxLength >= 0 {
		n := utf8.RuneCount(b)
		if p.minLength >= 0 && n < p.minLength {
			st.add(text, "", "%s is shorter than %d %s", shown(text), p.minLength, plural(p.minLength, "character"))
			return
		}
		if p.maxLength >= 0 && n > p.maxLength {
			st.add(text, "", "%s is longer than %d %s", shown(text), p.maxLength, plural(p.maxLength, "character"))
			return
		}
	}
	if p.pattern != nil && !p.pattern.Match(b) {
		st.add(text, "", "%s does not match the pattern %s", shown(text), p.pattern)
		return
	}
	if p.enum != nil && !p.inEnum(func(e any) bool { s, ok := e.(string); return ok && s == string(b) }) {
		st.add(text, "", "%s is not one of %s", shown(text), p.enumText)
		return
	}
	if dest.IsValid() {
		dest.SetString(string(b))
	}
}

// array validates an array item by item and decodes it into a slice or a
// Go array.
func (p *Plan) array(st *state, text []byte, dest reflect.Value) {
	slice := dest.IsValid() && p.Kind == kSlice
	if slice {
		dest.Set(reflect.MakeSlice(p.goType, 0, 4))
	}
	n := 0
	rawjson.Elements(text, func(i int, item json.RawMessage) bool {
		n++
		if p.items == nil || st.full() {
			return true
		}
		var into reflect.Value
		switch {
		case slice:
			// Grown in place: SetLen on the field allocates nothing,
			// where Value.Slice would allocate a header per item.
			if i == dest.Cap() {
				grown := reflect.MakeSlice(p.goType, i, 2*i)
				reflect.Copy(grown, dest)
				dest.Set(grown)
			}
			dest.SetLen(i + 1)
			into = dest.Index(i)
		case dest.IsValid() && p.Kind == kArray && i < dest.Len():
			into = dest.Index(i)
		}
		p.items.run(st, item, into)
		return true
	})
	switch {
	case p.minItems >= 0 && n < p.minItems:
		st.add(text, "", "has %d %s, want at least %d", n, plural(n, "item"), p.minItems)
	case p.maxItems >= 0 && n > p.maxItems:
		st.add(text, "", "has %d %s, want at most %d", n, plural(n, "item"), p.maxItems)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// lookup returns the index of the property named key, or -1.
func (p *Plan) lookup(key []byte) int {
	if p.index != nil {
		if i, ok := p.index[string(key)]; ok {
			return i
		}
		return -1
	}
	for i := range p.Props {
		if p.Props[i].Name == string(key) {
			return i
		}
	}
	return -1
}

// object validates an object member by member, in one pass, and decodes
// it into a struct or a map. Unknown members of a closed object and
// repeated names are violations; a missing required property is one too,
// and a missing optional one with a default gets the default.
func (p *Plan) object(st *state, text []byte, dest reflect.Value) {
	var seenSmall uint64
	var seenBig []bool
	if len(p.Props) > 64 {
		seenBig = make([]bool, len(p.Props))
	}
	var m reflect.Value
	if dest.IsValid() && p.Kind == kMap {
		m = reflect.MakeMap(p.goType)
	}
	i := rawjson.SkipSpace(text, 1)
	for i < len(text) && text[i] == '"' && !st.full() {
		kEnd := rawjson.SkipString(text, i)
		key := text[i+1 : kEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			s, _ := rawjson.StringValue(text[i:kEnd])
			key = []byte(s)
		}
		i = rawjson.SkipSpace(text, kEnd)
		i = rawjson.SkipSpace(text, i+1) // ':'
		vEnd := rawjson.SkipValue(text, i)
		value := text[i:vEnd]
		i = rawjson.SkipSpace(text, vEnd)
		if i < len(text) && text[i] == ',' {
			i = rawjson.SkipSpace(text, i+1)
		}

		k := p.lookup(key)
		if k < 0 {
			switch {
			case p.closed && st.isRoot(text):
				st.add(value, "", "unknown argument")
			case p.closed:
				st.add(value, "", "unknown property")
			case p.values != nil:
				var into, mapKey reflect.Value
				if m.IsValid() {
					mapKey = reflect.ValueOf(string(key)).Convert(p.goType.Key())
					if m.MapIndex(mapKey).IsValid() {
						st.add(value, "", "appears more than once")
						continue
					}
					into = reflect.New(p.goType.Elem()).Elem()
				}
				p.values.run(st, value, into)
				if into.IsValid() {
					m.SetMapIndex(mapKey, into)
				}
			}
			continue
		}
		if seenBig != nil {
			if seenBig[k] {
				st.add(value, "", "appears more than once")
				continue
			}
			seenBig[k] = true
		} else {
			if seenSmall&(1<<k) != 0 {
				st.add(value, "", "appears more than once")
				continue
			}
			seenSmall |= 1 << k
		}
		pr := &p.Props[k]
		pr.Plan.run(st, value, p.field(dest, pr))
	}
	for k := range p.Props {
		if (seenBig != nil && seenBig[k]) || (seenBig == nil && seenSmall&(1<<k) != 0) {
			continue
		}
		pr := &p.Props[k]
		switch {
		case pr.Required:
			st.add(text, pr.Name, "required")
		case pr.def != nil && dest.IsValid():
			pr.Plan.run(st, pr.def, p.field(dest, pr))
		}
	}
	if m.IsValid() {
		dest.Set(m)
	}
}

// field returns the struct field of a property, allocating the embedded
// structs it is promoted through; the zero Value when not decoding.
func (p *Plan) field(dest reflect.Value, pr *Prop) reflect.Value {
	if !dest.IsValid() || p.Kind != kStruct {
		return reflect.Value{}
	}
	v := dest
	for j, x := range pr.field {
		if j > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
