package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file shares a 2026 child's subscriptions/listen streams among the
// Subscribe streams whose filters they cover (docs/architecture.md, "The
// gRPC API"). A child caps the listens it keeps open (the project's
// runtime at 32, server.Config.MaxSubscriptions), so one listen per stream
// would cap the subscribers; their events are broadcast notifications of
// the child, the same for everyone who asked, so one listen can serve
// them all and the bridge filters per stream.

// listens is the shared listens of one child; the child owns it (child.go),
// so a restarted child starts with none. Its zero value is not usable:
// make one with newListens.
type listens struct {
	client *stdio.Client

	mu   sync.Mutex
	open []*sharedListen // joinable: opening, or open and not ending
}

func newListens(c *stdio.Client) *listens { return &listens{client: c} }

// sharedListen is one subscriptions/listen on the child and the streams
// that share it. Its pump goroutine opens it, fans its events out and
// closes it; the pump is started by the first stream's join and stopped
// by the last stream's leave, which waits for it (or ends by itself when
// the child ends the listen or dies).
type sharedListen struct {
	want    listenFilter    // what the listen asked the child for
	request json.RawMessage // its notifications object
	stop    context.CancelFunc
	ready   chan struct{} // closed by the pump once acknowledged or failed
	done    chan struct{} // closed when the pump returns
	openErr error         // why opening failed; written before ready closes
	endErr  error         // why the listen ended; written before done closes

	// Guarded by listens.mu.
	members  map[*listener]struct{}
	acked    bool         // accepted is known
	accepted listenFilter // what the child acknowledged
	ending   bool         // no longer in open: nobody joins it
}

// listenFilter is the part of a listen's notifications object that the
// bridge understands: the list changes and the resource URIs, as a stream
// asked for them or as the child accepted them.
type listenFilter struct {
	tools, prompts, resources bool
	uris                      []string
}

func requestFilter(req *mcpbridgev1.SubscribeRequest) listenFilter {
	f := listenFilter{tools: req.GetToolsListChanged(), prompts: req.GetPromptsListChanged(), resources: req.GetResourcesListChanged()}
	for _, uri := range req.GetResourceSubscriptions() {
		if !slices.Contains(f.uris, uri) {
			f.uris = append(f.uris, uri)
		}
	}
	return f
}

func ackFilter(ack *mcpbridgev1.SubscriptionAcknowledged) listenFilter {
	return listenFilter{
		tools: ack.GetToolsListChanged(), prompts: ack.GetPromptsListChanged(), resources: ack.GetResourcesListChanged(),
		uris: ack.GetResourceSubscriptions(),
	}
}

// covers reports whether a listen asking for f delivers everything g asks
// for: every list change g asks for, and for each of g's URIs one of f's
// that covers it (protocol.Covers: the same URI or a parent of it). The
// log level is no part of it: a 2026 listen carries no logLevel, and
// notifications/message never travels on one (docs/protocol.md, "Listen").
func (f listenFilter) covers(g listenFilter) bool {
	if g.tools && !f.tools || g.prompts && !f.prompts || g.resources && !f.resources {
		return false
	}
	for _, uri := range g.uris {
		if !f.coversURI(uri) {
			return false
		}
	}
	return true
}

func (f listenFilter) coversURI(uri string) bool {
	for _, sub := range f.uris {
		if protocol.Covers(sub, uri) {
			return true
		}
	}
	return false
}

// within is f narrowed by what the child accepted: the list changes both
// name, and those of f's URIs that an accepted one covers. It never holds
// more than f.
func (f listenFilter) within(acc listenFilter) listenFilter {
	out := listenFilter{tools: f.tools && acc.tools, prompts: f.prompts && acc.prompts, resources: f.resources && acc.resources}
	for _, uri := range f.uris {
		if acc.coversURI(uri) {
			out.uris = append(out.uris, uri)
		}
	}
	return out
}

func (f listenFilter) ack() *mcpbridgev1.SubscriptionAcknowledged {
	return &mcpbridgev1.SubscriptionAcknowledged{
		ToolsListChanged: f.tools, PromptsListChanged: f.prompts, ResourcesListChanged: f.resources, ResourceSubscriptions: f.uris,
	}
}

// listener is one Subscribe stream on a shared listen: what it asked for,
// what it gets, and its bounded queue of events waiting for the gRPC
// client. The queue holds messages the pump converted once for every
// stream; they are shared and never modified.
type listener struct {
	want   listenFilter
	level  mcpbridgev1.LoggingLevel // 0: no logs
	events *dropq.Signalled[*mcpbridgev1.SubscribeResponse]

	// filter is want within what the child accepted, set under listens.mu
	// before the pump hands the listener an event, and read-only after.
	filter listenFilter
	// pending counts events the listen's own buffer dropped since the
	// last one queued here; the pump counts them on the next one (under
	// listens.mu).
	pending int
}

func newListener(req *mcpbridgev1.SubscribeRequest) *listener {
	return &listener{
		want: requestFilter(req), level: req.GetLogLevel(),
		events: dropq.NewSignalled[*mcpbridgev1.SubscribeResponse](subscribeBuffer, false),
	}
}

