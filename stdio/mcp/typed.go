package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/stdio/mcp/internal/argschema"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file holds the typed registrations: a tool, prompt or resource
// template whose handler takes a Go value the runtime has validated and
// decoded, and whose schema is inferred from the value's type (package
// internal/argschema), and the typed form of elicitation.

// ValidationError reports JSON that does not satisfy its schema: a typed
// tool's or prompt's arguments, or the content of an elicitation answer
// ([Elicit]). It holds at most 10 violations, in the order they were found.
type ValidationError = argschema.ValidationError

// Violation is one way a value breaks its schema. Path names the value:
// "" for the whole, then member names joined by dots and array indexes in
// brackets ("address.zip", "tags[2]"); a member name that is not a plain
// identifier is quoted (`labels["a b"]`).
type Violation = argschema.Violation

// MetaArgumentErrors is the _meta key under which an isError result for
// invalid tool arguments lists the violations, as [Violation] objects
// ({"path","message"}); see [AddTool].
const MetaArgumentErrors = "io.github.mcpbridge/argumentErrors"

// ToolFunc is a typed tool handler: in holds the arguments, validated
// against the tool's input schema and decoded. Its errors are sent as
// [ToolHandler]'s are.
type ToolFunc[In, Out any] func(ctx context.Context, req *CallToolRequest, in In) (Out, error)

// AddTool registers a tool whose arguments are a Go value, replacing one
// of the same name, and announces the change.
//
// The input schema. In is a struct (or a pointer to one) and, unless
// t.InputSchema is set, the tool's inputSchema is inferred from it by
// github.com/google/jsonschema-go (jsonschema.For): a property per
// exported field, named by its json tag; a field without omitempty or
// omitzero is required; a jsonschema tag is the property's description;
// a pointer or a slice may be null; a struct is closed
// (additionalProperties: false), so an unknown argument is refused. The
// mcp tag says what those tags cannot, as comma-separated key=value pairs:
//
//	Units string   `json:"units,omitempty" mcp:"enum=celsius|fahrenheit,default=celsius"`
//	Steps int      `json:"steps" mcp:"minimum=1,maximum=10"`
//	Zip   string   `json:"zip" mcp:"pattern=^[0-9]{5}$,title=ZIP code"`
//	Tags  []string `json:"tags,omitempty" mcp:"maxItems=3,minLength=1"`
//
// The keys are enum (values separated by |), minimum, maximum,
// exclusiveMinimum, exclusiveMaximum (numbers), minLength, maxLength
// (strings, counted in code points), pattern (a Go regular expression),
// format (an annotation, as in JSON Schema 2020-12), minItems, maxItems
// (slices and arrays), default and title. On a slice, an array or a map,
// the value keys (enum to format) apply to its items or values (the
// innermost ones, for a [][]int); minItems, maxItems, default and title
// to the field itself. A default is the text
// itself for a string field and JSON otherwise; an absent optional
// argument gets it. The enum of a pointer field admits null. A comma stays
// inside a value unless what follows it starts another key.
//
// Validation. Before h runs, the arguments are validated against the
// schema and decoded into In in one pass over their JSON text, never
// through map[string]any: integer fields get exact values (2^53+1 stays
// 2^53+1), and a fractional or out-of-range number for one is a violation,
// not a truncation; a float field's constraints apply to the float it
// gets; a repeated member name is a violation; interface fields get
// json.Number for numbers; types with their own UnmarshalJSON or
// UnmarshalText decode themselves. The arguments fail with every
// violation found, up to 10, each naming its path: "steps: 11 is above the
// maximum 10", "city: required", "address.zip: ...", "tags[2]: ...",
// "extra: unknown argument". How that failure is sent depends on the
// request's protocol version (docs/protocol.md, "Argument validation"):
//
//   - 2025-06-18, whose tools page makes invalid arguments a protocol
//     error: -32602 "Invalid params: <violations>" with data
//     {"errors":[{"path","message"}...]};
//   - 2025-11-25 and 2026-07-28, which make them a tool execution error
//     (SEP-1303) so that the model can correct itself: an isError result
//     whose text is "Invalid arguments: <violations>" and whose _meta
//     [MetaArgumentErrors] lists the same objects.
//
// When t.InputSchema is set, it is advertised as it is and the arguments
// are first validated against it by jsonschema-go (decoded as
// map[string]any, so any schema it supports works), and then decoded into
// In as above: they must satisfy both. In may also be json.RawMessage,
// which means no decoding: the arguments as sent, validated against
// t.InputSchema, which is then required.
//
// The result. When Out is *ToolResult, h builds the result itself. When
// Out is a struct, a pointer to one or a map with string keys, the tool's
// outputSchema is inferred from it (unless t.OutputSchema is set), and a
// result carries Out marshalled as structuredContent and, as the
// specification recommends for older clients, the same JSON in a text
// block; a nil pointer is an error. A string Out is sent as a text block,
// and any other Out as its JSON in a text block. The runtime does not
// check h's values against the output schema.
//
// AddTool panics, like [Server.AddTool], on a programming error: no name,
// a nil h, an In that is neither a struct, a pointer to one nor
// json.RawMessage, a json.RawMessage In without InputSchema, a type
// jsonschema-go cannot describe, or a bad mcp tag (an unknown key, a key
// that does not apply to the field's type, a value that does not parse, a
// default that breaks the field's own schema), each named in the message.
func AddTool[In, Out any](s *Server, t Tool, h ToolFunc[In, Out]) {
	if t.Name == "" || h == nil {
		panic("mcp: AddTool needs a name and a handler")
	}
	in, err := newToolInput[In](t.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddTool %q: %v", t.Name, err))
	}
	out, err := newToolOutput[Out]()
	if err != nil {
		panic(fmt.Sprintf("mcp: AddTool %q: %v", t.Name, err))
	}
	if t.InputSchema == nil {
		t.InputSchema = in.schema
	}
	if t.OutputSchema == nil {
		t.OutputSchema = out.schema
	}
	s.AddTool(t, func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
		var v In
		var verr *ValidationError
		if errors.As(in.decode(req.Arguments, &v), &verr) {
			return invalidArguments(req, verr)
		}
		o, err := h(ctx, req, v)
		if err != nil {
			return nil, err
		}
		return out.result(o)
	})
}

