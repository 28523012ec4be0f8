// Package aggregate is what an aggregated server is made of: the
// configuration of its members, the merge of their lists into the one the
// aggregate lists, and the routes from the names it lists back to a member
// and the member's own name (docs/aggregation.md). It knows no child and
// no door: the doors list the members and call them, and ask this package
// how to merge what they got and where a request goes.
package aggregate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Conflicts is how an aggregate names what its members list.
type Conflicts int

const (
	// Prefix names every tool and prompt of a member with the member's
	// prefix (Config.Prefix), so that no two members' names meet. A
	// resource URI or template that an earlier member already lists is
	// rewritten (MemberURI).
	Prefix Conflicts = iota
	// Priority keeps the members' own names; where two members list the
	// same name, URI or template, the first member in Config.Members wins
	// and the others' are not listed.
	Priority
)

// String is the conflicts' name in the config file.
func (c Conflicts) String() string {
	if c == Priority {
		return "priority"
	}
	return "prefix"
}

// ParseConflicts reads a conflicts name of the config file; "" is Prefix.
func ParseConflicts(name string) (Conflicts, error) {
	switch name {
	case "", "prefix":
		return Prefix, nil
	case "priority":
		return Priority, nil
	}
	return 0, fmt.Errorf("unknown conflicts %q (prefix or priority)", name)
}

// DefaultPrefix is Config.Prefix's default with Prefix: the member's name
// and an underscore.
const DefaultPrefix = "{server}_"

// serverVar is the prefix's placeholder for the member's name.
const serverVar = "{server}"

// Config is an aggregated server: the fronted servers it merges, how it
// names what they list, and which of their tools and prompts it lists.
type Config struct {
	// Name is the aggregate's name among the fronted servers: what the
	// server field, the mcp-server metadata and /mcp/{name} select.
	Name string
	// Members are the fronted servers it merges, by name, in priority
	// order. None of them is an aggregate.
	Members []string
	// Conflicts is how names are kept apart (default Prefix).
	Conflicts Conflicts
	// Prefix is the template of a member's prefix, with Prefix: {server}
	// is the member's name (default DefaultPrefix).
	Prefix string
	// Tools and Prompts pick and rename the tools and prompts it lists.
	Tools, Prompts Filter

	prefixes []string // each member's prefix, by Normalize
}

// Filter picks and renames what an aggregate lists of one kind. Every name
// in it is one the aggregate gives (after the prefix, before an
// override).
type Filter struct {
	// Include, when set, lists only these names.
	Include []string
	// Exclude lists none of these names.
	Exclude []string
	// Overrides renames and redescribes a name.
	Overrides map[string]Override

	renamedFrom map[string]string // an override's new name → the name it renames, by Normalize
}

// Override is what the aggregate lists of one tool or prompt instead of
// what its member says.
type Override struct {
	// Name, when set, is the name the aggregate lists and calls it by.
	Name string
	// Description, when set, is the description it lists.
	Description string
}

// FieldError is a configuration that Normalize refused: Field is the
// field as Go spells it from Config ("Members[1]", "Tools.Overrides").
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Normalize checks c and fills in its defaults: at least one member, none
// twice; with Prefix, a prefix that holds {server}, so that no two members
// can list one name; with Priority, no prefix.
func (c *Config) Normalize() error {
	if c.Name == "" {
		return &FieldError{"Name", "an aggregate needs a name"}
	}
	if len(c.Members) == 0 {
		return &FieldError{"Members", "an aggregate needs at least one member"}
	}
	for i, m := range c.Members {
		if m == "" {
			return &FieldError{fmt.Sprintf("Members[%d]", i), "a member is named by its server's name"}
		}
		if j := slices.Index(c.Members[:i], m); j >= 0 {
			return &FieldError{fmt.Sprintf("Members[%d]", i), fmt.Sprintf("%q is already Members[%d]", m, j)}
		}
	}
	switch c.Conflicts {
	case Prefix:
		if c.Prefix == "" {
			c.Prefix = DefaultPrefix
		}
		if !strings.Contains(c.Prefix, serverVar) {
			return &FieldError{"Prefix", fmt.Sprintf("%q does not hold %s, so two members could list one name", c.Prefix, serverVar)}
		}
	case Priority:
		if c.Prefix != "" {
			return &FieldError{"Prefix", "a prefix is for conflicts: prefix; with priority the members' names are kept"}
		}
	default:
		return &FieldError{"Conflicts", fmt.Sprintf("unknown value %d", int(c.Conflicts))}
	}
	c.prefixes = make([]string, len(c.Members))
	for i, m := range c.Members {
		c.prefixes[i] = c.PrefixOf(m)
	}
	for _, f := range []struct {
		name string
		f    *Filter
	}{{"Tools", &c.Tools}, {"Prompts", &c.Prompts}} {
		seen := map[string]string{}
		for from, o := range f.f.Overrides {
			if o.Name == "" {
				continue
			}
			if other, dup := seen[o.Name]; dup {
				return &FieldError{f.name + ".Overrides", fmt.Sprintf("%q and %q are both renamed %q", min(from, other), max(from, other), o.Name)}
			}
			seen[o.Name] = from
		}
		f.f.renamedFrom = seen
	}
	return nil
}

