package bridge

// This file is authorization (docs/security.md): the interceptor that
// authenticates every BridgeService call (health stays open), what a
// request names for the rules (target), and the rules applied to what a
// list shows. The door (door.go) applies the rules to every request to a
// child.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// accessState is the authentication and the rules in force; Reload
// replaces it whole.
type accessState struct {
	auth  *access.Authenticator
	rules access.Rules

	// replaced is cancelled once a Reload put other settings in force:
	// the open calls then check their credentials again (reauth.go).
	replaced context.Context
	replace  context.CancelFunc
}

// newAccessState is the settings of auth and rules, in force until
// replaced.
func newAccessState(auth *access.Authenticator, rules access.Rules) *accessState {
	a := &accessState{auth: auth, rules: rules}
	a.replaced, a.replace = context.WithCancel(context.Background())
	return a
}

// setAccess puts new settings in force and has the open calls check
// their credentials against them.
func (s *Service) setAccess(auth *access.Authenticator, rules access.Rules) {
	old := s.acc.Swap(newAccessState(auth, rules))
	if old != nil {
		old.replace()
	}
}

// access returns the authentication and rules in force.
func (s *Service) access() *accessState { return s.acc.Load() }

// authenticate is the auth interceptor's function: the caller's principal
// in the context, or UNAUTHENTICATED with nothing that helps an attacker.
func (s *Service) authenticate(ctx context.Context) (context.Context, error) {
	if !s.access().auth.Enabled() {
		return ctx, nil
	}
	p, err := s.access().auth.Authenticate(ctx)
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, "authentication required")
	}
	ctx = access.NewContext(ctx, p)
	return logging.InjectFields(ctx, logging.Fields{"principal", p.Name, "auth", p.Method}), nil
}

// allowServer reports whether the caller of ctx may use server at all.
func (s *Service) allowServer(ctx context.Context, server string) bool {
	return s.access().rules.Allow(access.FromContext(ctx), server, access.Server, "")
}

// target is what an MCP request asks of a server: a tool, resource or
// prompt by name (kind Server: nothing beyond the server).
func target(method string, params json.RawMessage) (access.Kind, []string) {
	str := func(obj json.RawMessage, key string) string {
		raw, _ := rawjson.Member(obj, key)
		v, _ := rawjson.StringValue(raw)
		return v
	}
	switch method {
	case "tools/call":
		return access.Tool, []string{str(params, "name")}
	case "prompts/get":
		return access.Prompt, []string{str(params, "name")}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return access.Resource, []string{str(params, "uri")}
	case "completion/complete":
		ref, _ := rawjson.Member(params, "ref")
		if str(ref, "type") == "ref/resource" {
			return access.Resource, []string{str(ref, "uri")}
		}
		return access.Prompt, []string{str(ref, "name")}
	case "subscriptions/listen":
		filter, _ := rawjson.Member(params, "notifications")
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

var kindNames = map[access.Kind]string{access.Tool: "tool", access.Resource: "resource", access.Prompt: "prompt"}

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

// filterList removes from a list result what the caller may not use, so
// that a caller sees only the tools, prompts and resources it may use.
func (s *Service) filterList(ctx context.Context, server, method string, res json.RawMessage) json.RawMessage {
	li, ok := listItems[method]
	if !ok || len(s.access().rules) == 0 {
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
		if s.access().rules.Allow(p, server, li.kind, name) {
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

// checkAccess checks the access settings of a configuration.
func (c *Config) checkAccess() error {
	if err := c.Rules.Check(); err != nil {
		return err
	}
	if len(c.Rules) > 0 && !c.Auth.Enabled() {
		return fmt.Errorf("bridge: authorization rules need authentication (API keys, JWT or mTLS)")
	}
	return nil
}
