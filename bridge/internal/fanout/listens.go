package fanout

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

// Listens is the shared Listens of one child; the child owns it (child.go),
// so a restarted child starts with none. Its zero value is not usable:
// make one with newListens.
type Listens struct {
	client *stdio.Client

	mu   sync.Mutex
	open []*SharedListen // joinable: opening, or open and not ending
}

func NewListens(c *stdio.Client) *Listens { return &Listens{client: c} }

// SharedListen is one subscriptions/listen on the child and the streams
// that share it. Its pump goroutine opens it, fans its events out and
// closes it; the pump is started by the first stream's join and stopped
// by the last stream's leave, which waits for it (or ends by itself when
// the child ends the listen or dies).
type SharedListen struct {
	want    Filter          // what the listen asked the child for
	request json.RawMessage // its notifications object
	stop    context.CancelFunc
	Ready   chan struct{} // closed by the pump once acknowledged or failed
	Done    chan struct{} // closed when the pump returns
	OpenErr error         // why opening failed; written before ready closes
	EndErr  error         // why the listen ended; written before done closes

	// Guarded by listens.mu.
	members  map[*Listener]struct{}
	acked    bool   // accepted is known
	accepted Filter // what the child acknowledged
	ending   bool   // no longer in open: nobody joins it
}

// Filter is the part of a listen's notifications object that the
// bridge understands: the list changes and the resource URIs, as a stream
// asked for them or as the child accepted them.
type Filter struct {
	tools, prompts, resources bool
	uris                      []string
}

func requestFilter(req *mcpbridgev1.SubscribeRequest) Filter {
	f := Filter{tools: req.GetToolsListChanged(), prompts: req.GetPromptsListChanged(), resources: req.GetResourcesListChanged()}
	for _, uri := range req.GetResourceSubscriptions() {
		if !slices.Contains(f.uris, uri) {
			f.uris = append(f.uris, uri)
		}
	}
	return f
}

func ackFilter(ack *mcpbridgev1.SubscriptionAcknowledged) Filter {
	return Filter{
		tools: ack.GetToolsListChanged(), prompts: ack.GetPromptsListChanged(), resources: ack.GetResourcesListChanged(),
		uris: ack.GetResourceSubscriptions(),
	}
}

