package aggregate

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func items(raw ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(raw))
	for i, r := range raw {
		out[i] = json.RawMessage(r)
	}
	return out
}

func names(v *View, key string) []string {
	var out []string
	for _, it := range v.Items {
		var m map[string]any
		if err := json.Unmarshal(it, &m); err != nil {
			panic(err)
		}
		out = append(out, m[key].(string))
	}
	return out
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{Members: []string{"a"}}, "Name"},
		{Config{Name: "all"}, "Members"},
		{Config{Name: "all", Members: []string{"a", ""}}, "Members[1]"},
		{Config{Name: "all", Members: []string{"a", "b", "a"}}, "Members[2]"},
		{Config{Name: "all", Members: []string{"a"}, Prefix: "x_"}, "Prefix"},
		{Config{Name: "all", Members: []string{"a"}, Conflicts: Priority, Prefix: "{server}."}, "Prefix"},
		{Config{Name: "all", Members: []string{"a"}, Conflicts: 7}, "Conflicts"},
		{Config{Name: "all", Members: []string{"a"}, Tools: Filter{Overrides: map[string]Override{"a_x": {Name: "y"}, "a_z": {Name: "y"}}}}, "Tools.Overrides"},
	} {
		err := c.cfg.Normalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("Normalize(%+v) = %v; want an error in %s", c.cfg, err, c.field)
		}
	}
	ok := Config{Name: "all", Members: []string{"a", "b"}}
	if err := ok.Normalize(); err != nil || ok.Prefix != DefaultPrefix {
		t.Errorf("Normalize of a plain aggregate = %v, prefix %q; want nil and %q", err, ok.Prefix, DefaultPrefix)
	}
	for _, name := range []string{"", "prefix", "priority", "first"} {
		c, err := ParseConflicts(name)
		if (err != nil) != (name == "first") || (err == nil && c.String() != map[string]string{"": "prefix"}[name]+name) {
			t.Errorf("ParseConflicts(%q) = %v, %v", name, c, err)
		}
	}
}

