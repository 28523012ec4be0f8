package convert

import (
	"encoding/json"
	"slices"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// This file builds the params of child requests from typed requests.

// object builds a compact JSON object member by member.
type object struct {
	buf []byte
}

func newObject() *object { return &object{buf: append(make([]byte, 0, 128), '{')} }

func (o *object) key(k string) {
	if len(o.buf) > 1 {
		o.buf = append(o.buf, ',')
	}
	o.buf = rawjson.AppendString(o.buf, k)
	o.buf = append(o.buf, ':')
}

// raw adds a member whose value is valid compact JSON.
func (o *object) raw(k string, v []byte) {
	o.key(k)
	o.buf = append(o.buf, v...)
}

func (o *object) str(k, v string) {
	o.key(k)
	o.buf = rawjson.AppendString(o.buf, v)
}

// strings adds a member whose value is an object of strings, keys sorted.
func (o *object) strings(k string, m map[string]string) {
	o.key(k)
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	o.buf = append(o.buf, '{')
	for i, key := range keys {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		o.buf = rawjson.AppendString(o.buf, key)
		o.buf = append(o.buf, ':')
		o.buf = rawjson.AppendString(o.buf, m[key])
	}
	o.buf = append(o.buf, '}')
}

// list adds a member whose value is an array of strings.
func (o *object) list(k string, items []string) {
	o.key(k)
	o.buf = append(o.buf, '[')
	for i, it := range items {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		o.buf = rawjson.AppendString(o.buf, it)
	}
	o.buf = append(o.buf, ']')
}

// structure adds a member whose value is a Struct.
func (o *object) structure(k string, s *structpb.Struct) error {
	o.key(k)
	var err error
	o.buf, err = AppendStruct(o.buf, s)
	return err
}

func (o *object) bytes() json.RawMessage { return append(o.buf, '}') }

// requestMeta is a typed request's _meta: the caller's meta plus the keys
// the bridge derives from typed fields (client_capabilities, log_level).
// Keys the bridge owns in the caller's meta are refused.
type requestMeta struct {
	caller *structpb.Struct
	owned  []string // keys the caller may not set
	extra  []metaMember
}

type metaMember struct {
	key   string
	value []byte // compact JSON
}

// add sets a key the bridge derives; the caller may then not set it.
func (m *requestMeta) add(key string, value []byte) {
	m.owned = append(m.owned, key)
	m.extra = append(m.extra, metaMember{key, value})
}

// write adds `_meta` to o when there is anything to send.
func (m *requestMeta) write(o *object) error {
	for _, k := range append([]string{protocol.MetaProgressToken, protocol.MetaProtocolVersion}, m.owned...) {
		if _, ok := m.caller.GetFields()[k]; ok {
			return FieldErrorf("meta", ReasonInvalidValue, " key %q is set by the bridge", k)
		}
	}
	if len(m.caller.GetFields()) == 0 && len(m.extra) == 0 {
		return nil
	}
	b, err := AppendStruct(nil, m.caller)
	if err != nil {
		return underField("meta", err)
	}
	for _, e := range m.extra {
		b, _ = rawjson.SetMember(b, e.key, e.value) // b is an object
	}
	o.raw("_meta", b)
	return nil
}

// mrtrRequest is what CallTool, ReadResource, GetPrompt and CallToolStream
// requests have in common: the caller's meta and the MRTR fields.
type mrtrRequest interface {
	GetMeta() *structpb.Struct
	GetInputResponses() *structpb.Struct
	GetRequestState() string
	GetClientCapabilities() *structpb.Struct
}

// ToolCall is a CallToolRequest or a CallToolStreamRequest.
type ToolCall interface {
	mrtrRequest
	GetName() string
	GetArguments() *structpb.Struct
}

// Named is req under another name: what a request to an aggregate's tool
// sends to its member. req itself when name is its own.
func Named(req ToolCall, name string) ToolCall {
	if name == req.GetName() {
		return req
	}
	return namedTool{req, name}
}

type namedTool struct {
	ToolCall
	name string
}

func (n namedTool) GetName() string { return n.name }

// finishMRTR ends the params of a request that may carry MRTR fields:
// inputResponses and requestState as writeMRTR allows, then _meta.
func finishMRTR(o *object, req mrtrRequest, meta requestMeta, r Era) (json.RawMessage, error) {
	if err := writeMRTR(req, o, &meta, r); err != nil {
		return nil, err
	}
	if err := meta.write(o); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

// writeMRTR adds inputResponses and requestState to o, and the client
// capabilities to meta, as the child's era allows: a legacy child cannot
// take input_responses or request_state (refused: they would change the
// request's meaning) and gets no clientCapabilities (ignored: its
// capabilities were settled by initialize).
func writeMRTR(q mrtrRequest, o *object, meta *requestMeta, r Era) error {
	if !r.modern {
		switch {
		case q.GetInputResponses() != nil:
			return FieldErrorf("input_responses", ReasonInvalidValue, " applies to 2026-07-28 children only; this child speaks %s", r.version)
		case q.GetRequestState() != "":
			return FieldErrorf("request_state", ReasonInvalidValue, " applies to 2026-07-28 children only; this child speaks %s", r.version)
		}
		return nil
	}
	if q.GetInputResponses() != nil {
		if err := o.structure("inputResponses", q.GetInputResponses()); err != nil {
			return underField("input_responses", err)
		}
	}
	if q.GetRequestState() != "" {
		o.str("requestState", q.GetRequestState())
	}
	if q.GetClientCapabilities() != nil {
		b, err := AppendStruct(nil, q.GetClientCapabilities())
		if err != nil {
			return underField("client_capabilities", err)
		}
		meta.add(protocol.MetaClientCapabilities, b)
	}
	return nil
}

// logLevelMeta adds the stream's log level to a 2026-07-28 request's _meta
// (docs/protocol.md, "Request _meta"); legacy children log at the session's
// level instead (docs/protocol.md, "Logging").
func logLevelMeta(meta *requestMeta, level mcpbridgev1.LoggingLevel, r Era) error {
	if level == mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED {
		return nil
	}
	name := LevelName(level)
	if name == "" {
		return FieldErrorf("log_level", ReasonInvalidValue, " %d is not a known level", level)
	}
	if r.modern {
		meta.add(protocol.MetaLogLevel, rawjson.AppendString(nil, name))
	}
	return nil
}

// ListParams are the params of a list method, nil when there are none.
func ListParams(cursor string, meta *structpb.Struct) (json.RawMessage, error) {
	o := newObject()
	if cursor != "" {
		o.str("cursor", cursor)
	}
	m := requestMeta{caller: meta}
	if err := m.write(o); err != nil {
		return nil, err
	}
	return noParams(o), nil
}

// noParams is o, or nil when o is empty: a legacy child then gets no params
// at all, and a 2026-07-28 child gets {"_meta":…} from the stdio Client.
func noParams(o *object) json.RawMessage {
	if len(o.buf) == 1 {
		return nil
	}
	return o.bytes()
}

// CallToolParams are the params of tools/call for a CallTool or
// CallToolStream request; level is the stream's log level (UNSPECIFIED:
// none).
func CallToolParams(req ToolCall, level mcpbridgev1.LoggingLevel, r Era) (json.RawMessage, error) {
	meta := requestMeta{caller: req.GetMeta()}
	if err := logLevelMeta(&meta, level, r); err != nil {
		return nil, err
	}
	if req.GetName() == "" {
		return nil, FieldErrorf("name", ReasonRequired, " is required")
	}
	o := newObject()
	o.str("name", req.GetName())
	if args := req.GetArguments(); args != nil {
		if err := o.structure("arguments", args); err != nil {
			return nil, underField("arguments", err)
		}
	}
	return finishMRTR(o, req, meta, r)
}

// ReadResourceParams are the params of resources/read.
func ReadResourceParams(req *mcpbridgev1.ReadResourceRequest, r Era) (json.RawMessage, error) {
	if req.GetUri() == "" {
		return nil, FieldErrorf("uri", ReasonRequired, " is required")
	}
	o := newObject()
	o.str("uri", req.GetUri())
	meta := requestMeta{caller: req.GetMeta()}
	return finishMRTR(o, req, meta, r)
}

// GetPromptParams are the params of prompts/get.
func GetPromptParams(req *mcpbridgev1.GetPromptRequest, r Era) (json.RawMessage, error) {
	if req.GetName() == "" {
		return nil, FieldErrorf("name", ReasonRequired, " is required")
	}
	o := newObject()
	o.str("name", req.GetName())
	if len(req.GetArguments()) > 0 {
		o.strings("arguments", req.GetArguments())
	}
	meta := requestMeta{caller: req.GetMeta()}
	return finishMRTR(o, req, meta, r)
}

// CompleteParams are the params of completion/complete.
func CompleteParams(req *mcpbridgev1.CompleteRequest) (json.RawMessage, error) {
	ref := newObject()
	switch v := req.GetRef().(type) {
	case *mcpbridgev1.CompleteRequest_PromptName:
		if v.PromptName == "" {
			return nil, FieldErrorf("prompt_name", ReasonRequired, " is empty")
		}
		ref.str("type", "ref/prompt")
		ref.str("name", v.PromptName)
	case *mcpbridgev1.CompleteRequest_ResourceTemplateUri:
		if v.ResourceTemplateUri == "" {
			return nil, FieldErrorf("resource_template_uri", ReasonRequired, " is empty")
		}
		ref.str("type", "ref/resource")
		ref.str("uri", v.ResourceTemplateUri)
	default:
		return nil, FieldErrorf("ref", ReasonRequired, " is required: set prompt_name or resource_template_uri")
	}
	if req.GetArgumentName() == "" {
		return nil, FieldErrorf("argument_name", ReasonRequired, " is required")
	}
	arg := newObject()
	arg.str("name", req.GetArgumentName())
	arg.str("value", req.GetArgumentValue())
	o := newObject()
	o.raw("ref", ref.bytes())
	o.raw("argument", arg.bytes())
	if len(req.GetContextArguments()) > 0 {
		ctx := newObject()
		ctx.strings("arguments", req.GetContextArguments())
		o.raw("context", ctx.bytes())
	}
	meta := requestMeta{caller: req.GetMeta()}
	if err := meta.write(o); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

// RawParams checks the params_json of Call and CallStream, which travels
// byte for byte: empty, or a JSON object whose _meta (if any) is an object
// without the progressToken the bridge mints. It returns the params,
// compacted, and their _meta.
func RawParams(text string) (params, meta json.RawMessage, err error) {
	if text == "" {
		return nil, nil, nil
	}
	p, err := rawjson.Compact([]byte(text))
	switch {
	case err != nil:
		return nil, nil, FieldErrorf("params_json", ReasonInvalidJSON, " is not valid JSON: %v", err)
	case !rawjson.IsObject(p):
		return nil, nil, FieldErrorf("params_json", ReasonWrongJSONType, " must be a JSON object, not %s", JSONKind(p))
	}
	if m, ok := rawjson.Member(p, "_meta"); ok {
		if !rawjson.IsObject(m) {
			return nil, nil, FieldErrorf("params_json", ReasonWrongJSONType, "._meta must be a JSON object, not %s", JSONKind(m))
		}
		meta = m
	}
	// A caller never chooses a progress token: the child's progress for it
	// would reach whichever call the child-side token names, a call of
	// another caller's.
	if _, ok := rawjson.Member(meta, protocol.MetaProgressToken); ok {
		return nil, nil, FieldErrorf("params_json", ReasonInvalidValue, "._meta.progressToken is set by the bridge; CallStream delivers progress")
	}
	return p, meta, nil
}

// CallParams checks CallStream's params_json as RawParams does, and
// refuses a logLevel in its _meta when log_level puts one there. extra is
// the _meta the bridge adds (the stdio Client merges it without
// re-encoding the params).
func CallParams(text string, level mcpbridgev1.LoggingLevel, r Era) (params, extra json.RawMessage, err error) {
	params, own, err := RawParams(text)
	if err != nil {
		return nil, nil, err
	}
	var meta requestMeta
	if err := logLevelMeta(&meta, level, r); err != nil {
		return nil, nil, err
	}
	for _, m := range meta.extra {
		if _, ok := rawjson.Member(own, m.key); ok {
			return nil, nil, FieldErrorf("params_json", ReasonInvalidValue, "._meta.%s is set by the bridge when log_level is set", m.key)
		}
		extra, _ = rawjson.SetMember(extra, m.key, m.value)
	}
	return params, extra, nil
}
