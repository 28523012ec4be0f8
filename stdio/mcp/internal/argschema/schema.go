package argschema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file infers JSON Schemas from Go types and compiles them into
// plans (validate.go). Inference is github.com/google/jsonschema-go's
// (jsonschema.For): json tag names, a field without omitempty or omitzero
// is required, a jsonschema tag is the description, a pointer is nullable,
// a struct is closed (additionalProperties: false). The mcp tag adds what
// those tags cannot say; see [AddTool].

// Schema is a Go type's inferred schema, with its mcp tags applied,
// and its plan.
type Schema struct {
	JSON *jsonschema.Schema
	Raw  json.RawMessage // the schema, marshalled
	Plan *Plan
}

// Infer infers the schema of t, applies its mcp tags and compiles
// its plan.
func Infer(t reflect.Type) (*Schema, error) {
	s, err := jsonschema.ForType(t, ForOptions())
	if err != nil {
		return nil, err
	}
	if err := ApplyTags(s, t); err != nil {
		return nil, err
	}
	p, err := Compile(s, t)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if raw, err = rawjson.Compact(raw); err != nil {
		return nil, err
	}
	return &Schema{JSON: s, Raw: raw, Plan: p}, nil
}

// ForOptions are jsonschema-go's options: json.RawMessage is any JSON
// value, and json.Number a number, where jsonschema-go would infer an
// array of bytes and a string from their Go types.
func ForOptions() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[json.Number]():     {Type: "number"},
	}}
}

// Deref returns t without its pointers.
func Deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// structField is a struct field as JSON sees it.
type structField struct {
	reflect.StructField
	name      string // the JSON name
	omitEmpty bool   // omitempty or omitzero: optional
}

// jsonFields returns the fields of struct type t that jsonschema-go makes
// properties of: the visible exported fields, promoted ones included,
// without anonymous fields themselves and those tagged "-".
func jsonFields(t reflect.Type) ([]structField, error) {
	var out []structField
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		sf := structField{StructField: f, name: f.Name}
		if tag, ok := f.Tag.Lookup("json"); ok {
			name, opts, found := strings.Cut(tag, ",")
			if name == "-" && !found {
				continue
			}
			if name != "" {
				sf.name = name
			}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty", "omitzero":
					sf.omitEmpty = true
				case "string":
					return nil, fmt.Errorf("field %s.%s: the json tag option string is not supported", t, f.Name)
				}
			}
		}
		out = append(out, sf)
	}
	seen := map[string]bool{}
	for _, f := range out {
		if seen[f.name] {
			return nil, fmt.Errorf("%s has two fields named %q in JSON", t, f.name)
		}
		seen[f.name] = true
	}
	return out, nil
}

