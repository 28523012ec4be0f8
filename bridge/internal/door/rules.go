package door

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Access is the authentication and the rules in force; a reload replaces
// it whole (Door.SetAccess).
type Access struct {
	Auth  *access.Authenticator
	Rules access.Rules

	// replaced is cancelled once a reload put other settings in force:
	// the open calls then check their credentials again (watch.go).
	replaced context.Context
	replace  context.CancelFunc
}

// newAccess is the settings of auth and rules, in force until replaced.
// The rules are the configured ones and those of the OAuth scopes: a
// scope grants through the same rules as a group or a claim.
func newAccess(auth *access.Authenticator, rules access.Rules) *Access {
	a := &Access{Auth: auth, Rules: append(slices.Clip(rules), auth.ScopeRules()...)}
	a.replaced, a.replace = context.WithCancel(context.Background())
	return a
}

// SetAccess puts new settings in force and has the open calls check
// their credentials against them.
func (d *Door) SetAccess(auth *access.Authenticator, rules access.Rules) {
	old := d.acc.Swap(newAccess(auth, rules))
	if old != nil {
		old.replace()
	}
}

// Access returns the authentication and rules in force.
func (d *Door) Access() *Access { return d.acc.Load() }

// Target is what an MCP request asks of a server: a tool, resource or
// prompt by name (kind Server: nothing beyond the server).
func Target(method string, params json.RawMessage) (access.Kind, []string) {
	return target(method, func(key string) json.RawMessage {
		raw, _ := rawjson.Member(params, key)
		return raw
	})
}

// target is Target with the members of params read by member.
func target(method string, member func(key string) json.RawMessage) (access.Kind, []string) {
	str := func(raw json.RawMessage) string {
		v, _ := rawjson.StringValue(raw)
		return v
	}
	sub := func(obj json.RawMessage, key string) json.RawMessage {
		raw, _ := rawjson.Member(obj, key)
		return raw
	}
	switch method {
	case "tools/call":
		return access.Tool, []string{str(member("name"))}
	case "prompts/get":
		return access.Prompt, []string{str(member("name"))}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return access.Resource, []string{str(member("uri"))}
	case "completion/complete":
		ref := member("ref")
		if str(sub(ref, "type")) == "ref/resource" {
			return access.Resource, []string{str(sub(ref, "uri"))}
		}
		return access.Prompt, []string{str(sub(ref, "name"))}
	case "subscriptions/listen":
		filter := member("notifications")
		uris, _ := rawjson.Member(filter, "resourceSubscriptions")
		var names []string
		rawjson.Elements(uris, func(_ int, v json.RawMessage) bool {
			s, _ := rawjson.StringValue(v)
			names = append(names, s)
			return true
		})
		return access.Resource, names
	}
	return access.Server, nil
}

// KindNames name the kinds in messages.
var KindNames = map[access.Kind]string{access.Tool: "tool", access.Resource: "resource", access.Prompt: "prompt"}

// listItems are the list methods, their result's array and what names an
// item.
var listItems = map[string]struct {
	array, key string
	kind       access.Kind
}{
	"tools/list":               {"tools", "name", access.Tool},
	"prompts/list":             {"prompts", "name", access.Prompt},
	"resources/list":           {"resources", "uri", access.Resource},
	"resources/templates/list": {"resourceTemplates", "uriTemplate", access.Resource},
}

// FilterList removes from a list result what the caller may not use, so
// that a caller sees only the tools, prompts and resources it may use.
func (d *Door) FilterList(ctx context.Context, server, method string, res json.RawMessage) json.RawMessage {
	li, ok := listItems[method]
	if !ok || len(d.Access().Rules) == 0 {
		return res
	}
	arr, ok := rawjson.Member(res, li.array)
	if !ok {
		return res
	}
	p := access.FromContext(ctx)
	out := []byte{'['}
	rawjson.Elements(arr, func(_ int, item json.RawMessage) bool {
		raw, _ := rawjson.Member(item, li.key)
		name, _ := rawjson.StringValue(raw)
		if d.Access().Rules.Allow(p, server, li.kind, name) {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, item...)
		}
		return true
	})
	filtered, err := rawjson.SetMember(res, li.array, append(out, ']'))
	if err != nil {
		return res
	}
	return filtered
}

// Shows reports whether a list shows the caller of ctx the item of server
// named name, of kind: what FilterList keeps, one item at a time.
func (d *Door) Shows(ctx context.Context, server string, kind access.Kind, name string) bool {
	rules := d.Access().Rules
	return len(rules) == 0 || rules.Allow(access.FromContext(ctx), server, kind, name)
}