// invalidArguments answers tool arguments that fail validation as the
// request's protocol version requires (docs/protocol.md, "Argument
// validation").
func invalidArguments(req *CallToolRequest, err *ValidationError) (*ToolResult, error) {
	if req.ProtocolVersion() == protocol.Version20250618 {
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Invalid params: "+err.Error(), violationData(err))
	}
	meta, merr := rawjson.Marshal(map[string][]Violation{MetaArgumentErrors: err.Violations})
	if merr != nil {
		return nil, merr
	}
	return &ToolResult{Content: []Content{Text("Invalid arguments: " + err.Error())}, IsError: true, Meta: meta}, nil
}

// violationData is the data of a -32602 for violations.
func violationData(err *ValidationError) any {
	return struct {
		Errors []Violation `json:"errors"`
	}{err.Violations}
}

// toolInput validates and decodes a typed tool's arguments.
type toolInput struct {
	schema   json.RawMessage      // inferred; nil when given
	plan     *argschema.Plan      // nil for json.RawMessage
	fallback *jsonschema.Resolved // the given InputSchema
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func newToolInput[In any](given json.RawMessage) (*toolInput, error) {
	t := reflect.TypeFor[In]()
	in := &toolInput{}
	if given != nil {
		var s jsonschema.Schema
		if err := json.Unmarshal(given, &s); err != nil {
			return nil, fmt.Errorf("InputSchema: %v", err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("InputSchema: %v", err)
		}
		in.fallback = rs
	}
	if t == rawMessageType {
		if given == nil {
			return nil, errors.New("json.RawMessage arguments need an InputSchema")
		}
		return in, nil
	}
	if argschema.Deref(t).Kind() != reflect.Struct || (t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Pointer) {
		return nil, fmt.Errorf("the arguments type In must be a struct, a pointer to one or json.RawMessage, not %s", t)
	}
	ts, err := argschema.Infer(t)
	if err != nil {
		return nil, err
	}
	if t.Kind() == reflect.Pointer {
		// The arguments are an object, never null: advertise the struct's
		// schema.
		if ts.Raw, err = marshalSchema(ts.JSON, func(c *jsonschema.Schema) { c.Types, c.Type = nil, "object" }); err != nil {
			return nil, err
		}
	}
	in.schema, in.plan = ts.Raw, ts.Plan
	return in, nil
}

// decode validates args and decodes them into *dest.
func (in *toolInput) decode(args json.RawMessage, dest any) error {
	if in.fallback != nil {
		var v any
		if err := json.Unmarshal(args, &v); err != nil {
			return &ValidationError{Violations: []Violation{{Message: err.Error()}}}
		}
		if err := in.fallback.Validate(v); err != nil {
			return &ValidationError{Violations: []Violation{{Message: err.Error()}}}
		}
	}
	if in.plan == nil {
		*dest.(*json.RawMessage) = args
		return nil
	}
	return in.plan.Decode(args, reflect.ValueOf(dest).Elem())
}

// toolOutput turns a typed tool's Out into its result.
type toolOutput struct {
	schema json.RawMessage // the inferred outputSchema, or nil
	mode   outputMode
	isMap  bool
}

type outputMode uint8

const (
	outputJSON       outputMode = iota // JSON in a text block
	outputResult                       // *ToolResult, as it is
	outputText                         // a string, as a text block
	outputStructured                   // structuredContent, and its JSON in a text block
)

func newToolOutput[Out any]() (*toolOutput, error) {
	t := reflect.TypeFor[Out]()
	switch {
	case t == reflect.TypeFor[*ToolResult]():
		return &toolOutput{mode: outputResult}, nil
	case t.Kind() == reflect.String:
		return &toolOutput{mode: outputText}, nil
	}
	base := argschema.Deref(t)
	s, err := jsonschema.ForType(base, argschema.ForOptions())
	if err != nil {
		return nil, fmt.Errorf("the result type Out: %v", err)
	}
	if s.Type != "object" {
		return &toolOutput{mode: outputJSON}, nil
	}
	if err := argschema.ApplyTags(s, base); err != nil {
		return nil, fmt.Errorf("the result type Out: %v", err)
	}
	raw, err := marshalSchema(s, nil)
	if err != nil {
		return nil, err
	}
	return &toolOutput{schema: raw, mode: outputStructured, isMap: base.Kind() == reflect.Map}, nil
}

// result makes the ToolResult of a handler's value.
func (o *toolOutput) result(v any) (*ToolResult, error) {
	switch o.mode {
	case outputResult:
		return v.(*ToolResult), nil
	case outputText:
		return TextResult(reflect.ValueOf(v).String()), nil
	}
	b, err := rawjson.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mcp: the tool's result cannot be marshalled: %w", err)
	}
	if o.mode == outputJSON {
		return TextResult(string(b)), nil
	}
	if string(b) == "null" {
		if !o.isMap {
			return nil, errors.New("mcp: the tool returned a nil result")
		}
		b = []byte(`{}`)
	}
	return &ToolResult{Content: []Content{Text(string(b))}, StructuredContent: json.RawMessage(b)}, nil
}

// marshalSchema marshals a copy of s, changed by edit when not nil.
func marshalSchema(s *jsonschema.Schema, edit func(*jsonschema.Schema)) (json.RawMessage, error) {
	c := *s
	if edit != nil {
		edit(&c)
	}
	raw, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	return rawjson.Compact(raw)
}

// PromptFunc is a typed prompt handler: args holds the prompt's
// arguments, validated and decoded. Its errors are sent as
// [PromptHandler]'s are.
type PromptFunc[Args any] func(ctx context.Context, req *GetPromptRequest, args Args) (*GetPromptResult, error)

// AddPrompt registers a prompt whose arguments are the fields of a struct,
// replacing one of the same name, and announces the change. Prompt
// arguments are strings, so every field of Args (a struct or a pointer to
// one) is of a string type. Unless p.Arguments is set, the prompt's
// arguments are inferred from the fields as [AddTool] infers properties:
// the json name, the jsonschema tag as description, the mcp tag's title,
// and required unless omitempty or omitzero; mcp tags that apply to
// strings (enum, minLength, maxLength, pattern, default) are checked.
//
// A prompts/get that lacks a required argument is -32602 naming it, in
// every era, as for any prompt; one with an unknown argument, or with a
// value the mcp tags refuse, is -32602 "Invalid params: <violations>"
// with data {"errors":[{"path","message"}...]}: prompts have no isError
// result, so a conforming server answers bad arguments with a protocol
// error.
//
// It panics on a programming error, as [AddTool] does, and when
// p.Arguments is set but disagrees with Args on the names or on which are
// required.
func AddPrompt[Args any](s *Server, p Prompt, h PromptFunc[Args]) {
	if p.Name == "" || h == nil {
		panic("mcp: AddPrompt needs a name and a handler")
	}
	ts, err := argschema.InferFlat(reflect.TypeFor[Args](), func(pr *argschema.Prop) bool { return pr.Plan.Kind == argschema.KString })
	if err != nil {
		panic(fmt.Sprintf("mcp: AddPrompt %q: %v (prompt arguments are string fields)", p.Name, err))
	}
	var inferred []PromptArgument
	for _, pr := range ts.Plan.Props {
		ps := ts.JSON.Properties[pr.Name]
		inferred = append(inferred, PromptArgument{Name: pr.Name, Title: ps.Title, Description: ps.Description, Required: pr.Required})
	}
	if p.Arguments == nil {
		p.Arguments = inferred
	} else if !sameArguments(p.Arguments, inferred) {
		panic(fmt.Sprintf("mcp: AddPrompt %q: Prompt.Arguments disagree with the fields of %s on names or on which are required", p.Name, reflect.TypeFor[Args]()))
	}
	s.AddPrompt(p, func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error) {
		obj := []byte{'{'}
		for i, k := range slices.Sorted(maps.Keys(req.Arguments)) {
			if i > 0 {
				obj = append(obj, ',')
			}
			obj = rawjson.AppendString(obj, k)
			obj = append(obj, ':')
			obj = rawjson.AppendString(obj, req.Arguments[k])
		}
		obj = append(obj, '}')
		var args Args
		var verr *ValidationError
		if errors.As(ts.Plan.Decode(obj, reflect.ValueOf(&args).Elem()), &verr) {
			return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Invalid params: "+verr.Error(), violationData(verr))
		}
		return h(ctx, req, args)
	})
}