// The keys of the mcp struct tag. Array keys apply to the field's own
// schema; value keys to its items when the field is a slice or an array,
// and to its values when it is a map, at the innermost level.
var (
	arrayKeys = []string{"minItems", "maxItems", "default", "title"}
	valueKeys = []string{"enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"minLength", "maxLength", "pattern", "format"}
)

// ApplyTags applies the mcp tags of t's struct fields, at any depth, to
// the schema inferred for t.
func ApplyTags(s *jsonschema.Schema, t reflect.Type) error {
	t = Deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return ApplyTags(s.Items, t.Elem())
		}
	case reflect.Map:
		if s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties) {
			return ApplyTags(s.AdditionalProperties, t.Elem())
		}
	case reflect.Struct:
		if s.Properties == nil && len(s.Required) == 0 {
			return nil // a type with its own schema (time.Time), or no fields
		}
		fields, err := jsonFields(t)
		if err != nil {
			return err
		}
		for _, f := range fields {
			ps := s.Properties[f.name]
			if ps == nil {
				continue
			}
			if tag, ok := f.Tag.Lookup("mcp"); ok {
				if err := applyTag(ps, f.Type, tag); err != nil {
					return fmt.Errorf("mcp tag of %s.%s: %w", t, f.Name, err)
				}
			}
			if err := ApplyTags(ps, f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitTag splits an mcp tag into key=value pairs at commas; a comma
// stays inside a value unless what follows it is a known key.
func splitTag(tag string) [][2]string {
	var out [][2]string
	for part := range strings.SplitSeq(tag, ",") {
		key, value, _ := strings.Cut(part, "=")
		if len(out) > 0 && !slices.Contains(arrayKeys, key) && !slices.Contains(valueKeys, key) {
			out[len(out)-1][1] += "," + part
			continue
		}
		out = append(out, [2]string{key, value})
	}
	return out
}

// applyTag applies one field's mcp tag to its schema s; t is the field's
// Go type.
func applyTag(s *jsonschema.Schema, t reflect.Type, tag string) error {
	for _, kv := range splitTag(tag) {
		key, value := kv[0], kv[1]
		target, tt := s, Deref(t)
		if slices.Contains(valueKeys, key) {
			for target != nil && (tt.Kind() == reflect.Slice || tt.Kind() == reflect.Array || tt.Kind() == reflect.Map) {
				if tt.Kind() == reflect.Map {
					target = target.AdditionalProperties
				} else {
					target = target.Items
				}
				tt = Deref(tt.Elem())
			}
		} else if !slices.Contains(arrayKeys, key) {
			return fmt.Errorf("unknown key %q (known: %s, %s)", key, strings.Join(valueKeys, ", "), strings.Join(arrayKeys, ", "))
		}
		if target == nil {
			return fmt.Errorf("%s does not apply to %s", key, t)
		}
		if err := applyKey(target, tt, key, value); err != nil {
			return fmt.Errorf("%s=%s: %w", key, value, err)
		}
	}
	return nil
}

// applyKey sets keyword key of schema s, whose Go type (pointers removed)
// is t, from the tag value.
func applyKey(s *jsonschema.Schema, t reflect.Type, key, value string) error {
	kind := valueKind(t)
	need := func(kinds ...string) error {
		if !slices.Contains(kinds, kind) {
			return fmt.Errorf("applies to %s, not %s", strings.Join(kinds, " and "), t)
		}
		return nil
	}
	number := func() (*float64, error) {
		if err := need("integer", "number"); err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, errors.New("not a number")
		}
		return &f, nil
	}
	count := func() (*int, error) {
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return nil, errors.New("not a count")
		}
		return &n, nil
	}
	var err error
	switch key {
	case "title":
		s.Title = value
	case "format":
		if err = need("string"); err == nil {
			s.Format = value
		}
	case "pattern":
		if err = need("string"); err == nil {
			if _, err = regexp.Compile(value); err == nil {
				s.Pattern = value
			}
		}
	case "minLength":
		if err = need("string"); err == nil {
			s.MinLength, err = count()
		}
	case "maxLength":
		if err = need("string"); err == nil {
			s.MaxLength, err = count()
		}
	case "minItems", "maxItems":
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return fmt.Errorf("applies to slices and arrays, not %s", t)
		}
		if key == "minItems" {
			s.MinItems, err = count()
		} else {
			s.MaxItems, err = count()
		}
	case "minimum":
		s.Minimum, err = number()
	case "maximum":
		s.Maximum, err = number()
	case "exclusiveMinimum":
		s.ExclusiveMinimum, err = number()
	case "exclusiveMaximum":
		s.ExclusiveMaximum, err = number()
	case "enum":
		s.Enum, err = enumValues(kind, value)
		if err == nil && slices.Contains(s.Types, "null") {
			s.Enum = append(s.Enum, nil) // the field may be null: so may the enum
		}
	case "default":
		if kind == "string" {
			s.Default = rawjson.AppendString(nil, value)
		} else if s.Default, err = rawjson.Compact([]byte(value)); err != nil {
			err = errors.New("not JSON")
		}
	}
	return err
}

// valueKind names the JSON kind of values of Go type t for the mcp tag's
// checks: string, integer, number, boolean or other.
func valueKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return "other"
}

// enumValues parses "a|b|c" as values of the kind.
func enumValues(kind, list string) ([]any, error) {
	var out []any
	for v := range strings.SplitSeq(list, "|") {
		switch kind {
		case "string":
			out = append(out, v)
		case "integer", "number":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || (kind == "integer" && !parseNumber([]byte(v)).isInt) {
				return nil, fmt.Errorf("%q is not an %s", v, kind)
			}
			out = append(out, f)
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil || (v != "true" && v != "false") {
				return nil, fmt.Errorf("%q is not a boolean", v)
			}
			out = append(out, b)
		default:
			return nil, errors.New("applies to strings, numbers and booleans")
		}
	}
	return out, nil
}

