package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// subscribeBuffer bounds the events a Subscribe stream (and a tunnel's
// unsolicited notifications) may have waiting for the gRPC client. When it
// is full the oldest event is discarded and the next one sent carries the
// count in `dropped` (2026 children: the stdio Subscription buffer does the
// same with the same bound).
const subscribeBuffer = 64

// Subscribe delivers list changes and resource updates of a child: a
// subscriptions/listen of its own on a 2026 child, the relay's shared
// resources/subscribe and fan-out on a legacy child.
func (s *Service) Subscribe(req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "Subscribe"
	ctx := stream.Context()
	sup, err := s.lookup(ctx, req.GetServer(), method)
	if err != nil {
		return toStatus(req.GetServer(), method, err)
	}
	for _, uri := range req.GetResourceSubscriptions() {
		if uri == "" {
			return toStatus(sup.name, method, invalidInput(sup.name, method, "resource_subscriptions has an empty URI"))
		}
	}
	c, err := sup.acquire(ctx)
	if err != nil {
		return toStatus(sup.name, method, err)
	}
	if protocol.Modern(c.client.Protocol()) {
		return s.listen(ctx, sup, c, req, stream)
	}
	return s.subscribeLegacy(ctx, sup, c, req, stream)
}

// listen is Subscribe on a 2026 child: one subscriptions/listen per
// stream. Closing the Subscription (the stream ends) sends
// notifications/cancelled for it.
func (s *Service) listen(ctx context.Context, sup *supervisor, c *child, req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "subscriptions/listen"
	filter := listenFilter(req)
	sub, err := c.client.Listen(ctx, filter, &stdio.ListenOptions{
		Timeout: s.cfg.DefaultDeadline, MaxBuffer: subscribeBuffer, Overflow: stdio.DropOldest,
	})
	if err != nil {
		if ctx.Err() != nil {
			return toStatus(sup.name, method, ctx.Err())
		}
		return s.childError(sup, method, err)
	}
	defer sub.Close()
	ack := acknowledged(sub.Accepted())
	if err := stream.Send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Acknowledged{Acknowledged: ack}}); err != nil {
		return err
	}
	for {
		ev, err := sub.Next(ctx)
		switch {
		case ctx.Err() != nil:
			return toStatus(sup.name, method, ctx.Err())
		case errors.Is(err, io.EOF):
			return nil // the child ended the listen
		case err != nil:
			return s.childError(sup, method, err)
		}
		msg := subscribeEvent(ev.Method, ev.Params)
		if msg == nil {
			continue // a kind this API does not carry (an extension's)
		}
		msg.Dropped = uint32(ev.Dropped)
		if err := stream.Send(msg); err != nil {
			return err
		}
	}
}

// listenFilter is the notifications object of subscriptions/listen.
func listenFilter(req *mcpbridgev1.SubscribeRequest) json.RawMessage {
	out := []byte{'{'}
	add := func(key string, on bool) {
		if !on {
			return
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, key...)
		out = append(out, ":true"...)
	}
	add(`"toolsListChanged"`, req.GetToolsListChanged())
	add(`"promptsListChanged"`, req.GetPromptsListChanged())
	add(`"resourcesListChanged"`, req.GetResourcesListChanged())
	if uris := req.GetResourceSubscriptions(); len(uris) > 0 {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, `"resourceSubscriptions":[`...)
		for i, u := range uris {
			if i > 0 {
				out = append(out, ',')
			}
			out = rawjson.AppendString(out, u)
		}
		out = append(out, ']')
	}
	return append(out, '}')
}

// acknowledged reads the notifications object a 2026 child acknowledged.
func acknowledged(accepted json.RawMessage) *mcpbridgev1.SubscriptionAcknowledged {
	var n struct {
		Tools     bool     `json:"toolsListChanged"`
		Prompts   bool     `json:"promptsListChanged"`
		Resources bool     `json:"resourcesListChanged"`
		URIs      []string `json:"resourceSubscriptions"`
	}
	_ = json.Unmarshal(accepted, &n) // Listen checked it is an object; odd members read as false
	return &mcpbridgev1.SubscriptionAcknowledged{
		ToolsListChanged: n.Tools, PromptsListChanged: n.Prompts, ResourcesListChanged: n.Resources,
		ResourceSubscriptions: n.URIs,
	}
}

