package mcp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file answers completion/complete (docs/protocol.md, "Completion"):
// suggestions for a prompt's argument or a resource template's variable.

// maxCompletionValues is the most values one completion carries.
const maxCompletionValues = 100

// Reference names what a completion is for: a prompt (Type "ref/prompt",
// Name) or a resource template (Type "ref/resource", URI the template).
type Reference struct {
	Type string
	Name string
	URI  string
}

// PromptReference returns the Reference of the named prompt.
func PromptReference(name string) Reference { return Reference{Type: "ref/prompt", Name: name} }

// TemplateReference returns the Reference of the resource template.
func TemplateReference(uriTemplate string) Reference {
	return Reference{Type: "ref/resource", URI: uriTemplate}
}

// CompleteRequest is a completion/complete request.
type CompleteRequest struct {
	Request
	Ref Reference
	// Argument is the prompt argument or template variable being
	// completed, and Value what the user typed so far.
	Argument string
	Value    string
	// Context holds the values of the other arguments already resolved
	// (context.arguments); it is never nil.
	Context map[string]string
}

// Completion is a list of suggestions. The runtime sends at most 100
// values; when there are more it sets HasMore and a Total of at least the
// number given.
type Completion struct {
	Values  []string
	Total   int // 0: unknown
	HasMore bool
}

// CompletionHandler suggests values for one argument. Its errors are sent
// as [PromptHandler]'s are.
type CompletionHandler func(ctx context.Context, req *CompleteRequest) (*Completion, error)

// AddCompletion registers the completion handler of a prompt's arguments
// or a template's variables, replacing any earlier one, and makes the
// server advertise the completions capability. It panics when ref is
// neither kind or h is nil. A prompt or template without a handler
// completes to no values.
func (s *Server) AddCompletion(ref Reference, h CompletionHandler) {
	if h == nil || !(ref.Type == "ref/prompt" && ref.Name != "" && ref.URI == "" ||
		ref.Type == "ref/resource" && ref.URI != "" && ref.Name == "") {
		panic("mcp: AddCompletion needs a prompt or template Reference and a handler")
	}
	s.mu.Lock()
	s.completions[ref] = h
	s.has.completions = true
	s.mu.Unlock()
}

func (s *Server) complete(ctx context.Context, c *call) (*reply, error) {
	var p struct {
		Ref *struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument *struct {
			Name  *string `json:"name"`
			Value *string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if json.Unmarshal(c.params, &p) != nil || p.Ref == nil || p.Argument == nil || p.Argument.Name == nil || p.Argument.Value == nil {
		return nil, invalidParams("completion/complete needs a ref and an argument {name, value}")
	}
	var ref Reference
	known := false
	s.mu.Lock()
	switch p.Ref.Type {
	case "ref/prompt":
		ref = PromptReference(p.Ref.Name)
		if e := s.prompts[p.Ref.Name]; e != nil {
			known = slices.ContainsFunc(e.prompt.Arguments, func(a PromptArgument) bool { return a.Name == *p.Argument.Name })
		}
	case "ref/resource":
		ref = TemplateReference(p.Ref.URI)
		for _, e := range s.templates {
			if e.tmpl.URITemplate == p.Ref.URI {
				known = slices.Contains(e.vars, *p.Argument.Name)
			}
		}
	}
	h := s.completions[ref]
	s.mu.Unlock()
	if !known {
		return nil, invalidParams("nothing to complete for %s %q argument %q", p.Ref.Type, p.Ref.Name+p.Ref.URI, *p.Argument.Name)
	}
	res := &Completion{}
	if h != nil {
		base, err := s.newRequest(c)
		if err != nil {
			return nil, err
		}
		args := p.Context.Arguments
		if args == nil {
			args = map[string]string{}
		}
		req := &CompleteRequest{Request: base, Ref: ref, Argument: *p.Argument.Name, Value: *p.Argument.Value, Context: args}
		out, herr := h(ctx, req)
		if herr != nil {
			_, err, _ := s.settle(c, req.in, herr)
			return nil, err
		}
		if out != nil {
			res = out
		}
	}
	values, total, more := res.Values, res.Total, res.HasMore
	if values == nil {
		values = []string{}
	}
	if len(values) > maxCompletionValues {
		total = max(total, len(values))
		values, more = values[:maxCompletionValues], true
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total,omitempty"`
		HasMore bool     `json:"hasMore,omitempty"`
	}
	body, err := rawjson.Marshal(struct {
		Completion completion `json:"completion"`
	}{completion{values, total, more}})
	if err != nil {
		return nil, err
	}
	return &reply{body: body}, nil
}