// fanEvent is one event of a listen as the pump reads it once for all
// its listeners.
type fanEvent struct {
	method string
	uri    string                   // resources/updated
	level  mcpbridgev1.LoggingLevel // notifications/message
	msg    *mcpbridgev1.SubscribeResponse
}

func readEvent(ev stdio.Event) fanEvent {
	fe := fanEvent{method: ev.Method}
	switch ev.Method {
	case "notifications/message":
		raw, _ := rawjson.Member(ev.Params, "level")
		name, _ := rawjson.StringValue(raw)
		fe.level = convert.Level(name)
		fe.msg = &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Log{Log: convert.Log(ev.Params)}}
	case "notifications/resources/updated":
		fe.msg = convert.Event(ev.Method, ev.Params)
		fe.uri = fe.msg.GetResourceUpdated().GetUri()
	default:
		fe.msg = convert.Event(ev.Method, ev.Params)
	}
	return fe
}

// wants reports whether the listener's own filter asks for ev.
func (l *listener) wants(ev *fanEvent) bool {
	switch ev.method {
	case "notifications/tools/list_changed":
		return l.filter.tools
	case "notifications/prompts/list_changed":
		return l.filter.prompts
	case "notifications/resources/list_changed":
		return l.filter.resources
	case "notifications/resources/updated":
		return l.filter.coversURI(ev.uri)
	case "notifications/message":
		return l.level != 0 && ev.level >= l.level
	}
	return false
}

// join adds l to an open listen whose request covers l's, or to a new
// one, which it starts opening. request is l's notifications object, sent
// if it opens the listen; opts are the listen's options. The caller waits
// for the listen's ready and then, whatever happened, calls leave.
func (h *listens) join(l *listener, request json.RawMessage, opts stdio.ListenOptions) *sharedListen {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.open {
		if s.want.covers(l.want) {
			s.members[l] = struct{}{}
			if s.acked {
				l.filter = l.want.within(s.accepted)
			}
			return s
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &sharedListen{
		want: l.want, request: request, stop: cancel,
		ready: make(chan struct{}), done: make(chan struct{}),
		members: map[*listener]struct{}{l: {}},
	}
	h.open = append(h.open, s)
	go h.pump(ctx, s, opts) // stopped by the last leave, which waits for it
	return s
}

// leave removes l from s. The last listener to leave an open listen stops
// its pump, which closes the listen (notifications/cancelled), and waits
// for it.
func (h *listens) leave(s *sharedListen, l *listener) {
	h.mu.Lock()
	delete(s.members, l)
	last := len(s.members) == 0 && !s.ending
	if last {
		h.retire(s)
	}
	h.mu.Unlock()
	if last {
		s.stop()
		<-s.done
	}
}

// retire takes s out of the joinable listens. h.mu is held.
func (h *listens) retire(s *sharedListen) {
	s.ending = true
	for i, x := range h.open {
		if x == s {
			h.open = append(h.open[:i], h.open[i+1:]...)
			return
		}
	}
}

// pump opens s on the child, fans each event out to the listeners that
// want it and closes s when ctx ends (its last listener left). It runs on
// a goroutine of its own and never waits for a listener: each has its
// own drop-oldest queue.
func (h *listens) pump(ctx context.Context, s *sharedListen, opts stdio.ListenOptions) {
	defer close(s.done)
	defer s.stop()
	sub, err := h.client.Listen(ctx, s.request, &opts)
	h.mu.Lock()
	if err != nil {
		s.openErr = err
		h.retire(s)
		close(s.ready)
		h.mu.Unlock()
		return
	}
	s.acked = true
	s.accepted = ackFilter(convert.Acknowledged(sub.Accepted()))
	for l := range s.members {
		l.filter = l.want.within(s.accepted)
	}
	close(s.ready)
	h.mu.Unlock()
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			h.mu.Lock()
			s.endErr = err
			h.retire(s)
			h.mu.Unlock()
			return
		}
		h.fanOut(s, ev)
	}
}

// fanOut hands ev, converted once, to the queue of every listener of s
// that wants it. It never waits for a listener.
func (h *listens) fanOut(s *sharedListen, ev stdio.Event) {
	fe := readEvent(ev)
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range s.members {
		l.pending += ev.Dropped // nobody knows which of them it would have wanted
		if fe.msg != nil && l.wants(&fe) {
			l.events.PushCounted(fe.msg, l.pending)
			l.pending = 0
		}
	}
}

// retryable reports whether a listener whose listen failed to open
// should open one of its own rather than fail: the child refused a
// listen that asked for more than the listener did, and the refusal may
// concern only what the listener did not ask for. Failures of the child
// or of the wait are everyone's.
func (s *sharedListen) retryable(l *listener) bool {
	var e *jsonrpc.Error
	if !errors.As(s.openErr, &e) || e.Code == jsonrpc.CodeConnectionClosed || e.Code == jsonrpc.CodeRequestTimeout {
		return false
	}
	return !l.want.covers(s.want)
}