// With prefixes every member's tools are listed under its prefix, the
// filter applies to those names, an override renames and redescribes,
// and every name routes back to its member's own name.
func TestMergePrefix(t *testing.T) {
	c := Config{Name: "all", Members: []string{"demo", "everything"},
		Tools: Filter{Exclude: []string{"everything_slow"}, Overrides: map[string]Override{"demo_echo": {Name: "say", Description: "Says it."}}}}
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	v := c.Merge(Tools, []Listed{
		{Member: "demo", Items: items(`{"name":"echo","description":"Echoes."}`, `{"name":"add"}`, `{"title":"no name"}`)},
		{Member: "everything", Items: items(`{"name":"echo"}`, `{"name":"slow"}`)},
		{Member: "gone", Err: errors.New("down")},
	})
	if got, want := names(v, "name"), []string{"say", "demo_add", "everything_echo"}; !slices.Equal(got, want) {
		t.Fatalf("merged tools %v, want %v", got, want)
	}
	if !strings.Contains(string(v.Items[0]), `"description":"Says it."`) {
		t.Errorf("the override's description is missing: %s", v.Items[0])
	}
	if len(v.Down) != 1 || v.Down[0].Member != "gone" {
		t.Errorf("Down = %v, want the member whose list failed", v.Down)
	}
	for name, want := range map[string]Target{"say": {"demo", "echo"}, "demo_add": {"demo", "add"}, "everything_echo": {"everything", "echo"}} {
		if got, ok := v.Route(name); !ok || got != want {
			t.Errorf("view Route(%q) = %v, %v; want %v", name, got, ok, want)
		}
		if got, ok := c.RouteName(Tools, name); !ok || got != want {
			t.Errorf("RouteName(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	for _, name := range []string{"demo_echo", "everything_slow", "echo", "other_x", "demo_"} {
		if got, ok := c.RouteName(Tools, name); ok {
			t.Errorf("RouteName(%q) = %v; want no route (renamed, excluded or no member's)", name, got)
		}
	}
	if v.MemberAt(2) != "everything" {
		t.Errorf("MemberAt(2) = %s", v.MemberAt(2))
	}
	only := v.Filter(func(t Target) bool { return t.Member == "demo" })
	if got := names(only, "name"); !slices.Equal(got, []string{"say", "demo_add"}) {
		t.Errorf("Filter to demo = %v", got)
	}
	if _, ok := only.Route("everything_echo"); !ok {
		t.Error("a filtered view lost its routes")
	}
}

// With priority the first member's name wins and the others' are not
// listed; the name alone routes nowhere without a view.
func TestMergePriority(t *testing.T) {
	c := Config{Name: "all", Members: []string{"conf", "demo"}, Conflicts: Priority}
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	v := c.Merge(Tools, []Listed{
		{Member: "conf", Items: items(`{"name":"echo"}`)},
		{Member: "demo", Items: items(`{"name":"echo"}`, `{"name":"whoami"}`)},
	})
	if got := names(v, "name"); !slices.Equal(got, []string{"echo", "whoami"}) {
		t.Fatalf("merged %v", got)
	}
	if got, _ := v.Route("echo"); got != (Target{"conf", "echo"}) {
		t.Errorf("echo routes to %v, want the first member's", got)
	}
	if _, ok := c.RouteName(Tools, "echo"); ok {
		t.Error("RouteName under priority found a route without a view")
	}
}

// Resources keep their URIs; a URI two members list is kept from the
// first under priority, and listed the second time under MemberURI with
// prefixes, which routes back.
func TestMergeResources(t *testing.T) {
	lists := []Listed{
		{Member: "a", Items: items(`{"uri":"file:///x","name":"x"}`, `{"uri":"a://only"}`)},
		{Member: "b/c", Items: items(`{"uri":"file:///x","name":"x2"}`)},
	}
	pc := Config{Name: "all", Members: []string{"a", "b/c"}}
	if err := pc.Normalize(); err != nil {
		t.Fatal(err)
	}
	v := pc.Merge(Resources, lists)
	want := []string{"file:///x", "a://only", "mcpbridge:b%2Fc/file:///x"}
	if got := names(v, "uri"); !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	if got, ok := RouteURI(want[2]); !ok || got != (Target{"b/c", "file:///x"}) {
		t.Errorf("RouteURI(%q) = %v, %v", want[2], got, ok)
	}
	for _, uri := range []string{"file:///x", "mcpbridge:", "mcpbridge:a", "mcpbridge:%zz/x"} {
		if got, ok := RouteURI(uri); ok {
			t.Errorf("RouteURI(%q) = %v; want none", uri, got)
		}
	}
	qc := Config{Name: "all", Members: []string{"a", "b/c"}, Conflicts: Priority}
	if got := names(qc.Merge(Resources, lists), "uri"); !slices.Equal(got, want[:2]) {
		t.Errorf("merged under priority %v, want %v", got, want[:2])
	}
	tv := pc.Merge(ResourceTemplates, []Listed{
		{Member: "a", Items: items(`{"uriTemplate":"a://greeting/{name}"}`)},
		{Member: "b/c", Items: items(`{"uriTemplate":"a://{path}"}`)},
	})
	for uri, member := range map[string]string{"a://greeting/bob": "a", "a://other": "b/c"} {
		if got, ok := tv.RouteTemplate(uri); !ok || got.Member != member || got.Name != uri {
			t.Errorf("RouteTemplate(%q) = %v, %v; want %s", uri, got, ok, member)
		}
	}
	if got, ok := tv.RouteTemplate("z://x"); ok {
		t.Errorf("RouteTemplate of a URI no template expands = %v", got)
	}
}

func TestPages(t *testing.T) {
	n := PageSize*2 + 3
	from, to, next, err := Page(n, "")
	if err != nil || from != 0 || to != PageSize || next == "" {
		t.Fatalf("first page = %d, %d, %q, %v", from, to, next, err)
	}
	seen := to
	for next != "" {
		if from, to, next, err = Page(n, next); err != nil || from != seen {
			t.Fatalf("page from %d = %d, %d, %v", seen, from, to, err)
		}
		seen = to
	}
	if seen != n {
		t.Errorf("the pages ended at %d of %d", seen, n)
	}
	for _, bad := range []string{"x", "YWdnOi0x", "b3RoZXI6MQ"} { // not base64, agg:-1, other:1
		if _, _, _, err := Page(n, bad); err == nil {
			t.Errorf("Page with cursor %q: no error", bad)
		}
	}
	res := Result(Tools, items(`{"name":"a"}`, `{"name":"b"}`), "c")
	if string(res) != `{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"c"}` {
		t.Errorf("Result = %s", res)
	}
	got, next, err := Items(Tools, json.RawMessage(`{"tools":[{"name":"a"},3],"nextCursor":"n"}`))
	if err != nil || len(got) != 1 || next != "n" {
		t.Errorf("Items = %s, %q, %v", got, next, err)
	}
	for _, bad := range []string{`{}`, `{"tools":{}}`} {
		if _, _, err := Items(Tools, json.RawMessage(bad)); err == nil {
			t.Errorf("Items(%s): no error", bad)
		}
	}
	for method, want := range map[string]Kind{"tools/list": Tools, "prompts/list": Prompts, "resources/list": Resources, "resources/templates/list": ResourceTemplates} {
		if k, ok := KindOfList(method); !ok || k != want || k.ListMethod() != method {
			t.Errorf("KindOfList(%s) = %v, %v", method, k, ok)
		}
	}
	if _, ok := KindOfList("tools/call"); ok {
		t.Error("tools/call is a list")
	}
}

func TestRename(t *testing.T) {
	for _, c := range []struct{ method, params, want string }{
		{"tools/call", `{"name":"demo_echo","arguments":{"name":"keep"}}`, `{"name":"echo","arguments":{"name":"keep"}}`},
		{"prompts/get", `{"name":"demo_greet"}`, `{"name":"echo"}`},
		{"resources/read", `{"uri":"mcpbridge:a/x"}`, `{"uri":"echo"}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"demo_greet"},"argument":{}}`, `{"ref":{"type":"ref/prompt","name":"echo"},"argument":{}}`},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"t"}}`, `{"ref":{"type":"ref/resource","uri":"echo"}}`},
		{"ping", `{"x":1}`, `{"x":1}`},
	} {
		got, err := Rename(c.method, json.RawMessage(c.params), "echo")
		if err != nil || string(got) != c.want {
			t.Errorf("Rename(%s, %s) = %s, %v; want %s", c.method, c.params, got, err, c.want)
		}
	}
	if _, err := Rename("completion/complete", json.RawMessage(`{"ref":3}`), "x"); err == nil {
		t.Error("Rename of a completion whose ref is not an object: no error")
	}
}

func TestServerKeepsViews(t *testing.T) {
	s := NewServer(Config{Name: "all", Members: []string{"a"}})
	if s.Name() != "all" || s.Config().Members[0] != "a" || s.View(Tools) != nil || !s.Stale(Tools) {
		t.Fatal("a new server has a view")
	}
	v := s.Config().Merge(Tools, []Listed{{Member: "a", Items: items(`{"name":"x"}`)}})
	s.Keep(v)
	if s.View(Tools) != v || s.Stale(Tools) || s.View(Prompts) != nil {
		t.Error("Keep did not keep the view of its kind alone")
	}
	s.views[Tools].Load().at = time.Now().Add(-2 * staleAfter)
	if !s.Stale(Tools) {
		t.Error("an old view is not stale")
	}
}

func TestNormalizeAll(t *testing.T) {
	servers := map[string]int{"a": 0, "b": 1}
	for _, c := range []struct {
		aggs  []Config
		i     int
		field string
	}{
		{[]Config{{Name: "all", Members: []string{"a"}}, {Name: "a", Members: []string{"b"}}}, 1, "Name"},
		{[]Config{{Name: "all", Members: []string{"a"}}, {Name: "all", Members: []string{"b"}}}, 1, "Name"},
		{[]Config{{Name: "one", Members: []string{"a"}}, {Name: "two", Members: []string{"b", "one"}}}, 1, "Members[1]"},
		{[]Config{{Name: "all", Members: []string{"zz"}}}, 0, "Members[0]"},
		{[]Config{{Name: "all"}}, 0, "Members"},
	} {
		i, err := NormalizeAll(c.aggs, servers)
		var fe *FieldError
		if !errors.As(err, &fe) || i != c.i || fe.Field != c.field {
			t.Errorf("NormalizeAll(%+v) = %d, %v; want aggregate %d, field %s", c.aggs, i, err, c.i, c.field)
		}
	}
	if _, err := NormalizeAll([]Config{{Name: "all", Members: []string{"a", "b"}}}, servers); err != nil {
		t.Errorf("NormalizeAll of a good aggregate = %v", err)
	}
}

// Resolve routes by the name alone where it can, else by the views, and
// says which views could tell when it cannot.
func TestResolve(t *testing.T) {
	pc := Config{Name: "all", Members: []string{"a", "b"}}
	qc := Config{Name: "all", Members: []string{"a", "b"}, Conflicts: Priority}
	for _, c := range []*Config{&pc, &qc} {
		if err := c.Normalize(); err != nil {
			t.Fatal(err)
		}
	}
	none := func(Kind) *View { return nil }
	if got, ok, kinds := pc.Resolve(Tools, "b_x", none); !ok || got != (Target{"b", "x"}) || kinds != nil {
		t.Errorf("prefix b_x = %v, %v, %v", got, ok, kinds)
	}
	if _, ok, kinds := pc.Resolve(Tools, "zz_x", none); ok || kinds != nil {
		t.Errorf("prefix zz_x = %v, %v; want no route and no view to read", ok, kinds)
	}
	if _, ok, kinds := qc.Resolve(Tools, "x", none); ok || !slices.Equal(kinds, []Kind{Tools}) {
		t.Errorf("priority x without a view = %v, %v; want the tools' view to read", ok, kinds)
	}
	views := map[Kind]*View{
		Tools:             qc.Merge(Tools, []Listed{{Member: "b", Items: items(`{"name":"x"}`)}}),
		Resources:         qc.Merge(Resources, []Listed{{Member: "a", Items: items(`{"uri":"a://r"}`)}}),
		ResourceTemplates: qc.Merge(ResourceTemplates, []Listed{{Member: "b", Items: items(`{"uriTemplate":"b://{id}"}`)}}),
	}
	view := func(k Kind) *View { return views[k] }
	for _, c := range []struct {
		kind Kind
		name string
		want Target
	}{
		{Tools, "x", Target{"b", "x"}},
		{Resources, "a://r", Target{"a", "a://r"}},
		{Resources, "b://7", Target{"b", "b://7"}},
		{ResourceTemplates, "b://{id}", Target{"b", "b://{id}"}},
		{Resources, MemberURI("a", "z://q"), Target{"a", "z://q"}},
	} {
		if got, ok, _ := qc.Resolve(c.kind, c.name, view); !ok || got != c.want {
			t.Errorf("Resolve(%v, %s) = %v, %v; want %v", c.kind, c.name, got, ok, c.want)
		}
	}
	if _, ok, kinds := qc.Resolve(Resources, "q://nothing", view); ok || !slices.Equal(kinds, []Kind{Resources, ResourceTemplates}) {
		t.Errorf("an unknown URI = %v, %v", ok, kinds)
	}
	for kind, want := range map[Kind]string{Tools: "Unknown tool: n", Prompts: "Unknown prompt: n", Resources: "Resource not found"} {
		if e := Unknown(kind, "n"); e.Message != want {
			t.Errorf("Unknown(%v) = %v, want %q", kind, e, want)
		}
	}
}
