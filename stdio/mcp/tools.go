package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Tool describes a tool (docs/protocol.md, "Tools"). Schemas are raw JSON,
// so any JSON Schema 2020-12 keyword passes through untouched.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, an object schema
	// (default {"type":"object"}). For a tool registered with
	// [Server.AddTool] the runtime does not validate arguments against
	// it: that is the handler's job. [AddTool] infers it from a Go type
	// and validates.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, if set, is the JSON Schema of the result's
	// structuredContent.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Execution, with a TaskSupport of optional or required, lets the
	// tool run as a task (tasks.go, [CallToolRequest.RunTask]).
	Execution *ToolExecution  `json:"execution,omitempty"`
	Icons     []Icon          `json:"icons,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour; clients must not
// trust them for security.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// CallToolRequest is a tools/call request.
type CallToolRequest struct {
	Request
	// Name is the tool's name.
	Name string
	// Arguments is the arguments object as sent; {} when absent.
	Arguments json.RawMessage

	support  TaskSupport // the tool's
	taskMode taskMode    // whether this call may become a task
}

// ToolHandler runs a tool. It returns the result, or an error:
//
//   - a *jsonrpc.Error (jsonrpc.Error) is sent as that protocol error;
//   - [ErrInputRequired] from [Request.Ask] (2026-07-28) becomes an
//     input_required result, and the handler runs again on the retry;
//   - a [*MissingCapabilityError] becomes -32021 (2026-07-28) or -32602;
//   - any other error means the tool ran and failed: it is sent as an
//     isError result whose text is the error's message, for the model to
//     see (docs/protocol.md, "Tool results"). Return [ErrorResult] to
//     choose the text.
//
// ctx ends when the client cancels the request or its deadline passes.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*ToolResult, error)

type toolEntry struct {
	raw     json.RawMessage // the Tool, marshalled once
	handler ToolHandler
	support TaskSupport
}

// AddTool registers a tool, replacing one of the same name, and announces
// the change to connected clients. It panics when the tool has no name,
// when a schema is not valid JSON or InputSchema is not an object, or when
// h is nil: those are programming errors.
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if t.Name == "" || h == nil {
		panic("mcp: AddTool needs a name and a handler")
	}
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	var err error
	if t.InputSchema, err = rawjson.Compact(t.InputSchema); err != nil || !rawjson.IsObject(t.InputSchema) {
		panic(fmt.Sprintf("mcp: AddTool %q: InputSchema must be a JSON object", t.Name))
	}
	if t.OutputSchema != nil {
		if t.OutputSchema, err = rawjson.Compact(t.OutputSchema); err != nil {
			panic(fmt.Sprintf("mcp: AddTool %q: OutputSchema is not valid JSON", t.Name))
		}
	}
	support := TaskForbidden
	if t.Execution != nil {
		switch t.Execution.TaskSupport {
		case "", TaskForbidden:
		case TaskOptional, TaskRequired:
			support = t.Execution.TaskSupport
		default:
			panic(fmt.Sprintf("mcp: AddTool %q: unknown TaskSupport %q", t.Name, t.Execution.TaskSupport))
		}
	}
	raw, err := rawjson.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddTool %q: %v", t.Name, err))
	}
	s.mu.Lock()
	s.tools[t.Name] = &toolEntry{raw: raw, handler: h, support: support}
	s.has.tools = true
	s.has.tasks = s.has.tasks || support != TaskForbidden
	s.mu.Unlock()
	s.broadcast(event{kind: eventTools})
}

// RemoveTools unregisters the named tools and, if any was registered,
// announces the change.
func (s *Server) RemoveTools(names ...string) {
	if s.remove(names, func(n string) bool {
		_, ok := s.tools[n]
		delete(s.tools, n)
		return ok
	}) {
		s.broadcast(event{kind: eventTools})
	}
}

// remove runs del for each key under s.mu and reports whether any existed.
func (s *Server) remove(keys []string, del func(string) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	any := false
	for _, k := range keys {
		any = del(k) || any
	}
	return any
}

func (s *Server) listTools(_ context.Context, c *call) (*reply, error) {
	return listPage(s, c, "tools", s.tools)
}

// entry is a registered tool, prompt or resource, marshalled once.
type entry interface{ marshalled() json.RawMessage }

func (e *toolEntry) marshalled() json.RawMessage     { return e.raw }
func (e *promptEntry) marshalled() json.RawMessage   { return e.raw }
func (e *resourceEntry) marshalled() json.RawMessage { return e.raw }

// listPage replies to a list method with one page of a registry, sorted by
// key (a name or a URI); key is the result's member for the items.
func listPage[E entry](s *Server, c *call, key string, registry map[string]E) (*reply, error) {
	s.mu.Lock()
	names := slices.Sorted(maps.Keys(registry))
	raws := make([]json.RawMessage, len(names))
	for i, n := range names {
		raws[i] = registry[n].marshalled()
	}
	s.mu.Unlock()
	start, end, next, err := paginate(s, key, c.params, names)
	if err != nil {
		return nil, err
	}
	return listReply(key, raws[start:end], next)
}

// listReply builds {"<key>":[...],"nextCursor"?}, a cacheable reply.
func listReply(key string, items []json.RawMessage, next string) (*reply, error) {
	body := []byte(`{"` + key + `":[`)
	for i, it := range items {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, it...)
	}
	body = append(body, ']')
	if next != "" {
		body = append(body, `,"nextCursor":`...)
		body = rawjson.AppendString(body, next)
	}
	return &reply{body: append(body, '}'), cacheable: true}, nil
}

func (s *Server) callTool(ctx context.Context, c *call) (*reply, error) {
	p, ok := toolCallParams(c.params)
	if !ok || p.Name == nil {
		return nil, invalidParams("tools/call needs a string name")
	}
	args := p.Arguments
	if args == nil || string(args) == "null" {
		args = json.RawMessage(`{}`)
	} else if !rawjson.IsObject(args) {
		return nil, invalidParams("arguments must be an object")
	}
	s.mu.Lock()
	e := s.tools[*p.Name]
	s.mu.Unlock()
	if e == nil {
		// -32602 in every era: the 2025 tools page and 2026-07-28 both
		// make an unknown tool a protocol error, not an isError result.
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Unknown tool: "+*p.Name, map[string]string{"name": *p.Name})
	}
	mode, err := s.taskModeOf(c, e.support)
	if err != nil {
		return nil, err
	}
	base, err := s.newRequest(c)
	if err != nil {
		return nil, err
	}
	req := &CallToolRequest{Request: base, Name: *p.Name, Arguments: args, support: e.support, taskMode: mode}
	res, herr := e.handler(ctx, req)
	var created taskCreated
	if errors.As(herr, &created) {
		return created.reply, nil
	}
	if herr != nil {
		r, err, handled := s.settle(c, req.in, herr)
		if handled {
			return r, err
		}
		var rpc *jsonrpc.Error
		if errors.As(herr, &rpc) || ctx.Err() != nil {
			return nil, herr
		}
		res = ErrorResult(herr.Error())
	}
	if res == nil {
		res = &ToolResult{}
	}
	c.toolError = res.IsError
	return toolReply(res)
}

// toolCall is what tools/call's params hold besides _meta and the
// 2026-07-28 input fields.
type toolCall struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// toolCallParams decodes params as json.Unmarshal into a toolCall would,
// reporting false where it fails, without its reflection when the keys
// are spelled exactly.
func toolCallParams(params json.RawMessage) (toolCall, bool) {
	var p toolCall
	var vals [2]json.RawMessage
	if !exactMembers(params, []string{"name", "arguments"}, 1, vals[:]) {
		return p, json.Unmarshal(params, &p) == nil
	}
	var ok bool
	p.Name, ok = optString(vals[0])
	p.Arguments = vals[1]
	return p, ok
}

// toolReply builds a CallToolResult body: {"content":[...]} with
// structuredContent and isError when set. It appends the members itself
// rather than marshalling a struct of them, and a plain text block (the
// common case) without encoding/json, to the same bytes.
func toolReply(res *ToolResult) (*reply, error) {
	body := append(make([]byte, 0, 128), `{"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			body = append(body, ',')
		}
		var err error
		if body, err = appendContent(body, c); err != nil {
			return nil, err
		}
	}
	body = append(body, ']')
	if res.StructuredContent != nil {
		structured, err := rawjson.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("mcp: structuredContent: %w", err)
		}
		body = append(body, `,"structuredContent":`...)
		body = append(body, structured...)
	}
	if res.IsError {
		body = append(body, `,"isError":true`...)
	}
	return &reply{body: append(body, '}'), meta: res.Meta}, nil
}

// appendContent appends one content block as encoding/json marshals it.
// A text block without annotations or _meta is appended directly: its
// bytes are those of TextContent.MarshalJSON, except that encoding/json
// writes \b and \f where rawjson.AppendString writes \u0008 and \u000c,
// so text holding either takes the general path.
func appendContent(dst []byte, c Content) ([]byte, error) {
	if t, ok := c.(*TextContent); ok && t != nil && t.Annotations == nil && t.Meta == nil &&
		!strings.ContainsAny(t.Text, "\b\f") {
		dst = append(dst, `{"type":"text","text":`...)
		dst = rawjson.AppendString(dst, t.Text)
		return append(dst, '}'), nil
	}
	raw, err := rawjson.Marshal(c)
	if err != nil {
		return dst, err
	}
	return append(dst, raw...), nil
}