// covers reports whether a listen asking for f delivers everything g asks
// for: every list change g asks for, and for each of g's URIs one of f's
// that covers it (protocol.Covers: the same URI or a parent of it). The
// log level is no part of it: a 2026 listen carries no logLevel, and
// notifications/message never travels on one (docs/protocol.md, "Listen").
func (f Filter) covers(g Filter) bool {
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

func (f Filter) coversURI(uri string) bool {
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
func (f Filter) within(acc Filter) Filter {
	out := Filter{tools: f.tools && acc.tools, prompts: f.prompts && acc.prompts, resources: f.resources && acc.resources}
	for _, uri := range f.uris {
		if acc.coversURI(uri) {
			out.uris = append(out.uris, uri)
		}
	}
	return out
}

func (f Filter) Ack() *mcpbridgev1.SubscriptionAcknowledged {
	return &mcpbridgev1.SubscriptionAcknowledged{
		ToolsListChanged: f.tools, PromptsListChanged: f.prompts, ResourcesListChanged: f.resources, ResourceSubscriptions: f.uris,
	}
}

// Listener is one Subscribe stream on a shared listen: what it asked for,
// what it gets, and its bounded queue of events waiting for the gRPC
// client. The queue holds messages the pump converted once for every
// stream; they are shared and never modified.
type Listener struct {
	want   Filter
	level  mcpbridgev1.LoggingLevel // 0: no logs
	Events *dropq.Signalled[*mcpbridgev1.SubscribeResponse]

	// Filter is want within what the child accepted, set under listens.mu
	// before the pump hands the listener an event, and read-only after.
	Filter Filter
	// pending counts events the listen's own buffer dropped since the
	// last one queued here; the pump counts them on the next one (under
	// listens.mu).
	pending int
}

func NewListener(req *mcpbridgev1.SubscribeRequest) *Listener {
	return &Listener{
		want: requestFilter(req), level: req.GetLogLevel(),
		Events: dropq.NewSignalled[*mcpbridgev1.SubscribeResponse](StreamBuffer, false),
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
func (l *Listener) wants(ev *fanEvent) bool {
	switch ev.method {
	case "notifications/tools/list_changed":
		return l.Filter.tools
	case "notifications/prompts/list_changed":
		return l.Filter.prompts
	case "notifications/resources/list_changed":
		return l.Filter.resources
	case "notifications/resources/updated":
		return l.Filter.coversURI(ev.uri)
	case "notifications/message":
		return l.level != 0 && ev.level >= l.level
	}
	return false
}

// Join adds l to an open listen whose request covers l's, or to a new
// one, which it starts opening. request is l's notifications object, sent
// if it opens the listen; opts are the listen's options. The caller waits
// for the listen's ready and then, whatever happened, calls leave.
func (h *Listens) Join(l *Listener, request json.RawMessage, opts stdio.ListenOptions) *SharedListen {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.open {
		if s.want.covers(l.want) {
			s.members[l] = struct{}{}
			if s.acked {
				l.Filter = l.want.within(s.accepted)
			}
			return s
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &SharedListen{
		want: l.want, request: request, stop: cancel,
		Ready: make(chan struct{}), Done: make(chan struct{}),
		members: map[*Listener]struct{}{l: {}},
	}
	h.open = append(h.open, s)
	go h.pump(ctx, s, opts) // stopped by the last leave, which waits for it
	return s
}

// Leave removes l from s. The last listener to Leave an open listen stops
// its pump, which closes the listen (notifications/cancelled), and waits
// for it.
func (h *Listens) Leave(s *SharedListen, l *Listener) {
	h.mu.Lock()
	delete(s.members, l)
	last := len(s.members) == 0 && !s.ending
	if last {
		h.retire(s)
	}
	h.mu.Unlock()
	if last {
		s.stop()
		<-s.Done
	}
}

// retire takes s out of the joinable listens. h.mu is held.
func (h *Listens) retire(s *SharedListen) {
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
func (h *Listens) pump(ctx context.Context, s *SharedListen, opts stdio.ListenOptions) {
	defer close(s.Done)
	defer s.stop()
	sub, err := h.client.Listen(ctx, s.request, &opts)
	h.mu.Lock()
	if err != nil {
		s.OpenErr = err
		h.retire(s)
		close(s.Ready)
		h.mu.Unlock()
		return
	}
	s.acked = true
	s.accepted = ackFilter(convert.Acknowledged(sub.Accepted()))
	for l := range s.members {
		l.Filter = l.want.within(s.accepted)
	}
	close(s.Ready)
	h.mu.Unlock()
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			h.mu.Lock()
			s.EndErr = err
			h.retire(s)
			h.mu.Unlock()
			return
		}
		h.fanOut(s, ev)
	}
}

// fanOut hands ev, converted once, to the queue of every listener of s
// that wants it. It never waits for a listener.
func (h *Listens) fanOut(s *SharedListen, ev stdio.Event) {
	fe := readEvent(ev)
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range s.members {
		l.pending += ev.Dropped // nobody knows which of them it would have wanted
		if fe.msg != nil && l.wants(&fe) {
			l.Events.PushCounted(fe.msg, l.pending)
			l.pending = 0
		}
	}
}

// Retryable reports whether a listener whose listen failed to open
// should open one of its own rather than fail: the child refused a
// listen that asked for more than the listener did, and the refusal may
// concern only what the listener did not ask for. Failures of the child
// or of the wait are everyone's.
func (s *SharedListen) Retryable(l *Listener) bool {
	var e *jsonrpc.Error
	if !errors.As(s.OpenErr, &e) || e.Code == jsonrpc.CodeConnectionClosed || e.Code == jsonrpc.CodeRequestTimeout {
		return false
	}
	return !l.want.covers(s.want)
}
