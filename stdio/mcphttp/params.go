package mcphttp

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// maxParamTools bounds the tools whose x-mcp-header annotations the adapter
// remembers; tools past it go unchecked.
const maxParamTools = 4096

// paramHeader is one x-mcp-header annotation of a tool's inputSchema: the
// argument at path is mirrored into the header Mcp-Param-<name>.
type paramHeader struct {
	name string
	path []string
}

// paramHeaders remembers the x-mcp-header annotations of the tools the
// server listed. Mirroring arguments into headers is the HTTP transport's
// business (Streamable HTTP, "Custom Headers from Tool Parameters"), which a
// stdio server cannot see, so the adapter validates them as the server's
// HTTP side would. It learns them from tools/list results it forwards,
// asking the server nothing of its own.
type paramHeaders struct {
	mu    sync.Mutex
	tools map[string][]paramHeader
}

// learn records the annotations of every tool in a tools/list result.
func (p *paramHeaders) learn(result json.RawMessage) {
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &list) != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tools == nil {
		p.tools = make(map[string][]paramHeader)
	}
	for _, t := range list.Tools {
		var found []paramHeader
		annotations(t.InputSchema, nil, &found)
		_, known := p.tools[t.Name]
		switch {
		case found == nil:
			delete(p.tools, t.Name)
		case known || len(p.tools) < maxParamTools:
			p.tools[t.Name] = found
		}
	}
}

// annotations collects the x-mcp-header annotations statically reachable
// from schema: through chains of properties keys only, as the transport
// allows.
func annotations(schema json.RawMessage, path []string, out *[]paramHeader) {
	props, ok := rawjson.Member(schema, "properties")
	if !ok {
		return
	}
	for _, f := range rawjson.Fields(props) {
		if !rawjson.IsObject(f.Value) {
			continue
		}
		at := append(path[:len(path):len(path)], f.Key)
		if raw, ok := rawjson.Member(f.Value, "x-mcp-header"); ok {
			if name, ok := rawjson.StringValue(raw); ok && name != "" {
				*out = append(*out, paramHeader{name: name, path: at})
			}
		}
		annotations(f.Value, at, out)
	}
}

// check validates a tools/call's Mcp-Param-* headers against its
// arguments, for a tool whose annotations are known: each argument present
// and not null needs its header, equal once decoded (integers compared as
// numbers, booleans as true or false), and a header present must decode. It
// returns a -32020 error on the first failure.
func (p *paramHeaders) check(h http.Header, params json.RawMessage) error {
	rawName, _ := rawjson.Member(params, "name")
	name, _ := rawjson.StringValue(rawName)
	p.mu.Lock()
	specs := p.tools[name]
	p.mu.Unlock()
	args, _ := rawjson.Member(params, "arguments")
	for _, s := range specs {
		header := "Mcp-Param-" + s.name
		got, present := headerValue(h, header)
		var decoded string
		if present {
			var err error
			if decoded, err = decodeHeaderValue(got); err != nil {
				return mismatch("%s header: %v", header, err)
			}
		}
		value, ok := at(args, s.path)
		if !ok || string(value) == "null" {
			continue // nothing to mirror, so nothing to expect
		}
		if !present {
			return mismatch("missing %s header for argument %s", header, strings.Join(s.path, "."))
		}
		if !sameValue(decoded, value) {
			return mismatch("%s header %q does not match argument %s", header, decoded, strings.Join(s.path, "."))
		}
	}
	return nil
}

// headerValue is header for a name that is not canonical (Mcp-Param-Region
// is, but x-mcp-header values may hold any token characters).
func headerValue(h http.Header, name string) (string, bool) {
	if v, ok := header(h, name); ok {
		return v, true
	}
	for k := range h {
		if strings.EqualFold(k, name) {
			return header(h, k)
		}
	}
	return "", false
}

// at returns the value at a path of keys in the object obj.
func at(obj json.RawMessage, path []string) (json.RawMessage, bool) {
	v := obj
	for _, k := range path {
		var ok bool
		if v, ok = rawjson.Member(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

// sameValue compares a decoded header value with the argument it mirrors:
// a string as is, a number numerically (42 and 42.0 are equal), a boolean
// as true or false. Other values cannot be mirrored and never match.
func sameValue(header string, value json.RawMessage) bool {
	switch {
	case value[0] == '"':
		s, ok := rawjson.StringValue(value)
		return ok && s == header
	case string(value) == "true" || string(value) == "false":
		return header == string(value)
	case value[0] == '-' || value[0] >= '0' && value[0] <= '9':
		a, _, errA := big.ParseFloat(header, 10, 200, big.ToNearestEven)
		b, _, errB := big.ParseFloat(string(value), 10, 200, big.ToNearestEven)
		return errA == nil && errB == nil && a.Cmp(b) == 0
	}
	return false
}