// subscribeEvent maps a change notification to a stream message; nil for
// other methods.
func subscribeEvent(method string, params json.RawMessage) *mcpbridgev1.SubscribeResponse {
	meta := eventMeta(params)
	switch method {
	case "notifications/tools/list_changed":
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ToolsListChanged{ToolsListChanged: &mcpbridgev1.ListChanged{Meta: meta}}}
	case "notifications/prompts/list_changed":
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_PromptsListChanged{PromptsListChanged: &mcpbridgev1.ListChanged{Meta: meta}}}
	case "notifications/resources/list_changed":
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ResourcesListChanged{ResourcesListChanged: &mcpbridgev1.ListChanged{Meta: meta}}}
	case "notifications/resources/updated":
		raw, _ := rawjson.Member(params, "uri")
		uri, ok := rawjson.StringValue(raw)
		if !ok || uri == "" {
			return nil
		}
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ResourceUpdated{ResourceUpdated: &mcpbridgev1.ResourceUpdated{Uri: uri, Meta: meta}}}
	}
	return nil
}

// eventMeta is a notification's _meta without the bridge-owned
// subscription id; nil when nothing else is left.
func eventMeta(params json.RawMessage) *structpb.Struct {
	meta, ok := rawjson.Member(params, "_meta")
	if !ok {
		return nil
	}
	meta = rawjson.DeleteMember(meta, protocol.MetaSubscriptionID)
	if len(rawjson.Fields(meta)) == 0 {
		return nil
	}
	return toStruct(meta)
}

// eventLog maps the params of a notifications/message.
func eventLog(params json.RawMessage) (*mcpbridgev1.LogMessage, bool) {
	var w struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(params, &w) != nil {
		return nil, false
	}
	m := &mcpbridgev1.LogMessage{Level: levelOf(w.Level), Logger: w.Logger}
	if len(w.Data) > 0 {
		var v structpb.Value
		if v.UnmarshalJSON(w.Data) == nil {
			m.Data = &v
		}
	}
	return m, true
}

// eventSink receives the child's unsolicited notifications from the
// relay. notify runs on the stdio Client's reader goroutine: it must not
// block.
type eventSink interface {
	notify(n stdio.Notification)
}

// onNotification is ClientConfig.OnNotification: it fans a notification
// out to every sink, in arrival order.
func (r *relay) onNotification(n stdio.Notification) {
	r.mu.Lock()
	sinks := make([]eventSink, 0, len(r.sinks))
	for s := range r.sinks {
		sinks = append(sinks, s)
	}
	r.mu.Unlock()
	for _, s := range sinks {
		s.notify(n)
	}
}

func (r *relay) addSink(s eventSink) {
	r.mu.Lock()
	r.sinks[s] = struct{}{}
	r.mu.Unlock()
}

func (r *relay) removeSink(s eventSink) {
	r.mu.Lock()
	delete(r.sinks, s)
	r.mu.Unlock()
}

// dropRing is a dropq.Queue that drops the oldest, under a lock, with a
// one-slot signal: the stdio reader pushes and never waits, a stream's
// goroutine takes what is queued when signalled.
type dropRing[T any] struct {
	signal chan struct{} // one slot: something was pushed

	mu sync.Mutex
	q  *dropq.Queue[T]
}

func newDropRing[T any](max int) *dropRing[T] {
	return &dropRing[T]{q: dropq.New[T](max, false), signal: make(chan struct{}, 1)}
}

