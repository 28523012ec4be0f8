package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file carries change notifications to clients: on 2026-07-28 over
// subscriptions/listen streams (docs/protocol.md, "Listen"), on 2025
// connections as unsolicited notifications through the connection's
// seam.Peer (docs/protocol.md, "Legacy subscriptions").
//
// Every receiver (a listen stream, a legacy session) has an eventQueue
// that coalesces what it has not sent yet: at most one pending list change
// of each kind and each updated URI once. A list_changed or updated
// notification says "read again", so merging repeats loses nothing, and
// the queue is bounded by construction: three flags plus the receiver's
// subscribed URIs. Producers (AddTool, ResourceUpdated, ...) never block on
// a slow client.

// maxSubscribedURIs bounds the URIs one listen stream or one legacy
// session may subscribe to.
const maxSubscribedURIs = 4096

type eventKind uint8

const (
	eventTools eventKind = iota
	eventPrompts
	eventResources
	eventUpdated
)

// event is one change: a list change, or an update of uri.
type event struct {
	kind eventKind
	uri  string
}

// notification returns the event's method and params.
func (ev event) notification() (string, json.RawMessage) {
	switch ev.kind {
	case eventTools:
		return "notifications/tools/list_changed", nil
	case eventPrompts:
		return "notifications/prompts/list_changed", nil
	case eventResources:
		return "notifications/resources/list_changed", nil
	}
	return "notifications/resources/updated", append(rawjson.AppendString([]byte(`{"uri":`), ev.uri), '}')
}

// eventQueue coalesces a receiver's pending events.
type eventQueue struct {
	mu     sync.Mutex
	lists  [3]bool // pending list changes, by kind
	uris   []string
	queued map[string]bool
	wake   chan struct{} // capacity 1: something was pushed
}

func (q *eventQueue) init() {
	q.queued = make(map[string]bool)
	q.wake = make(chan struct{}, 1)
}

func (q *eventQueue) push(ev event) {
	q.mu.Lock()
	if ev.kind == eventUpdated {
		if !q.queued[ev.uri] {
			q.queued[ev.uri] = true
			q.uris = append(q.uris, ev.uri)
		}
	} else {
		q.lists[ev.kind] = true
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) pop() (event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, pending := range q.lists {
		if pending {
			q.lists[k] = false
			return event{kind: eventKind(k)}, true
		}
	}
	if len(q.uris) > 0 {
		uri := q.uris[0]
		q.uris = q.uris[1:]
		delete(q.queued, uri)
		return event{kind: eventUpdated, uri: uri}, true
	}
	return event{}, false
}

// next waits for the next event, or for ctx to end.
func (q *eventQueue) next(ctx context.Context) (event, error) {
	for {
		if ev, ok := q.pop(); ok {
			return ev, nil
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return event{}, ctx.Err()
		}
	}
}

// broadcast hands ev to every receiver that wants it.
func (s *Server) broadcast(ev event) {
	s.mu.Lock()
	ls := make([]*listener, 0, len(s.listeners))
	for l := range s.listeners {
		ls = append(ls, l)
	}
	ss := make([]*session, 0, len(s.sessions))
	for x := range s.sessions {
		ss = append(ss, x)
	}
	s.mu.Unlock()
	for _, l := range ls {
		if l.wants(ev) {
			l.queue.push(ev)
		}
	}
	for _, x := range ss {
		if x.wants(ev) {
			x.queue.push(ev)
		}
	}
}

// ResourceUpdated announces that the resource at uri changed: to legacy
// sessions that subscribed to it (resources/subscribe) and to listen
// streams whose resourceSubscriptions name it, or a resource it is part of.
func (s *Server) ResourceUpdated(uri string) { s.broadcast(event{kind: eventUpdated, uri: uri}) }

// NotifyToolsChanged announces that the tool list changed. AddTool and
// RemoveTools do it themselves; call it when what tools/list returns
// changes in another way.
func (s *Server) NotifyToolsChanged() { s.broadcast(event{kind: eventTools}) }

// NotifyPromptsChanged announces that the prompt list changed.
func (s *Server) NotifyPromptsChanged() { s.broadcast(event{kind: eventPrompts}) }

// NotifyResourcesChanged announces that the resource or template list
// changed.
func (s *Server) NotifyResourcesChanged() { s.broadcast(event{kind: eventResources}) }

// wants reports whether a legacy session sends ev: list changes once
// initialize was answered, updates for its subscriptions.
func (ss *session) wants(ev event) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.active {
		return false
	}
	if ev.kind != eventUpdated {
		return true
	}
	for sub := range ss.subs {
		if protocol.Covers(sub, ev.uri) {
			return true
		}
	}
	return false
}

// startPump starts the goroutine that sends the session's unsolicited
// notifications; Close stops it and waits for it.
func (ss *session) startPump() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed || ss.stop != nil || ss.peer == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	ss.stop = cancel
	go ss.pump(ctx)
}

func (ss *session) pump(ctx context.Context) {
	defer close(ss.done)
	for {
		ev, err := ss.queue.next(ctx)
		if err != nil {
			return
		}
		method, params := ev.notification()
		if err := ss.peer.Notify(ctx, method, params); err != nil {
			if ctx.Err() == nil {
				ss.srv.log.Warn("mcp: a change notification could not be sent; the session sends no more", "method", method, "error", err)
			}
			return
		}
	}
}

