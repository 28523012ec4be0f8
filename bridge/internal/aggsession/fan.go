package aggsession

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the requests the aggregate sends to every member and
// answers from all their answers: a list (every page of every member,
// merged), initialize and server/discover (the capabilities merged),
// logging/setLevel, and a listen.

// fan is one request of the client's (or of the aggregate's own, to read
// a view) sent to every member.
type fan struct {
	req     wire.Message // the client's request; ID nil for the aggregate's own
	kind    aggregate.Kind
	members []*member
	results []json.RawMessage
	errs    []error
	lists   []aggregate.Listed
	pages   []int
	left    int
	finish  func(r *Router, f *fan) error
}

// part is one member's piece of a fan: the request under the aggregate's
// id.
type part struct {
	fan     *fan
	m       *member
	i       int
	discard bool // an answer nobody waits for (a replayed initialize)
}

// start sends the fan's request to every member that is up; params gives
// each member's params.
func (r *Router) start(f *fan, params func(i int) json.RawMessage) error {
	for _, m := range r.members {
		if m.s == nil {
			r.reconnect(m)
		}
		f.members = append(f.members, m)
	}
	n := len(f.members)
	f.results, f.errs, f.lists, f.pages = make([]json.RawMessage, n), make([]error, n), make([]aggregate.Listed, n), make([]int, n)
	f.left = n
	if n == 0 {
		return f.finish(r, f)
	}
	for i, m := range f.members {
		f.lists[i].Member = m.name
		if m.s == nil {
			f.left--
			f.errs[i], f.lists[i].Err = m.down, m.down
			continue
		}
		r.ask(f, i, params(i))
	}
	if f.left == 0 {
		return f.finish(r, f)
	}
	return nil
}

// ask sends member i its piece of f.
func (r *Router) ask(f *fan, i int, params json.RawMessage) {
	m := f.members[i]
	id := r.nextID()
	r.fans[string(id)] = &part{fan: f, m: m, i: i}
	if err := r.toMember(m, wire.AppendRequest(nil, id, f.req.Method, params)); err != nil {
		delete(r.fans, string(id))
		f.done(r, i, nil, err)
	}
}

// result takes member p.i's result of f: a list reads its next page, any
// other request is done.
func (f *fan) result(r *Router, p *part, res json.RawMessage) error {
	if _, isList := aggregate.KindOfList(f.req.Method); !isList {
		return f.done(r, p.i, res, nil)
	}
	items, next, err := aggregate.Items(f.kind, res)
	if err != nil {
		return f.done(r, p.i, nil, err)
	}
	f.lists[p.i].Items = append(f.lists[p.i].Items, items...)
	f.pages[p.i]++
	if next == "" || f.pages[p.i] >= maxMemberPages {
		return f.done(r, p.i, res, nil)
	}
	params, err := rawjson.SetMember(f.req.Params, "cursor", rawjson.AppendString(nil, next))
	if err != nil {
		return f.done(r, p.i, nil, err)
	}
	r.ask(f, p.i, params)
	return nil
}

// done records member i's outcome; the last one finishes the fan.
func (f *fan) done(r *Router, i int, res json.RawMessage, err error) error {
	if f.left == 0 {
		return nil
	}
	f.results[i], f.errs[i] = res, err
	if err != nil {
		f.lists[i].Err = err
	}
	f.left--
	if f.left > 0 {
		return nil
	}
	return f.finish(r, f)
}