// isFalse reports whether s is the schema false, as jsonschema-go
// represents it ({"not":{}}).
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	schemaFields    = reflect.VisibleFields(reflect.TypeFor[jsonschema.Schema]())
)

// Compile makes the plan of schema s for Go type t; t nil makes a plan
// that validates only. It refuses keywords outside the subset of
// validate.go.
func Compile(s *jsonschema.Schema, t reflect.Type) (*Plan, error) {
	if err := checkSubset(s); err != nil {
		return nil, err
	}
	p := &Plan{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, name := range types {
		i := slices.IndexFunc(typeNames, func(n struct {
			t       typeSet
			name, a string
		}) bool {
			return n.name == name
		})
		if i < 0 {
			return nil, fmt.Errorf("unknown type %q", name)
		}
		p.types |= typeNames[i].t
	}
	if s.Enum != nil {
		p.enum = s.Enum
		var texts []string
		for _, e := range s.Enum {
			switch v := e.(type) {
			case nil:
				continue
			case string:
				texts = append(texts, v)
			case float64:
				texts = append(texts, formatFloat(v))
			case bool:
				texts = append(texts, strconv.FormatBool(v))
			default:
				return nil, fmt.Errorf("enum value %v: only strings, numbers, booleans and null are supported", e)
			}
		}
		p.enumText = strings.Join(texts, ", ")
	}
	for _, b := range []struct {
		v    *float64
		bit  uint8
		into *float64
	}{
		{s.Minimum, hasMinimum, &p.minimum}, {s.Maximum, hasMaximum, &p.maximum},
		{s.ExclusiveMinimum, hasExclusiveMinimum, &p.exclusiveMin}, {s.ExclusiveMaximum, hasExclusiveMaximum, &p.exclusiveM},
	} {
		if b.v != nil {
			p.bounds |= b.bit
			*b.into = *b.v
		}
	}
	for _, c := range []struct {
		v    *int
		into *int
	}{{s.MinLength, &p.minLength}, {s.MaxLength, &p.maxLength}, {s.MinItems, &p.minItems}, {s.MaxItems, &p.maxItems}} {
		if c.v != nil {
			*c.into = *c.v
		}
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, err
		}
		p.pattern = re
	}

	var elem reflect.Type // of items and map values
	if t != nil {
		p.Kind, p.goType, p.Ptrs = kindOf(t)
		p.bits = 64
		switch p.Kind {
		case KInt, KUint, KFloat:
			p.bits = p.goType.Bits()
		case kSlice, kArray, kMap:
			elem = p.goType.Elem()
		case kInterface, kJSON:
			t = nil // encoding/json decodes; the plan only validates
		}
	}

	if s.Items != nil {
		items, err := Compile(s.Items, elem)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		p.items = items
	}
	switch {
	case isFalse(s.AdditionalProperties):
		p.closed = true
	case s.AdditionalProperties != nil:
		values, err := Compile(s.AdditionalProperties, elem)
		if err != nil {
			return nil, fmt.Errorf("additionalProperties: %w", err)
		}
		p.values = values
	}
	if err := p.compileProps(s, t); err != nil {
		return nil, err
	}
	return p, nil
}