// subscribe answers resources/subscribe (2025 revisions).
func (s *Server) subscribe(_ context.Context, c *call) (*reply, error) {
	uri, err := uriParam(c)
	if err != nil {
		return nil, err
	}
	ss := c.sess
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.subs == nil {
		ss.subs = make(map[string]struct{})
	}
	if _, ok := ss.subs[uri]; !ok && len(ss.subs) >= maxSubscribedURIs {
		return nil, invalidParams("more than %d resource subscriptions", maxSubscribedURIs)
	}
	ss.subs[uri] = struct{}{}
	return &reply{body: json.RawMessage(`{}`)}, nil
}

// unsubscribe answers resources/unsubscribe (2025 revisions).
func (s *Server) unsubscribe(_ context.Context, c *call) (*reply, error) {
	uri, err := uriParam(c)
	if err != nil {
		return nil, err
	}
	c.sess.mu.Lock()
	delete(c.sess.subs, uri)
	c.sess.mu.Unlock()
	return &reply{body: json.RawMessage(`{}`)}, nil
}

func uriParam(c *call) (string, error) {
	raw, ok := rawjson.Member(c.params, "uri")
	uri, isString := rawjson.StringValue(raw)
	if !ok || !isString {
		return "", invalidParams("%s needs a string uri", c.method)
	}
	return uri, nil
}

// listener is the seam.Source of one subscriptions/listen stream.
type listener struct {
	srv                       *Server
	tools, prompts, resources bool
	uris                      []string
	accepted                  json.RawMessage
	queue                     eventQueue
}

// listen opens a subscriptions/listen stream: a 2026-07-28 request only
// (-32601 on a legacy connection), with a notifications filter narrowed to
// what the server advertises. A server with no tools, prompts or
// resources has no source: -32601.
func (ss *session) listen(sreq *seam.Request) (seam.Source, error) {
	s := ss.srv
	c, _, rerr := ss.classify(sreq)
	if rerr != nil {
		return nil, rerr
	}
	if !c.modern {
		return nil, methodNotFound(c.method)
	}
	f := s.features()
	if !f.tools && !f.prompts && !f.resources {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: subscriptions/listen (the server has nothing to announce)")
	}
	filter, ok := rawjson.Member(c.params, "notifications")
	if !ok || !rawjson.IsObject(filter) {
		return nil, invalidParams("subscriptions/listen needs a notifications object")
	}
	var want struct {
		Tools     bool
		Prompts   bool
		Resources bool
		URIs      []string
	}
	for _, fl := range rawjson.Fields(filter) {
		var dst *bool
		switch fl.Key {
		case "toolsListChanged":
			dst = &want.Tools
		case "promptsListChanged":
			dst = &want.Prompts
		case "resourcesListChanged":
			dst = &want.Resources
		case "resourceSubscriptions":
			if json.Unmarshal(fl.Value, &want.URIs) != nil || string(fl.Value) == "null" {
				return nil, invalidParams("notifications.resourceSubscriptions must be an array of strings")
			}
			if len(want.URIs) > maxSubscribedURIs {
				return nil, invalidParams("more than %d resource subscriptions", maxSubscribedURIs)
			}
			continue
		default:
			continue // an extension's key (the tasks extension's taskIds, ...): not honoured
		}
		switch string(fl.Value) {
		case "true":
			*dst = true
		case "false":
		default:
			return nil, invalidParams("notifications.%s must be a boolean", fl.Key)
		}
	}
	l := &listener{srv: s, tools: want.Tools && f.tools, prompts: want.Prompts && f.prompts,
		resources: want.Resources && f.resources}
	if f.resources {
		seen := map[string]bool{}
		for _, u := range want.URIs {
			if !seen[u] {
				seen[u] = true
				l.uris = append(l.uris, u)
			}
		}
	}
	acc := []byte{'{'}
	add := func(key string, on bool) {
		if on {
			if len(acc) > 1 {
				acc = append(acc, ',')
			}
			acc = append(acc, `"`+key+`":true`...)
		}
	}
	add("toolsListChanged", l.tools)
	add("promptsListChanged", l.prompts)
	add("resourcesListChanged", l.resources)
	if len(l.uris) > 0 {
		if len(acc) > 1 {
			acc = append(acc, ',')
		}
		uris, _ := rawjson.Marshal(l.uris)
		acc = append(append(acc, `"resourceSubscriptions":`...), uris...)
	}
	l.accepted = append(acc, '}')
	l.queue.init()
	s.mu.Lock()
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	return l, nil
}

func (l *listener) wants(ev event) bool {
	switch ev.kind {
	case eventTools:
		return l.tools
	case eventPrompts:
		return l.prompts
	case eventResources:
		return l.resources
	}
	for _, sub := range l.uris {
		if protocol.Covers(sub, ev.uri) {
			return true
		}
	}
	return false
}

// Accepted implements seam.Source.
func (l *listener) Accepted() json.RawMessage { return l.accepted }

// Next implements seam.Source: it waits for the next change the stream
// asked for. Streams end when the client cancels them or the connection
// ends; the runtime never ends one itself.
func (l *listener) Next(ctx context.Context) (string, json.RawMessage, error) {
	ev, err := l.queue.next(ctx)
	if err != nil {
		return "", nil, err
	}
	method, params := ev.notification()
	return method, params, nil
}

// Close implements seam.Source.
func (l *listener) Close(error) {
	l.srv.mu.Lock()
	delete(l.srv.listeners, l)
	l.srv.mu.Unlock()
}

var _ seam.Source = (*listener)(nil)