func sameArguments(given, inferred []PromptArgument) bool {
	if len(given) != len(inferred) {
		return false
	}
	for _, g := range given {
		i := slices.IndexFunc(inferred, func(a PromptArgument) bool { return a.Name == g.Name })
		if i < 0 || inferred[i].Required != g.Required {
			return false
		}
	}
	return true
}

// TemplateFunc is a typed resource template handler: vars holds the
// template's variables, decoded. Its errors are sent as
// [ResourceHandler]'s are.
type TemplateFunc[Vars any] func(ctx context.Context, req *ReadResourceRequest, vars Vars) (*ReadResourceResult, error)

// AddResourceTemplate registers a resource template whose variables are
// the fields of a struct, replacing one with the same URI template, and
// announces the change. Each variable of t.URITemplate is the field of
// Vars (a struct or a pointer to one) with that json name, of a string or
// an integer type; mcp tags on the fields constrain the values as they do
// for [AddTool].
//
// An integer variable is parsed exactly, in base 10, and must fit its
// field. A URI whose variables do not decode (a non-integer for an
// integer field, a value out of range, one the mcp tags refuse) names no
// resource of the template: it gets the not-found error of the request's
// era, as when a handler returns [ErrResourceNotFound] (-32002 on 2025
// connections, -32602 on 2026-07-28, with data {"uri"}).
//
// It panics on a programming error, as [AddTool] does, and when a variable
// has no field or a field no variable.
func AddResourceTemplate[Vars any](s *Server, t ResourceTemplate, h TemplateFunc[Vars]) {
	if t.Name == "" || h == nil {
		panic("mcp: AddResourceTemplate needs a name and a handler")
	}
	_, names, err := compileTemplate(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddResourceTemplate: %v", err))
	}
	ts, err := argschema.InferFlat(reflect.TypeFor[Vars](), func(pr *argschema.Prop) bool {
		return pr.Plan.Kind == argschema.KString || pr.Plan.Kind == argschema.KInt || pr.Plan.Kind == argschema.KUint
	})
	if err != nil {
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: %v (variables are string or integer fields)", t.URITemplate, err))
	}
	var fields []string
	for _, pr := range ts.Plan.Props {
		fields = append(fields, pr.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(fields))) {
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: the variables %q and the fields %q of %s differ",
			t.URITemplate, names, fields, reflect.TypeFor[Vars]()))
	}
	s.AddResourceTemplate(t, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		obj := []byte{'{'}
		for i, pr := range ts.Plan.Props {
			if i > 0 {
				obj = append(obj, ',')
			}
			obj = rawjson.AppendString(obj, pr.Name)
			obj = append(obj, ':')
			v := req.Vars[pr.Name]
			switch pr.Plan.Kind {
			case argschema.KString:
				obj = rawjson.AppendString(obj, v)
			case argschema.KInt:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, ErrResourceNotFound
				}
				obj = strconv.AppendInt(obj, n, 10)
			default:
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return nil, ErrResourceNotFound
				}
				obj = strconv.AppendUint(obj, n, 10)
			}
		}
		obj = append(obj, '}')
		var vars Vars
		if ts.Plan.Decode(obj, reflect.ValueOf(&vars).Elem()) != nil {
			return nil, ErrResourceNotFound
		}
		return h(ctx, req, vars)
	})
}