// allFailed is the error of a fan that no member answered: the first
// member's JSON-RPC error as it is, or that none was available; nil when
// one answered.
func (f *fan) allFailed() *jsonrpc.Error {
	var first error
	for _, err := range f.errs {
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	var e *jsonrpc.Error
	if errors.As(first, &e) {
		return e
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "No member of the aggregate answered")
}

// list answers a list request: from the session's view when the client
// pages through it, or from every member's whole list.
func (r *Router) list(m wire.Message, kind aggregate.Kind) error {
	cursor := ""
	if raw, ok := rawjson.Member(m.Params, "cursor"); ok {
		cursor, _ = rawjson.StringValue(raw)
	}
	if cursor != "" && r.views[kind] != nil {
		return r.page(m, r.views[kind], cursor)
	}
	r.changed[kind] = false
	f := &fan{req: m, kind: kind, finish: func(r *Router, f *fan) error {
		if e := f.allFailed(); e != nil {
			return r.fail(f.req.ID, e) // the request itself is at fault (a bad _meta), or no member answers
		}
		v := r.config().Merge(kind, f.lists)
		r.views[kind] = v
		r.requeue()
		return r.page(f.req, v, cursor)
	}}
	params := rawjson.DeleteMember(m.Params, "cursor")
	return r.start(f, func(int) json.RawMessage { return params })
}

// fetch reads every member's whole list of kind for the session's view,
// for requests waiting for it (once while one such read is on its way).
func (r *Router) fetch(kind aggregate.Kind) error {
	if r.reading[kind] {
		return nil
	}
	r.reading[kind] = true
	params := json.RawMessage(`{}`)
	if meta := r.meta; meta != nil { // a 2026 client's: the aggregate's own requests carry it
		params, _ = rawjson.SetMember(params, "_meta", meta)
	}
	req := wire.Message{Kind: wire.KindRequest, Method: kind.ListMethod(), Params: params}
	f := &fan{req: req, kind: kind, finish: func(r *Router, f *fan) error {
		r.views[kind] = r.config().Merge(kind, f.lists)
		r.reading[kind] = false
		return r.requeue()
	}}
	return r.start(f, func(int) json.RawMessage { return params })
}

// requeue handles again the requests that waited for a view, once every
// view they wait for is there.
func (r *Router) requeue() error {
	for _, reading := range r.reading {
		if reading {
			return nil
		}
	}
	queued := r.queued
	r.queued = nil
	for _, q := range queued {
		if err := r.request(q.msg, q.fetched); err != nil {
			return err
		}
	}
	return nil
}

// page answers a list request with one page of v.
func (r *Router) page(req wire.Message, v *aggregate.View, cursor string) error {
	from, to, next, err := aggregate.Page(len(v.Items), cursor)
	if err != nil {
		return r.fail(req.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err))
	}
	res := aggregate.Result(v.Kind, v.Items[from:to], next)
	if modern(req.Params) {
		res = r.stamp(res, `,"ttlMs":0,"cacheScope":"private"`)
	}
	return r.respond(req.ID, res)
}

// modern reports whether a request's params mark a 2026 client.
func modern(params json.RawMessage) bool {
	meta, ok := rawjson.Member(params, "_meta")
	if !ok {
		return false
	}
	raw, _ := rawjson.Member(meta, protocol.MetaProtocolVersion)
	v, _ := rawjson.StringValue(raw)
	return protocol.Modern(v)
}

// serverInfo is the aggregate's Implementation.
func (r *Router) serverInfo() json.RawMessage {
	out := rawjson.AppendString([]byte(`{"name":`), r.name)
	return append(out, `,"version":"mcpbridge-aggregate"}`...)
}

// stamp makes res a 2026 complete result of the aggregate's: resultType,
// extra members, and its serverInfo.
func (r *Router) stamp(res json.RawMessage, extra string) json.RawMessage {
	out := append([]byte(`{"resultType":"complete"`), extra...)
	out = append(append(append(out, `,"_meta":{"`+protocol.MetaServerInfo+`":`...), r.serverInfo()...), '}')
	if body := res[1 : len(res)-1]; len(body) > 0 {
		out = append(append(out, ','), body...)
	}
	return append(out, '}')
}

// fanOut sends initialize, server/discover or logging/setLevel to every
// member and answers from their answers.
func (r *Router) fanOut(m wire.Message) error {
	f := &fan{req: m, finish: func(r *Router, f *fan) error {
		var ok []json.RawMessage
		for i, res := range f.results {
			if f.errs[i] == nil {
				ok = append(ok, res)
			}
		}
		if len(ok) == 0 {
			return r.fail(f.req.ID, f.allFailed())
		}
		switch f.req.Method {
		case "initialize":
			return r.respond(f.req.ID, r.merged(ok, false))
		case "server/discover":
			return r.respond(f.req.ID, r.merged(ok, true))
		}
		return r.respond(f.req.ID, ok[0])
	}}
	return r.start(f, func(int) json.RawMessage { return m.Params })
}

// routed are the server capabilities whose requests the aggregate routes
// to its members; it declares no other.
var routed = map[string]bool{"tools": true, "prompts": true, "resources": true, "logging": true, "completions": true}