// prefixAt is PrefixOf(c.Members[i]), from the table Normalize keeps.
func (c *Config) prefixAt(i int) string {
	if len(c.prefixes) == len(c.Members) {
		return c.prefixes[i]
	}
	return c.PrefixOf(c.Members[i])
}

// NormalizeAll normalizes each of aggs and checks them together against
// the fronted servers (servers: each name and its index): an aggregate's
// name is used by no server and no other aggregate, and its members are
// servers, not aggregates. It returns the index of the aggregate at fault
// and a *FieldError.
func NormalizeAll(aggs []Config, servers map[string]int) (int, error) {
	names := map[string]int{}
	for i := range aggs {
		a := &aggs[i]
		if err := a.Normalize(); err != nil {
			return i, err
		}
		if j, dup := servers[a.Name]; dup {
			return i, &FieldError{"Name", fmt.Sprintf("the name %q is already used by Servers[%d]", a.Name, j)}
		}
		if j, dup := names[a.Name]; dup {
			return i, &FieldError{"Name", fmt.Sprintf("the name %q is already used by Aggregates[%d]", a.Name, j)}
		}
		names[a.Name] = i
	}
	for i, a := range aggs {
		for j, m := range a.Members {
			if _, ok := servers[m]; ok {
				continue
			}
			msg := fmt.Sprintf("no server is named %q", m)
			if _, agg := names[m]; agg {
				msg = fmt.Sprintf("%q is an aggregate: members are servers", m)
			}
			return i, &FieldError{fmt.Sprintf("Members[%d]", j), msg}
		}
	}
	return 0, nil
}

// PrefixOf is the prefix of member's names under c ("" with Priority).
func (c *Config) PrefixOf(member string) string {
	if c.Conflicts != Prefix {
		return ""
	}
	return strings.ReplaceAll(c.Prefix, serverVar, member)
}

// Kind is what a list holds.
type Kind int

const (
	Tools Kind = iota
	Prompts
	Resources
	ResourceTemplates
)

// kinds describes each Kind: its list method, the result's array member
// and the item's member that names it.
var kinds = [...]struct{ method, field, key string }{
	Tools:             {"tools/list", "tools", "name"},
	Prompts:           {"prompts/list", "prompts", "name"},
	Resources:         {"resources/list", "resources", "uri"},
	ResourceTemplates: {"resources/templates/list", "resourceTemplates", "uriTemplate"},
}

// ListMethod is the MCP method that lists k.
func (k Kind) ListMethod() string { return kinds[k].method }

// Field is the member of a list result that holds the items.
func (k Kind) Field() string { return kinds[k].field }

// KindOf is the list kind that names a target of access kind k: a tool's
// name, a prompt's, a resource's URI.
func KindOf(k access.Kind) Kind {
	switch k {
	case access.Prompt:
		return Prompts
	case access.Resource:
		return Resources
	}
	return Tools
}

// Access is what the rules call the items of a list of kind k.
func (k Kind) Access() access.Kind {
	switch k {
	case Tools:
		return access.Tool
	case Prompts:
		return access.Prompt
	}
	return access.Resource
}

