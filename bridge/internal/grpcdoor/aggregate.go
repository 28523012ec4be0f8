package grpcdoor

import (
	"context"
	"encoding/json"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is an aggregated server as the API serves it
// (docs/aggregation.md): a list is every member's, merged; a request about
// one tool, prompt or resource goes to the member it leads to, under the
// member's own name, and passes the door as a request to that member, so
// that the member's rules, limits and audit apply whichever name the
// caller used.

// maxMemberPages bounds the pages read of one member's list.
const maxMemberPages = 64

// memberList is one member's whole list of one kind and the era of the
// child that listed it.
type memberList struct {
	aggregate.Listed
	era convert.Era
}

// listMembers reads every member's whole list of kind, at once, each as a
// request of the caller to that member: the member's rules filter it.
func (s *API) listMembers(ctx context.Context, agg *aggregate.Server, kind aggregate.Kind) []memberList {
	members := agg.Config().Members
	out := make([]memberList, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() { out[i] = s.listMember(ctx, agg, m, kind) })
	}
	wg.Wait()
	return out
}

// listMember reads one member's whole list of kind, page by page.
func (s *API) listMember(ctx context.Context, agg *aggregate.Server, member string, kind aggregate.Kind) memberList {
	l := memberList{Listed: aggregate.Listed{Member: member}}
	srv, ok := s.core.Servers()[member]
	if !ok {
		l.Err = rpcerr.ToStatus(member, kind.ListMethod(), &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", member), Reason: rpcerr.ReasonUnknownServer})
		return l
	}
	cursor := ""
	for page := 0; page < maxMemberPages; page++ {
		params, err := convert.ListParams(cursor, nil)
		if err != nil {
			l.Err = err
			return l
		}
		r, err := s.routeTo(ctx, srv, &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: kind.ListMethod(), Kind: access.Server,
			Aggregate: &door.Aggregated{Server: agg.Name()}})
		if err != nil {
			l.Err = err
			return l
		}
		l.era = r.era
		r.setParams(params)
		r.unfiltered = true // filtered after the merge, on the member's own names
		res, err := r.call(ctx, params, nil)
		if err != nil {
			l.Err = err
			return l
		}
		items, next, err := aggregate.Items(kind, res)
		if err != nil {
			l.Err = r.badResult(err)
			return l
		}
		l.Items = append(l.Items, items...)
		if next == "" || next == cursor {
			return l
		}
		cursor = next
	}
	return l
}

// view merges the members' whole lists of kind, as the members list them
// to every caller: the routes of later requests follow it (kept when every
// member answered). The caller's own list is its Filter by the caller's
// rights on each member's own names.
func (s *API) view(ctx context.Context, agg *aggregate.Server, kind aggregate.Kind) (*aggregate.View, map[string]convert.Era) {
	lists := s.listMembers(ctx, agg, kind)
	listed := make([]aggregate.Listed, len(lists))
	eras := map[string]convert.Era{}
	for i, l := range lists {
		listed[i] = l.Listed
		eras[l.Member] = l.era
	}
	v := agg.Config().Merge(kind, listed)
	if len(v.Down) == 0 {
		agg.Keep(v)
	}
	for _, d := range v.Down {
		s.core.Logger().Debug("mcpbridge: an aggregate's member did not list", "server", agg.Name(), "member", d.Member, "kind", kind.Field(), "error", d.Err)
	}
	ak := kind.Access()
	return v.Filter(func(t aggregate.Target) bool { return s.core.Door().Shows(ctx, t.Member, ak, t.Name) }), eras
}

// aggregateList is one page of an aggregate's list of kind: the members'
// merged lists, each member's items decoded for its own era and appended
// by add.
func aggregateList[Resp proto.Message](ctx context.Context, s *API, agg *aggregate.Server, kind aggregate.Kind, cursor string,
	decode func(json.RawMessage, convert.Era) (Resp, error), add func(dst, src Resp), next func(Resp, string),
) (Resp, error) {
	var zero Resp
	v, eras := s.view(ctx, agg, kind)
	from, to, nextCursor, err := aggregate.Page(len(v.Items), cursor)
	if err != nil {
		return zero, rpcerr.ToStatus(agg.Name(), kind.ListMethod(), rpcerr.InvalidInput(agg.Name(), kind.ListMethod(), "%v",
			&convert.FieldError{Field: "cursor", Reason: convert.ReasonInvalidValue, Err: err}))
	}
	out, err := decode(aggregate.Result(kind, nil, ""), convert.Era{})
	if err != nil {
		return zero, err
	}
	// The page's items, member by member: each run of one member's items
	// decodes with its member's era.
	for start := from; start < to; {
		member := v.MemberAt(start)
		end := start + 1
		for end < to && v.MemberAt(end) == member {
			end++
		}
		part, err := decode(aggregate.Result(kind, v.Items[start:end], ""), eras[member])
		if err != nil {
			return zero, rpcerr.ToStatus(agg.Name(), kind.ListMethod(), &rpcerr.CallError{RPC: jsonrpc.WithData(jsonrpc.CodeInternalError,
				"A member's list does not fit the typed response; Call returns it as JSON", map[string]string{"member": member, "error": err.Error()})})
		}
		add(out, part)
		start = end
	}
	next(out, nextCursor)
	return out, nil
}