// ElicitAction is the user's answer to an elicitation.
type ElicitAction string

// The three answers to an elicitation.
const (
	ElicitAccept  ElicitAction = "accept"  // the form was submitted
	ElicitDecline ElicitAction = "decline" // the user said no
	ElicitCancel  ElicitAction = "cancel"  // the user dismissed it
)

// elicitFormats are the string formats an elicitation form may use.
var elicitFormats = []string{"email", "uri", "date", "date-time"}

// elicitForms caches the form of each type Elicit is called with:
// reflect.Type → *elicitForm.
var elicitForms sync.Map

type elicitForm struct {
	schema json.RawMessage // requestedSchema
	plan   *argschema.Plan
	err    error
}

// Elicit asks the user to fill in a form whose fields are those of T, a
// struct (or a pointer to one), and returns the form decoded into T with
// the user's action. It is [Request.Elicit] with the requestedSchema
// inferred from T as [AddTool] infers an input schema, restricted as
// elicitation forms are: a flat object of string, number, integer and
// boolean fields, where mcp tags may set title, enum (strings only),
// minLength, maxLength, format (email, uri, date or date-time), minimum,
// maximum and default. Members of the answer that T lacks are ignored.
// key names the question as for [Request.Ask].
//
// When the user accepts, the answer is validated and decoded as tool
// arguments are; an answer that breaks the form is an error wrapping a
// [*ValidationError]. When the user declines or cancels, it returns T's
// zero value and the action. The errors of [Request.Elicit] pass through,
// [ErrInputRequired] included: return them from the handler.
//
// It panics when T cannot be such a form, a programming error.
func Elicit[T any](ctx context.Context, req *Request, key, message string) (T, ElicitAction, error) {
	var zero T
	form := elicitFormOf(reflect.TypeFor[T]())
	res, err := req.Elicit(ctx, key, ElicitParams{Message: message, RequestedSchema: form.schema})
	if err != nil {
		return zero, "", err
	}
	action := ElicitAction(res.Action)
	if action != ElicitAccept {
		return zero, action, nil
	}
	content := res.Content
	if content == nil {
		content = json.RawMessage(`{}`)
	}
	var v T
	if err := form.plan.Decode(content, reflect.ValueOf(&v).Elem()); err != nil {
		return zero, action, fmt.Errorf("mcp: Elicit %q: the answer does not fit the form: %w", key, err)
	}
	return v, action, nil
}