// KindOfList returns the kind a list method lists.
func KindOfList(method string) (Kind, bool) {
	for k, d := range kinds {
		if d.method == method {
			return Kind(k), true
		}
	}
	return 0, false
}

// Listed is one member's whole list of one kind, every page, or why there
// is none.
type Listed struct {
	Member string
	Items  []json.RawMessage // each a JSON object
	Err    error             // the member is down, or refused the caller
}

// Target is where one of the aggregate's names leads: the member and the
// member's own name (a tool's or prompt's name, a URI, a URI template).
type Target struct {
	Member string
	Name   string
}

// View is the aggregate's list of one kind, merged: its items in member
// order, each under the aggregate's name, and where each name leads.
type View struct {
	Kind  Kind
	Items []json.RawMessage
	of    []Target          // where each item leads
	names map[Target]string // the name each target is listed under
	// Down are the members whose list failed: their items are missing.
	Down   []Listed
	routes map[string]Target
}

// MemberAt is the member that listed Items[i].
func (v *View) MemberAt(i int) string { return v.of[i].Member }

// Filter returns the view with only the items where keep is true of
// where they lead: a caller's list, filtered by its rights on each
// member's own names. Its routes are v's.
func (v *View) Filter(keep func(Target) bool) *View {
	out := &View{Kind: v.Kind, Down: v.Down, routes: v.routes, names: v.names}
	for i, t := range v.of {
		if keep(t) {
			out.Items = append(out.Items, v.Items[i])
			out.of = append(out.of, t)
		}
	}
	return out
}

// NameOf is the name under which the view lists member's own name (a
// URI the aggregate rewrote, a prefixed tool).
func (v *View) NameOf(member, own string) (string, bool) {
	name, ok := v.names[Target{Member: member, Name: own}]
	return name, ok
}

// Route is where name, as the view lists it, leads.
func (v *View) Route(name string) (Target, bool) {
	t, ok := v.routes[name]
	return t, ok
}

