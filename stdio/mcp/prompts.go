package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Prompt describes a prompt or prompt template (docs/protocol.md,
// "Prompts").
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        json.RawMessage  `json:"_meta,omitempty"`
}

// PromptArgument describes one argument of a prompt. The runtime refuses a
// prompts/get that lacks a Required argument with -32602.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// GetPromptRequest is a prompts/get request.
type GetPromptRequest struct {
	Request
	Name string
	// Arguments holds the arguments sent; it is never nil.
	Arguments map[string]string
}

// PromptHandler renders a prompt. Its errors are sent as [ToolHandler]'s
// are, except that an error that is none of the kinds listed there is an
// internal error (-32603, logged, without detail).
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

type promptEntry struct {
	prompt  Prompt
	raw     json.RawMessage
	handler PromptHandler
}

// AddPrompt registers a prompt, replacing one of the same name, and
// announces the change. It panics when the prompt has no name or h is nil.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) {
	if p.Name == "" || h == nil {
		panic("mcp: AddPrompt needs a name and a handler")
	}
	raw, err := rawjson.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddPrompt %q: %v", p.Name, err))
	}
	s.mu.Lock()
	s.prompts[p.Name] = &promptEntry{prompt: p, raw: raw, handler: h}
	s.has.prompts = true
	s.mu.Unlock()
	s.broadcast(event{kind: eventPrompts})
}

// RemovePrompts unregisters the named prompts and, if any was registered,
// announces the change.
func (s *Server) RemovePrompts(names ...string) {
	if s.remove(names, func(n string) bool {
		_, ok := s.prompts[n]
		delete(s.prompts, n)
		return ok
	}) {
		s.broadcast(event{kind: eventPrompts})
	}
}

func (s *Server) listPrompts(_ context.Context, c *call) (*reply, error) {
	return listPage(s, c, "prompts", s.prompts)
}

func (s *Server) getPrompt(ctx context.Context, c *call) (*reply, error) {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(c.params, &p) != nil || p.Name == nil {
		return nil, invalidParams("prompts/get needs a string name")
	}
	args := map[string]string{}
	if p.Arguments != nil && string(p.Arguments) != "null" {
		if !rawjson.IsObject(p.Arguments) || json.Unmarshal(p.Arguments, &args) != nil {
			return nil, invalidParams("prompt arguments must be an object of strings")
		}
	}
	s.mu.Lock()
	e := s.prompts[*p.Name]
	s.mu.Unlock()
	if e == nil {
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Unknown prompt: "+*p.Name, map[string]string{"name": *p.Name})
	}
	for _, a := range e.prompt.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, invalidParams("prompt %s needs the argument %s", *p.Name, a.Name)
		}
	}
	base, err := s.newRequest(c)
	if err != nil {
		return nil, err
	}
	req := &GetPromptRequest{Request: base, Name: *p.Name, Arguments: args}
	res, herr := e.handler(ctx, req)
	if herr != nil {
		r, err, _ := s.settle(c, req.in, herr)
		return r, err
	}
	if res == nil {
		res = &GetPromptResult{}
	}
	messages := res.Messages
	if messages == nil {
		messages = []PromptMessage{}
	}
	r, err := marshalReply(struct {
		Description string          `json:"description,omitempty"`
		Messages    []PromptMessage `json:"messages"`
	}{res.Description, messages})
	if err != nil {
		return nil, err
	}
	r.meta = res.Meta
	return r, nil
}