// merged is the aggregate's initialize or server/discover result from its
// members': their capabilities merged, the first member's version, the
// aggregate's serverInfo, every member's instructions.
func (r *Router) merged(results []json.RawMessage, discover bool) json.RawMessage {
	caps := map[string]map[string]json.RawMessage{}
	var order []string
	var instructions []string
	for _, res := range results {
		c, _ := rawjson.Member(res, "capabilities")
		rawjson.EachField(c, func(f rawjson.Field) bool {
			if !routed[f.Key] {
				return true // a capability the aggregate does not route (tasks, experimental)
			}
			sub, ok := caps[f.Key]
			if !ok {
				sub = map[string]json.RawMessage{}
				caps[f.Key] = sub
				order = append(order, f.Key)
			}
			rawjson.EachField(f.Value, func(g rawjson.Field) bool {
				if old, seen := sub[g.Key]; !seen || string(old) == "false" {
					sub[g.Key] = g.Value
				}
				return true
			})
			return true
		})
		if raw, ok := rawjson.Member(res, "instructions"); ok {
			if s, _ := rawjson.StringValue(raw); s != "" {
				instructions = append(instructions, s)
			}
		}
	}
	out := []byte(`{`)
	if discover {
		v, _ := rawjson.Member(results[0], "supportedVersions")
		out = append(append(append(out, `"supportedVersions":`...), v...), ',')
	} else {
		v, _ := rawjson.Member(results[0], "protocolVersion")
		out = append(append(append(out, `"protocolVersion":`...), v...), ',')
	}
	out = append(out, `"capabilities":{`...)
	for i, k := range order {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(rawjson.AppendString(out, k), ':', '{')
		keys := make([]string, 0, len(caps[k]))
		for sk := range caps[k] {
			keys = append(keys, sk)
		}
		slices.Sort(keys)
		for j, sk := range keys {
			if j > 0 {
				out = append(out, ',')
			}
			out = append(append(rawjson.AppendString(out, sk), ':'), caps[k][sk]...)
		}
		out = append(out, '}')
	}
	out = append(out, '}')
	if len(instructions) > 0 {
		out = rawjson.AppendString(append(out, `,"instructions":`...), strings.Join(instructions, "\n\n"))
	}
	if discover {
		return r.stamp(append(out, '}'), `,"ttlMs":0,"cacheScope":"private"`)
	}
	out = append(append(out, `,"serverInfo":`...), r.serverInfo()...)
	return append(out, '}')
}

// listen opens a client's subscriptions/listen on every member, each with
// the resource URIs that route to it (under its own names); the client
// gets the first acknowledgement, every event, and one end when every
// member has ended it.
func (r *Router) listen(m wire.Message, fetched bool) error {
	filter, _ := rawjson.Member(m.Params, "notifications")
	var uris []string
	subs, _ := rawjson.Member(filter, "resourceSubscriptions")
	rawjson.Elements(subs, func(_ int, v json.RawMessage) bool {
		if s, ok := rawjson.StringValue(v); ok {
			uris = append(uris, s)
		}
		return true
	})
	per := map[string][]string{}
	for _, uri := range uris {
		t, found, missing := r.route(aggregate.Resources, uri)
		if !found && len(missing) > 0 && !fetched {
			r.queued = append(r.queued, queuedRequest{msg: m, fetched: true})
			for _, k := range missing {
				if err := r.fetch(k); err != nil {
					return err
				}
			}
			return nil
		}
		if found {
			per[t.Member] = append(per[t.Member], t.Name)
		}
	}
	l := &listen{on: map[*member]bool{}, filter: filter}
	for _, mem := range r.members {
		if mem.s == nil {
			continue
		}
		params := m.Params
		if len(uris) > 0 {
			arr := []byte{'['}
			for i, u := range per[mem.name] {
				if i > 0 {
					arr = append(arr, ',')
				}
				arr = rawjson.AppendString(arr, u)
			}
			f, _ := rawjson.SetMember(filter, "resourceSubscriptions", append(arr, ']'))
			params, _ = rawjson.SetMember(m.Params, "notifications", f)
		}
		if r.toMember(mem, wire.AppendRequest(nil, m.ID, m.Method, params)) == nil {
			l.on[mem] = true
		}
	}
	if len(l.on) == 0 {
		return r.fail(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "No member of the aggregate %s is available", r.name))
	}
	r.listens[string(m.ID)] = l
	return nil
}