// Merge merges the members' lists of kind, given in c.Members' order, into
// the aggregate's. A tool or prompt is named for the aggregate (the
// prefix, then its override) and dropped when the filter says so; a name,
// URI or template listed twice is kept from the first member (Priority),
// or, for a resource or template under Prefix, listed the second time
// under MemberURI. An item without its name is dropped.
func (c *Config) Merge(kind Kind, lists []Listed) *View {
	v := &View{Kind: kind, routes: map[string]Target{}, names: map[Target]string{}}
	key := kinds[kind].key
	for _, l := range lists {
		if l.Err != nil {
			v.Down = append(v.Down, l)
			continue
		}
		for _, item := range l.Items {
			raw, _ := rawjson.Member(item, key)
			own, ok := rawjson.StringValue(raw)
			if !ok || own == "" {
				continue
			}
			name, desc := own, ""
			switch kind {
			case Tools, Prompts:
				f := c.filter(kind)
				name = c.PrefixOf(l.Member) + own
				if !f.lists(name) {
					continue
				}
				if o, ok := f.Overrides[name]; ok {
					name = cmp(o.Name, name)
					desc = o.Description
				}
			default:
				if _, taken := v.routes[name]; taken && c.Conflicts == Prefix {
					name = MemberURI(l.Member, own)
				}
			}
			if _, taken := v.routes[name]; taken {
				continue // the first member's stays
			}
			if name != own {
				item, _ = rawjson.SetMember(item, key, rawjson.AppendString(nil, name))
			}
			if desc != "" {
				item, _ = rawjson.SetMember(item, "description", rawjson.AppendString(nil, desc))
			}
			v.routes[name] = Target{Member: l.Member, Name: own}
			v.names[Target{Member: l.Member, Name: own}] = name
			v.Items = append(v.Items, item)
			v.of = append(v.of, Target{Member: l.Member, Name: own})
		}
	}
	return v
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (c *Config) filter(kind Kind) *Filter {
	if kind == Prompts {
		return &c.Prompts
	}
	return &c.Tools
}

// lists reports whether the filter lets the aggregate list name.
func (f *Filter) lists(name string) bool {
	if len(f.Include) > 0 && !slices.Contains(f.Include, name) {
		return false
	}
	return !slices.Contains(f.Exclude, name)
}

// RouteName is where a tool's or prompt's name leads without a view:
// under Prefix, by the member whose prefix it starts with (the longest),
// after undoing an override, and only if the filter lists it. Under
// Priority the name alone does not say which member has it: ok is false,
// and the caller looks it up in a view.
func (c *Config) RouteName(kind Kind, name string) (Target, bool) {
	if c.Conflicts != Prefix || (kind != Tools && kind != Prompts) {
		return Target{}, false
	}
	f := c.filter(kind)
	listed := name
	if from, ok := f.renamedFrom[name]; ok {
		listed = from
	} else if o, ok := f.Overrides[name]; ok && o.Name != "" {
		return Target{}, false // renamed: not callable under its old name
	}
	if !f.lists(listed) {
		return Target{}, false
	}
	best := Target{}
	bestLen := -1
	for i, m := range c.Members {
		p := c.prefixAt(i)
		if len(p) > bestLen && len(listed) > len(p) && strings.HasPrefix(listed, p) {
			best, bestLen = Target{Member: m, Name: listed[len(p):]}, len(p)
		}
	}
	return best, bestLen >= 0
}

// Resolve is where name leads, a tool's or prompt's name or, for
// Resources and ResourceTemplates, a URI: by the name alone (RouteName,
// RouteURI), else by the views view gives (nil for one there is none of):
// the resources' routes, then the templates'. When it is not found, kinds
// are the kinds whose views could say (none when the name alone says no
// member has it), for the caller to read again.
func (c *Config) Resolve(kind Kind, name string, view func(Kind) *View) (t Target, found bool, kinds []Kind) {
	if t, ok := c.RouteName(kind, name); ok {
		return t, true, nil
	}
	switch kind {
	case Tools, Prompts:
		if c.Conflicts == Prefix {
			return Target{}, false, nil // the prefix alone says: no member's
		}
		kinds = []Kind{kind}
	default:
		if t, ok := RouteURI(name); ok {
			return t, true, nil
		}
		kinds = []Kind{Resources, ResourceTemplates}
	}
	for _, k := range kinds {
		if v := view(k); v != nil {
			if t, ok := v.Route(name); ok {
				return t, true, nil
			}
		}
	}
	if len(kinds) == 2 {
		if v := view(ResourceTemplates); v != nil {
			if t, ok := v.RouteTemplate(name); ok {
				return t, true, nil
			}
		}
	}
	return Target{}, false, kinds
}

// Unknown is the error of a name that leads to no member: an unknown tool
// or prompt (-32602), a resource not found (-32002), in the words a
// member would use.
func Unknown(kind Kind, name string) *jsonrpc.Error {
	switch kind {
	case Prompts:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown prompt: %s", name)
	case Resources, ResourceTemplates:
		return jsonrpc.WithData(jsonrpc.CodeResourceNotFound, "Resource not found", map[string]string{"uri": name})
	}
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown tool: %s", name)
}

// ListedName is the name under which c lists member's tool or prompt own
// (its prefix, then an override), for the audit of a request that came
// through a session; "" when the name alone does not say (Priority lists
// the member's own name; a resource's URI is its own unless two members
// list it).
func (c *Config) ListedName(kind Kind, member, own string) string {
	if kind != Tools && kind != Prompts {
		return own
	}
	name := c.PrefixOf(member) + own
	if o, ok := c.filter(kind).Overrides[name]; ok && o.Name != "" {
		name = o.Name
	}
	return name
}

// memberScheme is the scheme of a member's URI that the aggregate had to
// rewrite: mcpbridge:{member}/{the member's URI}.
const memberScheme = "mcpbridge:"

// MemberURI is how an aggregate lists a resource URI (or a URI template)
// of member that an earlier member lists too, under Prefix:
// mcpbridge:{member}/{uri}, the member's name path-escaped and the URI
// as it is, so that a template's variables stay variables.
func MemberURI(member, uri string) string {
	return memberScheme + url.PathEscape(member) + "/" + uri
}

// RouteURI is where a URI the aggregate listed under MemberURI leads; ok
// is false for any other URI.
func RouteURI(uri string) (Target, bool) {
	rest, ok := strings.CutPrefix(uri, memberScheme)
	if !ok {
		return Target{}, false
	}
	esc, own, ok := strings.Cut(rest, "/")
	member, err := url.PathUnescape(esc)
	if !ok || err != nil || member == "" {
		return Target{}, false
	}
	return Target{Member: member, Name: own}, true
}

// PageSize is how many items one page of an aggregate's list holds.
const PageSize = 500

// Page returns the items [from, to) of a list of n items that cursor (""
// for the first) starts, and the cursor of the next page ("" after the
// last). A cursor is the aggregate's own: an offset, opaque to the client;
// one that is not the aggregate's is an error.
func Page(n int, cursor string) (from, to int, next string, err error) {
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		off, ok := strings.CutPrefix(string(raw), "agg:")
		i, convErr := strconv.Atoi(off)
		if err != nil || !ok || convErr != nil || i < 0 {
			return 0, 0, "", fmt.Errorf("invalid cursor %q", cursor)
		}
		from = min(i, n)
	}
	to = min(from+PageSize, n)
	if to < n {
		next = base64.RawURLEncoding.EncodeToString([]byte("agg:" + strconv.Itoa(to)))
	}
	return from, to, next, nil
}