func elicitFormOf(t reflect.Type) *elicitForm {
	f, ok := elicitForms.Load(t)
	if !ok {
		f, _ = elicitForms.LoadOrStore(t, newElicitForm(t))
	}
	form := f.(*elicitForm)
	if form.err != nil {
		panic(fmt.Sprintf("mcp: Elicit[%s]: %v", t, form.err))
	}
	return form
}

func newElicitForm(t reflect.Type) *elicitForm {
	ts, err := argschema.InferFlat(t, func(pr *argschema.Prop) bool {
		return pr.Plan.Kind >= argschema.KBool && pr.Plan.Kind <= argschema.KFloat
	})
	if err != nil {
		return &elicitForm{err: fmt.Errorf("%v (a form's fields are strings, numbers, integers and booleans)", err)}
	}
	for name, ps := range ts.JSON.Properties {
		c := *ps
		c.Type, c.Title, c.Description, c.Default = "", "", "", nil
		c.MinLength, c.MaxLength, c.Minimum, c.Maximum = nil, nil, nil, nil
		switch {
		case c.Enum != nil && ps.Type != "string":
			return &elicitForm{err: fmt.Errorf("field %s: an enum in a form is of strings", name)}
		case c.Format != "" && !slices.Contains(elicitFormats, c.Format):
			return &elicitForm{err: fmt.Errorf("field %s: a form's formats are %s", name, strings.Join(elicitFormats, ", "))}
		}
		c.Enum, c.Format = nil, ""
		if !reflect.ValueOf(c).IsZero() {
			return &elicitForm{err: fmt.Errorf("field %s: a form's fields take title, description, default, minLength, maxLength, format, enum, minimum and maximum only", name)}
		}
	}
	// A form says nothing of other members: drop additionalProperties,
	// and let the plan ignore them.
	open := func(c *jsonschema.Schema) { c.AdditionalProperties, c.Types, c.Type = nil, nil, "object" }
	raw, err := marshalSchema(ts.JSON, open)
	if err != nil {
		return &elicitForm{err: err}
	}
	c := *ts.JSON
	open(&c)
	p, err := argschema.Compile(&c, t)
	if err != nil {
		return &elicitForm{err: err}
	}
	return &elicitForm{schema: raw, plan: p}
}