// compileProps makes the properties of an object plan, in the schema's
// property order, and checks their defaults.
func (p *Plan) compileProps(s *jsonschema.Schema, t reflect.Type) error {
	var fields map[string]structField
	if p.Kind == kStruct && t != nil {
		list, err := jsonFields(p.goType)
		if err != nil {
			return err
		}
		fields = map[string]structField{}
		for _, f := range list {
			fields[f.name] = f
			if _, ok := s.Properties[f.name]; !ok {
				return fmt.Errorf("field %s.%s has no property in the schema", p.goType, f.Name)
			}
		}
	}
	names := slices.Clone(s.PropertyOrder)
	for _, n := range slices.Sorted(maps.Keys(s.Properties)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range names {
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		var ft reflect.Type
		pr := Prop{Name: name, Required: slices.Contains(s.Required, name), def: ps.Default}
		if fields != nil {
			f, ok := fields[name]
			if !ok {
				return fmt.Errorf("property %q has no field in %s", name, p.goType)
			}
			ft, pr.field = f.Type, f.Index
			if err := settable(p.goType, f.Index); err != nil {
				return err
			}
		}
		sub, err := Compile(ps, ft)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		pr.Plan = sub
		if pr.def != nil {
			var scratch reflect.Value
			if ft != nil {
				scratch = reflect.New(ft).Elem()
			}
			st := state{root: pr.def}
			sub.run(&st, pr.def, scratch)
			if err := st.err(); err != nil {
				return fmt.Errorf("%s: the default %s is invalid: %w", name, pr.def, err)
			}
		}
		p.Props = append(p.Props, pr)
	}
	for _, r := range s.Required {
		if s.Properties[r] == nil {
			return fmt.Errorf("required property %q is not among the properties", r)
		}
	}
	if len(p.Props) > 8 {
		p.index = make(map[string]int, len(p.Props))
		for i, pr := range p.Props {
			p.index[pr.Name] = i
		}
	}
	return nil
}

// settable checks that a promoted field can be reached to set it: an
// embedded pointer on its way must be exported, so that it can be
// allocated.
func settable(t reflect.Type, index []int) error {
	for i := range index[:len(index)-1] {
		f := t.Field(index[i])
		if f.Type.Kind() == reflect.Pointer && !f.IsExported() {
			return fmt.Errorf("%s embeds *%s, an unexported pointer that decoding cannot allocate", t, f.Type.Elem())
		}
		t = Deref(f.Type)
	}
	return nil
}

// kindOf says how a plan decodes into Go type t.
func kindOf(t reflect.Type) (GoKind, reflect.Type, int) {
	ptrs := 0
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		ptrs++
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) ||
		t == reflect.TypeFor[json.Number]() {
		return kJSON, t, ptrs
	}
	switch t.Kind() {
	case reflect.Bool:
		return KBool, t, ptrs
	case reflect.String:
		return KString, t, ptrs
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return KInt, t, ptrs
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return KUint, t, ptrs
	case reflect.Float32, reflect.Float64:
		return KFloat, t, ptrs
	case reflect.Struct:
		return kStruct, t, ptrs
	case reflect.Slice:
		return kSlice, t, ptrs
	case reflect.Array:
		return kArray, t, ptrs
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return kMap, t, ptrs
		}
	}
	return kInterface, t, ptrs // interfaces, and maps with other keys
}

// checkSubset refuses a schema that uses a keyword outside the subset of
// validate.go, naming it.
func checkSubset(s *jsonschema.Schema) error {
	c := *s
	c.Title, c.Description, c.Default, c.Format, c.Comment = "", "", nil, "", ""
	c.Deprecated, c.ReadOnly, c.WriteOnly, c.Examples, c.Extra = false, false, false, nil, nil
	c.Type, c.Types, c.Enum, c.Minimum, c.Maximum, c.ExclusiveMinimum, c.ExclusiveMaximum = "", nil, nil, nil, nil, nil, nil
	c.MinLength, c.MaxLength, c.Pattern, c.Items, c.MinItems, c.MaxItems = nil, nil, "", nil, nil, nil
	c.Properties, c.Required, c.AdditionalProperties, c.PropertyOrder = nil, nil, nil, nil
	v := reflect.ValueOf(c)
	for _, f := range schemaFields {
		if !v.FieldByIndex(f.Index).IsZero() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				name = f.Name
			}
			return fmt.Errorf("the keyword %s is not supported", name)
		}
	}
	return nil
}

// InferFlat infers the schema of a struct (or pointer to one) whose
// properties all pass ok: a flat object of the fields of t.
func InferFlat(t reflect.Type, ok func(*Prop) bool) (*Schema, error) {
	if Deref(t).Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	ts, err := Infer(t)
	if err != nil {
		return nil, err
	}
	for i := range ts.Plan.Props {
		pr := &ts.Plan.Props[i]
		if pr.Plan.Ptrs > 0 || !ok(pr) {
			return nil, fmt.Errorf("field %s of %s has an unsupported type", pr.Name, t)
		}
	}
	return ts, nil
}