// push queues v, discarding the oldest item when the ring is full.
func (r *dropRing[T]) push(v T) {
	r.mu.Lock()
	r.q.Push(v)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// take removes and returns everything queued.
func (r *dropRing[T]) take() []dropq.Item[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.q.Take()
}

// legacySub is one Subscribe stream on a legacy child: the kinds it gets
// and its bounded queue of events. notify only filters, on the stdio
// reader; the stream's handler converts what it sends, so that events the
// ring drops cost nothing.
type legacySub struct {
	tools, prompts, resources bool
	level                     mcpbridgev1.LoggingLevel // 0: no logs
	events                    *dropRing[stdio.Notification]

	mu   sync.Mutex
	uris []string // acknowledged resource subscriptions
}

func (l *legacySub) notify(n stdio.Notification) {
	keep := false
	switch n.Method {
	case "notifications/tools/list_changed":
		keep = l.tools
	case "notifications/prompts/list_changed":
		keep = l.prompts
	case "notifications/resources/list_changed":
		keep = l.resources
	case "notifications/resources/updated":
		raw, _ := rawjson.Member(n.Params, "uri")
		uri, ok := rawjson.StringValue(raw)
		keep = ok && l.wants(uri)
	case "notifications/message":
		if l.level != 0 {
			raw, _ := rawjson.Member(n.Params, "level")
			name, _ := rawjson.StringValue(raw)
			keep = levelOf(name) >= l.level
		}
	}
	if keep {
		l.events.push(n)
	}
}

// message converts a queued notification for the stream; nil if it
// cannot be carried.
func (l *legacySub) message(n stdio.Notification) *mcpbridgev1.SubscribeResponse {
	if n.Method == "notifications/message" {
		m, ok := eventLog(n.Params)
		if !ok {
			return nil
		}
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Log{Log: m}}
	}
	return subscribeEvent(n.Method, n.Params)
}

func (l *legacySub) wants(uri string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, sub := range l.uris {
		if protocol.Covers(sub, uri) {
			return true
		}
	}
	return false
}

func (l *legacySub) add(uri string) {
	l.mu.Lock()
	l.uris = append(l.uris, uri)
	l.mu.Unlock()
}

// subscribeLegacy is Subscribe on a legacy child: the acknowledgement is
// what the child's capabilities support, each URI is subscribed on the
// child once for all its subscribers, and the child's notifications are
// fanned out by the relay.
func (s *Service) subscribeLegacy(ctx context.Context, sup *supervisor, c *child, req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "resources/subscribe"
	caps := c.client.ServerCapabilities()
	sub := &legacySub{
		tools:     req.GetToolsListChanged() && protocol.Capability(caps, "tools", "listChanged"),
		prompts:   req.GetPromptsListChanged() && protocol.Capability(caps, "prompts", "listChanged"),
		resources: req.GetResourcesListChanged() && protocol.Capability(caps, "resources", "listChanged"),
		level:     req.GetLogLevel(),
		events:    newDropRing[stdio.Notification](subscribeBuffer),
	}
	ack := &mcpbridgev1.SubscriptionAcknowledged{
		ToolsListChanged: sub.tools, PromptsListChanged: sub.prompts, ResourcesListChanged: sub.resources,
	}
	// The sink is in place before the first resources/subscribe, so no
	// update the child sends after subscribing is missed.
	c.relay.addSink(sub)
	defer c.relay.removeSink(sub)
	var held []string
	defer func() {
		for _, uri := range held {
			c.relay.unsubscribeURI(c.client, uri, s.cfg.DefaultDeadline)
		}
	}()
	if uris := req.GetResourceSubscriptions(); len(uris) > 0 && protocol.Capability(caps, "resources", "subscribe") {
		for _, uri := range uris {
			if slices.Contains(held, uri) {
				continue
			}
			err := c.relay.subscribeURI(ctx, c.client, uri, s.cfg.DefaultDeadline)
			var e *jsonrpc.Error
			switch {
			case err == nil:
				held = append(held, uri)
				sub.add(uri)
				ack.ResourceSubscriptions = append(ack.ResourceSubscriptions, uri)
			case ctx.Err() != nil:
				return toStatus(sup.name, method, ctx.Err())
			case errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed:
				return s.childError(sup, method, err)
			default: // the child refused this URI: it is left out of the acknowledgement
				s.cfg.Logger.Info("mcpbridge: the server refused a resource subscription", "server", sup.name, "uri", uri, "error", err)
			}
		}
	}
	send := lockedSend(stream.Send)
	if err := send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Acknowledged{Acknowledged: ack}}); err != nil {
		return err
	}
	if req.GetServerRequests() {
		reg := c.relay.openStream(false, true, func(sr *mcpbridgev1.ServerRequest) error {
			return send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ServerRequest{ServerRequest: sr}})
		})
		defer reg.Close()
	}
	dropped := 0 // discarded events not yet reported
	for {
		select {
		case <-ctx.Done():
			return toStatus(sup.name, method, ctx.Err())
		case <-c.client.Closed():
			return s.childError(sup, method, c.client.Err())
		case <-sub.events.signal:
			for _, it := range sub.events.take() {
				dropped += it.Dropped
				msg := sub.message(it.V)
				if msg == nil {
					continue // carried over to the next event
				}
				msg.Dropped = uint32(dropped)
				dropped = 0
				if err := send(msg); err != nil {
					return err
				}
			}
		}
	}
}

