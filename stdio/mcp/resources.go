package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Resource describes a resource the server can read (docs/protocol.md,
// "Resources").
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"` // bytes, before any encoding
	Annotations *Annotations    `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template. The runtime matches level-1 templates: literal text and
// {name} variables, each of which matches one or more characters other
// than '/', '?' and '#', percent-decoded.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ReadResourceRequest is a resources/read request.
type ReadResourceRequest struct {
	Request
	// URI is the URI asked for.
	URI string
	// Template is the URI template that matched, "" for a resource
	// registered with AddResource.
	Template string
	// Vars holds the template's variables, decoded; nil for a resource.
	Vars map[string]string
	// MIMEType is the registered resource's or template's MIME type.
	MIMEType string
}

// ResourceHandler reads a resource. Its errors are sent as
// [PromptHandler]'s are; return [ErrResourceNotFound] when a templated URI
// names nothing.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

// ErrResourceNotFound reports a resource that does not exist. The runtime
// sends it as the era requires (docs/protocol.md, "Removed methods"):
// -32002 on a 2025 connection, -32602 on 2026-07-28, both with data
// {"uri": URI}. It also answers URIs that match no resource or template,
// and a handler that returns no contents.
var ErrResourceNotFound = errors.New("mcp: resource not found")

// TextResource returns a handler that serves text, with the URI asked for
// and the registered MIME type.
func TextResource(text string) ResourceHandler {
	return func(_ context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{Contents: []ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
	}
}

// BlobResource returns a handler that serves data as a blob, with the URI
// asked for and the registered MIME type.
func BlobResource(data []byte) ResourceHandler {
	data = slices.Clone(data)
	if data == nil {
		data = []byte{}
	}
	return func(_ context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{Contents: []ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Blob: data}}}, nil
	}
}

type resourceEntry struct {
	res     Resource
	raw     json.RawMessage
	handler ResourceHandler
}

type templateEntry struct {
	tmpl    ResourceTemplate
	raw     json.RawMessage
	re      *regexp.Regexp
	vars    []string
	handler ResourceHandler
}

// AddResource registers a resource, replacing one with the same URI, and
// announces the change. It panics when the URI or the name is empty or h
// is nil.
func (s *Server) AddResource(r Resource, h ResourceHandler) {
	if r.URI == "" || r.Name == "" || h == nil {
		panic("mcp: AddResource needs a URI, a name and a handler")
	}
	raw, err := rawjson.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddResource %q: %v", r.URI, err))
	}
	s.mu.Lock()
	s.resources[r.URI] = &resourceEntry{res: r, raw: raw, handler: h}
	s.has.resources = true
	s.mu.Unlock()
	s.broadcast(event{kind: eventResources})
}

// AddResourceTemplate registers a resource template, replacing one with
// the same URI template, and announces the change. It panics when the
// template is not a level-1 URI template, the name is empty or h is nil.
func (s *Server) AddResourceTemplate(t ResourceTemplate, h ResourceHandler) {
	if t.Name == "" || h == nil {
		panic("mcp: AddResourceTemplate needs a name and a handler")
	}
	re, vars, err := compileTemplate(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddResourceTemplate: %v", err))
	}
	raw, err := rawjson.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: %v", t.URITemplate, err))
	}
	e := &templateEntry{tmpl: t, raw: raw, re: re, vars: vars, handler: h}
	s.mu.Lock()
	s.templates = slices.DeleteFunc(s.templates, func(o *templateEntry) bool { return o.tmpl.URITemplate == t.URITemplate })
	i, _ := slices.BinarySearchFunc(s.templates, t.URITemplate, func(o *templateEntry, k string) int { return strings.Compare(o.tmpl.URITemplate, k) })
	s.templates = slices.Insert(s.templates, i, e)
	s.has.resources = true
	s.mu.Unlock()
	s.broadcast(event{kind: eventResources})
}

// RemoveResources unregisters the resources with these URIs and the
// templates with these URI templates and, if any was registered,
// announces the change.
func (s *Server) RemoveResources(uris ...string) {
	if s.remove(uris, func(u string) bool {
		_, ok := s.resources[u]
		delete(s.resources, u)
		n := len(s.templates)
		s.templates = slices.DeleteFunc(s.templates, func(o *templateEntry) bool { return o.tmpl.URITemplate == u })
		return ok || len(s.templates) < n
	}) {
		s.broadcast(event{kind: eventResources})
	}
}

// compileTemplate turns a level-1 URI template into a regular expression
// with one group per variable.
func compileTemplate(tmpl string) (*regexp.Regexp, []string, error) {
	var pat strings.Builder
	var vars []string
	pat.WriteString("^")
	rest := tmpl
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return nil, nil, fmt.Errorf("URI template %q has an unmatched '}'", tmpl)
			}
			pat.WriteString(regexp.QuoteMeta(rest))
			break
		}
		if strings.IndexByte(rest[:i], '}') >= 0 {
			return nil, nil, fmt.Errorf("URI template %q has an unmatched '}'", tmpl)
		}
		pat.WriteString(regexp.QuoteMeta(rest[:i]))
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, nil, fmt.Errorf("URI template %q has an unmatched '{'", tmpl)
		}
		name := rest[i+1 : i+j]
		if !validVarName(name) || slices.Contains(vars, name) {
			return nil, nil, fmt.Errorf("URI template %q: {%s} is not a distinct level-1 variable", tmpl, name)
		}
		vars = append(vars, name)
		pat.WriteString("([^/?#]+)")
		rest = rest[i+j+1:]
	}
	pat.WriteString("$")
	if tmpl == "" {
		return nil, nil, errors.New("empty URI template")
	}
	re, err := regexp.Compile(pat.String())
	return re, vars, err
}

func validVarName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// match returns the template's variables for uri, if it matches.
func (e *templateEntry) match(uri string) (map[string]string, bool) {
	m := e.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(e.vars))
	for i, name := range e.vars {
		v, err := url.PathUnescape(m[i+1])
		if err != nil {
			return nil, false
		}
		vars[name] = v
	}
	return vars, true
}

func (s *Server) listResources(_ context.Context, c *call) (*reply, error) {
	return listPage(s, c, "resources", s.resources)
}

func (s *Server) listTemplates(_ context.Context, c *call) (*reply, error) {
	s.mu.Lock()
	keys := make([]string, len(s.templates))
	raws := make([]json.RawMessage, len(s.templates))
	for i, e := range s.templates {
		keys[i], raws[i] = e.tmpl.URITemplate, e.raw
	}
	s.mu.Unlock()
	start, end, next, err := paginate(s, "resourceTemplates", c.params, keys)
	if err != nil {
		return nil, err
	}
	return listReply("resourceTemplates", raws[start:end], next)
}

// notFound is a missing resource's error in c's era.
func notFound(c *call, uri string) *jsonrpc.Error {
	code := int64(jsonrpc.CodeResourceNotFound)
	if c.modern {
		code = jsonrpc.CodeInvalidParams
	}
	return jsonrpc.WithData(code, "Resource not found", map[string]string{"uri": uri})
}

func (s *Server) readResource(ctx context.Context, c *call) (*reply, error) {
	var p struct {
		URI *string `json:"uri"`
	}
	if json.Unmarshal(c.params, &p) != nil || p.URI == nil {
		return nil, invalidParams("resources/read needs a string uri")
	}
	uri := *p.URI
	base, err := s.newRequest(c)
	if err != nil {
		return nil, err
	}
	req := &ReadResourceRequest{Request: base, URI: uri}
	var h ResourceHandler
	s.mu.Lock()
	if e := s.resources[uri]; e != nil {
		h, req.MIMEType = e.handler, e.res.MIMEType
	} else {
		for _, e := range s.templates {
			if vars, ok := e.match(uri); ok {
				h, req.MIMEType, req.Template, req.Vars = e.handler, e.tmpl.MIMEType, e.tmpl.URITemplate, vars
				break
			}
		}
	}
	s.mu.Unlock()
	if h == nil {
		return nil, notFound(c, uri)
	}
	res, herr := h(ctx, req)
	if herr != nil {
		if errors.Is(herr, ErrResourceNotFound) {
			return nil, notFound(c, uri)
		}
		r, err, _ := s.settle(c, req.in, herr)
		return r, err
	}
	if res == nil || len(res.Contents) == 0 {
		return nil, notFound(c, uri)
	}
	r, err := marshalReply(struct {
		Contents []ResourceContents `json:"contents"`
	}{res.Contents})
	if err != nil {
		return nil, err
	}
	r.meta, r.cacheable = res.Meta, true
	return r, nil
}