// target is where a request to the aggregate about name leads: the name
// alone says it under conflicts: prefix; otherwise the aggregate's last
// view of the kind, read again when it does not know the name.
func (s *API) target(ctx context.Context, agg *aggregate.Server, method string, k access.Kind, name string) (aggregate.Target, error) {
	kind := aggregate.KindOf(k)
	for fresh := false; ; fresh = true {
		t, found, kinds := agg.Config().Resolve(kind, name, agg.View)
		if found {
			return t, nil
		}
		stale := false
		for _, k := range kinds {
			stale = stale || agg.Stale(k)
		}
		if fresh || !stale {
			return aggregate.Target{}, rpcerr.ToStatus(agg.Name(), method, &rpcerr.CallError{RPC: aggregate.Unknown(kind, name)})
		}
		for _, k := range kinds {
			s.view(ctx, agg, k)
		}
	}
}

func kindNoun(k access.Kind) string {
	switch k {
	case access.Prompt:
		return "prompt"
	case access.Resource:
		return "resource"
	}
	return "tool"
}

// routeMember is route for a request to an aggregate about name: it finds
// the member and the member's own name, and admits req as a request to
// that member about that name, noting the aggregate for the audit.
func (s *API) routeMember(ctx context.Context, agg *aggregate.Server, req *door.Request, name string) (*route, string, error) {
	t, err := s.target(ctx, agg, req.Method, req.Kind, name)
	if err != nil {
		return nil, "", err
	}
	srv, ok := s.core.Servers()[t.Member]
	if !ok {
		return nil, "", rpcerr.ToStatus(t.Member, req.Method, &rpcerr.CallError{
			RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q (a member of %q)", t.Member, agg.Name()), Reason: rpcerr.ReasonUnknownServer})
	}
	req.Names = []string{t.Name}
	req.Aggregate = &door.Aggregated{Server: agg.Name(), Name: name}
	r, err := s.routeTo(ctx, srv, req)
	return r, t.Name, err
}

// routeNamed is route for a request that names one tool, prompt or
// resource (req.Names[0]), on a server or an aggregate: it returns the
// route and the name the request goes under (an aggregate's member's own;
// the request's on a server). A request to an aggregate that names none
// goes to its first member.
func (s *API) routeNamed(ctx context.Context, field string, req *door.Request) (*route, string, error) {
	agg := s.core.Aggregate(ctx, field)
	name := ""
	if len(req.Names) == 1 {
		name = req.Names[0]
	}
	switch {
	case agg == nil:
		r, err := s.route(ctx, field, req)
		return r, name, err
	case name == "" || req.Kind == access.Server:
		first := agg.Config().Members[0]
		srv, ok := s.core.Servers()[first]
		if !ok {
			return nil, "", rpcerr.ToStatus(first, req.Method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q (a member of %q)", first, agg.Name()), Reason: rpcerr.ReasonUnknownServer})
		}
		req.Aggregate = &door.Aggregated{Server: agg.Name()}
		r, err := s.routeTo(ctx, srv, req)
		return r, name, err
	}
	return s.routeMember(ctx, agg, req, name)
}

// aggregateCall is typedCall on an aggregate: the request goes to the
// member its name leads to, under the member's own name.
func aggregateCall[Resp proto.Message](ctx context.Context, s *API, agg *aggregate.Server, method string, kind access.Kind, names []string,
	build func(e convert.Era, name string) (json.RawMessage, error),
	decode func(json.RawMessage, convert.Era) (Resp, error),
) (Resp, error) {
	var zero Resp
	if len(names) == 0 || names[0] == "" {
		return zero, rpcerr.ToStatus(agg.Name(), method, rpcerr.InvalidInput(agg.Name(), method, "%s names no %s", method, kindNoun(kind)))
	}
	r, own, err := s.routeMember(ctx, agg, &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: method, Kind: kind}, names[0])
	if err != nil {
		return zero, err
	}
	defer r.release()
	return callTyped(ctx, r, own, build, decode)
}

// aggregateRaw is Call on an aggregate: a list is the members' merged
// lists as JSON; a request about a tool, prompt or resource goes to its
// member under the member's name; any other request goes to the first
// member.
func (s *API) aggregateRaw(ctx context.Context, agg *aggregate.Server, method string, params json.RawMessage) (json.RawMessage, error) {
	if kind, ok := aggregate.KindOfList(method); ok {
		v, _ := s.view(ctx, agg, kind)
		cursor := ""
		if raw, ok := rawCursor(params); ok {
			cursor = raw
		}
		from, to, next, err := aggregate.Page(len(v.Items), cursor)
		if err != nil {
			return nil, rpcerr.ToStatus(agg.Name(), method, rpcerr.InvalidInput(agg.Name(), method, "Invalid params: %v", err))
		}
		return aggregate.Result(kind, v.Items[from:to], next), nil
	}
	req := door.NewRequest(door.Via(ctx, door.ViaGRPC), nil, method, params)
	var r *route
	var err error
	if len(req.Names) == 1 && req.Kind != access.Server {
		var own string
		r, own, err = s.routeMember(ctx, agg, req, req.Names[0])
		if err == nil {
			if params, err = aggregate.Rename(method, params, own); err != nil {
				r.release()
				return nil, r.invalid(err)
			}
			r.setParams(params)
		}
	} else {
		srv, ok := s.core.Servers()[agg.Config().Members[0]]
		if !ok {
			return nil, rpcerr.ToStatus(agg.Config().Members[0], method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", agg.Config().Members[0]), Reason: rpcerr.ReasonUnknownServer})
		}
		req.Aggregate = &door.Aggregated{Server: agg.Name()}
		r, err = s.routeTo(ctx, srv, req)
	}
	if err != nil {
		return nil, err
	}
	return r.call(ctx, params, nil)
}

// rawCursor is a list request's cursor.
func rawCursor(params json.RawMessage) (string, bool) {
	raw, ok := rawjson.Member(params, "cursor")
	if !ok {
		return "", false
	}
	return rawjson.StringValue(raw)
}