// uriSub is one URI the relay subscribed on a legacy child.
type uriSub struct {
	refs    int
	leaving bool          // resources/unsubscribe is on its way
	ready   chan struct{} // closed when the child answered (un)subscribe
	err     error         // the subscribe's failure
}

// subscribeURI takes a reference on uri, sending resources/subscribe when
// it is the first. It returns the child's error for a refused subscribe;
// on success the caller must release the reference with unsubscribeURI.
// The child call is not bound to ctx (other subscribers may wait for it),
// only to timeout.
func (r *relay) subscribeURI(ctx context.Context, c *stdio.Client, uri string, timeout time.Duration) error {
	for {
		r.mu.Lock()
		e := r.uris[uri]
		if e == nil {
			e = &uriSub{refs: 1, ready: make(chan struct{})}
			r.uris[uri] = e
			r.mu.Unlock()
			err := r.uriCall(ctx, c, "resources/subscribe", uri, timeout)
			r.mu.Lock()
			e.err = err
			if err != nil {
				delete(r.uris, uri)
			}
			close(e.ready)
			r.mu.Unlock()
			return err
		}
		ready, leaving := e.ready, e.leaving
		if !leaving {
			e.refs++
		}
		r.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			if !leaving {
				r.release(c, uri, e, timeout)
			}
			return ctx.Err()
		}
		if leaving {
			continue // subscribe afresh once the unsubscribe is through
		}
		if e.err != nil {
			return e.err // the entry is gone; the reference went with it
		}
		return nil
	}
}

// unsubscribeURI releases a reference taken by subscribeURI, sending
// resources/unsubscribe when it was the last.
func (r *relay) unsubscribeURI(c *stdio.Client, uri string, timeout time.Duration) {
	r.mu.Lock()
	e := r.uris[uri]
	r.mu.Unlock()
	if e != nil {
		r.release(c, uri, e, timeout)
	}
}

func (r *relay) release(c *stdio.Client, uri string, e *uriSub, timeout time.Duration) {
	r.mu.Lock()
	if r.uris[uri] != e || e.leaving {
		r.mu.Unlock()
		return
	}
	e.refs--
	if e.refs > 0 {
		r.mu.Unlock()
		return
	}
	// refs reaches 0 only after the subscribe was answered: its sender
	// holds a reference until then.
	e.leaving = true
	e.ready = make(chan struct{})
	r.mu.Unlock()
	if err := r.uriCall(context.Background(), c, "resources/unsubscribe", uri, timeout); err != nil {
		r.log.Info("mcpbridge: resources/unsubscribe failed", "uri", uri, "error", err)
	}
	r.mu.Lock()
	delete(r.uris, uri)
	close(e.ready)
	r.mu.Unlock()
}

// uriCall sends resources/subscribe or resources/unsubscribe for uri.
func (r *relay) uriCall(ctx context.Context, c *stdio.Client, method, uri string, timeout time.Duration) error {
	defer r.enter()()
	params := append(rawjson.AppendString([]byte(`{"uri":`), uri), '}')
	_, err := c.Call(context.WithoutCancel(ctx), method, json.RawMessage(params), &stdio.CallOptions{Timeout: timeout})
	return err
}