// Result is a list result of kind holding items, and nextCursor when next
// is set.
func Result(kind Kind, items []json.RawMessage, next string) json.RawMessage {
	out := append(rawjson.AppendString([]byte{'{'}, kinds[kind].field), ':', '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	out = append(out, ']')
	if next != "" {
		out = rawjson.AppendString(append(out, `,"nextCursor":`...), next)
	}
	return append(out, '}')
}

// Items returns the items of one page of a member's list result of kind,
// and its nextCursor ("" on the last page).
func Items(kind Kind, result json.RawMessage) (items []json.RawMessage, next string, err error) {
	arr, ok := rawjson.Member(result, kinds[kind].field)
	if !ok {
		return nil, "", fmt.Errorf("the %s result has no %s", kinds[kind].method, kinds[kind].field)
	}
	if !rawjson.Elements(arr, func(_ int, v json.RawMessage) bool {
		if rawjson.IsObject(v) {
			items = append(items, v)
		}
		return true
	}) {
		return nil, "", fmt.Errorf("the %s result's %s is not an array", kinds[kind].method, kinds[kind].field)
	}
	if raw, ok := rawjson.Member(result, "nextCursor"); ok {
		next, _ = rawjson.StringValue(raw)
	}
	return items, next, nil
}

// Rename returns params of an MCP request of method with its target (the
// tool's or prompt's name, the resource's URI, a completion's reference)
// set to the member's own name; params of any other method are returned
// as they are.
func Rename(method string, params json.RawMessage, own string) (json.RawMessage, error) {
	v := rawjson.AppendString(nil, own)
	switch method {
	case "tools/call", "prompts/get":
		return rawjson.SetMember(params, "name", v)
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return rawjson.SetMember(params, "uri", v)
	case "completion/complete":
		ref, _ := rawjson.Member(params, "ref")
		typ, _ := rawjson.Member(ref, "type")
		key := "name"
		if t, _ := rawjson.StringValue(typ); t == "ref/resource" {
			key = "uri"
		}
		ref, err := rawjson.SetMember(ref, key, v)
		if err != nil {
			return nil, err
		}
		return rawjson.SetMember(params, "ref", ref)
	}
	return params, nil
}

// RouteTemplate is which member's template a URI expands: the template
// whose text before its first variable is the longest start of uri.
func (v *View) RouteTemplate(uri string) (Target, bool) {
	best, bestLen := Target{}, -1
	for name, t := range v.routes {
		lit, _, _ := strings.Cut(name, "{")
		if len(lit) > bestLen && strings.HasPrefix(uri, lit) {
			best, bestLen = Target{Member: t.Member, Name: uri}, len(lit)
		}
	}
	return best, bestLen >= 0
}
