package grpcdoor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// subscribeBuffer bounds the events a Subscribe stream (and a tunnel's
// unsolicited notifications) may have waiting for the gRPC client
// (fanout.StreamBuffer).
const subscribeBuffer = fanout.StreamBuffer

// Subscribe delivers list changes and resource updates of a child: a
// subscriptions/listen of its own on a 2026 child, the relay's shared
// resources/subscribe and fan-out on a legacy child.
//
// Shutdown ends it at once with UNAVAILABLE and RetryInfo (drain.go).
func (s *API) Subscribe(req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	ctx, end := s.core.LongLived(stream.Context())
	defer end()
	if rpcerr.RefusedDraining(ctx) { // opened after Shutdown
		return rpcerr.Drained(ctx, req.GetServer(), "Subscribe", ctx.Err())
	}
	return rpcerr.Drained(ctx, req.GetServer(), "Subscribe", s.subscribe(req, subscribeStream{stream, ctx}))
}

func (s *API) subscribe(req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "Subscribe"
	ctx := stream.Context()
	srv, err := s.core.Lookup(ctx, req.GetServer(), method)
	if err != nil {
		return err
	}
	for _, uri := range req.GetResourceSubscriptions() {
		if uri == "" {
			return rpcerr.ToStatus(srv.Name(), method, rpcerr.InvalidField(srv.Name(), method, "resource_subscriptions", convert.ReasonRequired, " has an empty URI"))
		}
	}
	// The stream's opening passes the door: the server, every URI it
	// subscribes, and the rate (it stays open, so it holds no place among
	// the calls in flight). What the bridge then sends the child on its
	// behalf (resources/subscribe, subscriptions/listen, logging/setLevel)
	// is what passed here.
	if err := s.core.Door().AdmitOpening(ctx, &door.Request{Via: door.Via(ctx, door.ViaGRPC), Server: srv.Door(), Method: method, Kind: access.Resource, Names: req.GetResourceSubscriptions(), Long: true}); err != nil {
		return err
	}
	c, err := srv.Acquire(ctx, method)
	if err != nil {
		return err
	}
	c.Subscribers.Add(1)
	defer c.Subscribers.Add(-1)
	if protocol.Modern(c.Protocol()) {
		return s.listen(ctx, srv, c, req, stream)
	}
	return s.subscribeLegacy(ctx, srv, c, req, stream)
}

// listen is Subscribe on a 2026 child: the stream shares a
// subscriptions/listen whose request covers its own, or opens one
// (package fanout). Its acknowledgement is its request narrowed by what the
// child accepted; it gets the events its own filter wants; when the child
// ends the listen, every stream of it ends with OK, and when the child
// exits, with UNAVAILABLE. The last stream to leave closes the listen,
// which sends notifications/cancelled for it.
func (s *API) listen(ctx context.Context, srv *pool.Server, c *pool.Process, req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "subscriptions/listen"
	l := fanout.NewListener(req)
	shared, err := s.joinListen(ctx, srv, c, l, convert.ListenFilter(req))
	if err != nil {
		return err
	}
	defer c.Listens.Leave(shared, l)
	if err := stream.Send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Acknowledged{Acknowledged: l.Filter.Ack()}}); err != nil {
		return err
	}
	dropped := 0 // discarded events not yet reported
	send := func() error {
		return sendQueued(l.Events, &dropped, func(m *mcpbridgev1.SubscribeResponse) *mcpbridgev1.SubscribeResponse {
			return &mcpbridgev1.SubscribeResponse{Event: m.Event} // m is shared with the other streams
		}, stream.Send)
	}
	for {
		select {
		case <-ctx.Done():
			return rpcerr.ToStatus(srv.Name(), method, ctx.Err())
		case <-l.Events.C():
			if err := send(); err != nil {
				return err
			}
		case <-shared.Done:
			if err := send(); err != nil { // what came before the end
				return err
			}
			switch {
			case ctx.Err() != nil:
				return rpcerr.ToStatus(srv.Name(), method, ctx.Err())
			case errors.Is(shared.EndErr, io.EOF):
				return nil // the child ended the listen
			default:
				return srv.Failure(c, method, shared.EndErr)
			}
		}
	}
}

// joinListen puts l on a shared listen of c that covers it, or on a new
// one (package fanout), and waits until that listen is open. A stream whose
// ctx ends while it waits leaves alone; when the opening fails, every
// stream waiting for it gets the failure, except one that asked for less
// than the listen did and the child refused it: it opens one of its own,
// since the refusal may concern what only the others asked for.
func (s *API) joinListen(ctx context.Context, srv *pool.Server, c *pool.Process, l *fanout.Listener, request json.RawMessage) (*fanout.SharedListen, error) {
	const method = "subscriptions/listen"
	opts := stdio.ListenOptions{Timeout: s.core.DefaultDeadline(), MaxBuffer: subscribeBuffer, Overflow: stdio.DropOldest}
	for {
		sl := c.Listens.Join(l, request, opts)
		select {
		case <-sl.Ready:
		case <-ctx.Done():
			c.Listens.Leave(sl, l)
			return nil, rpcerr.ToStatus(srv.Name(), method, ctx.Err())
		}
		if sl.OpenErr == nil {
			return sl, nil
		}
		c.Listens.Leave(sl, l)
		switch {
		case ctx.Err() != nil:
			return nil, rpcerr.ToStatus(srv.Name(), method, ctx.Err())
		case !sl.Retryable(l):
			return nil, srv.Failure(c, method, sl.OpenErr)
		}
	}
}

// sendQueued sends what ring holds, converted by message, oldest first.
// Drops are added to *dropped and reported on the next message sent; an
// item message cannot carry (nil) carries its drops over too.
func sendQueued[T any](ring *dropq.Signalled[T], dropped *int, message func(T) *mcpbridgev1.SubscribeResponse, send func(*mcpbridgev1.SubscribeResponse) error) error {
	for _, it := range ring.Take() {
		*dropped += it.Dropped
		msg := message(it.V)
		if msg == nil {
			continue
		}
		msg.Dropped = uint32(*dropped)
		*dropped = 0
		if err := send(msg); err != nil {
			return err
		}
	}
	return nil
}

// legacySub is one Subscribe stream on a legacy child: the kinds it gets
// and its bounded queue of events. notify only filters, on the stdio
// reader; the stream's handler converts what it sends, so that events the
// ring drops cost nothing.
type legacySub struct {
	who                       string // the stream's principal (access.CallerID)
	tools, prompts, resources bool
	level                     mcpbridgev1.LoggingLevel // 0: no logs
	events                    *dropq.Signalled[stdio.Notification]

	mu   sync.Mutex
	uris []string // acknowledged resource subscriptions
}

func (l *legacySub) Principal() string { return l.who }

func (l *legacySub) Notify(n stdio.Notification) {
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
			keep = convert.Level(name) >= l.level
		}
	}
	if keep {
		l.events.Push(n)
	}
}

// message converts a queued notification for the stream; nil if it
// cannot be carried.
func (l *legacySub) message(n stdio.Notification) *mcpbridgev1.SubscribeResponse {
	if n.Method == "notifications/message" {
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Log{Log: convert.Log(n.Params)}}
	}
	return convert.Event(n.Method, n.Params)
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
func (s *API) subscribeLegacy(ctx context.Context, srv *pool.Server, c *pool.Process, req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "resources/subscribe"
	caps := c.ServerCapabilities()
	sub := &legacySub{
		who:       access.CallerID(ctx),
		tools:     req.GetToolsListChanged() && protocol.Capability(caps, "tools", "listChanged"),
		prompts:   req.GetPromptsListChanged() && protocol.Capability(caps, "prompts", "listChanged"),
		resources: req.GetResourcesListChanged() && protocol.Capability(caps, "resources", "listChanged"),
		level:     req.GetLogLevel(),
		events:    dropq.NewSignalled[stdio.Notification](subscribeBuffer, false),
	}
	ack := &mcpbridgev1.SubscriptionAcknowledged{
		ToolsListChanged: sub.tools, PromptsListChanged: sub.prompts, ResourcesListChanged: sub.resources,
	}
	// The child logs at least at the stream's level while it reads
	// (fanout.ChildLevel).
	defer c.Level.Want(ctx, sub.level)()
	// The sink is in place before the first resources/subscribe, so no
	// update the child sends after subscribing is missed.
	c.Relay.AddSink(sub)
	defer c.Relay.RemoveSink(sub)
	var held []string
	defer func() {
		for _, uri := range held {
			c.Relay.UnsubscribeURI(c.Client, uri, s.core.DefaultDeadline())
		}
	}()
	if uris := req.GetResourceSubscriptions(); len(uris) > 0 && protocol.Capability(caps, "resources", "subscribe") {
		for _, uri := range uris {
			if slices.Contains(held, uri) {
				continue
			}
			err := c.Relay.SubscribeURI(ctx, c.Client, uri, s.core.DefaultDeadline())
			var e *jsonrpc.Error
			switch {
			case err == nil:
				held = append(held, uri)
				sub.add(uri)
				ack.ResourceSubscriptions = append(ack.ResourceSubscriptions, uri)
			case ctx.Err() != nil:
				return rpcerr.ToStatus(srv.Name(), method, ctx.Err())
			case errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed:
				return srv.Failure(c, method, err)
			default: // the child refused this URI: it is left out of the acknowledgement
				s.core.Logger().Info("mcpbridge: the server refused a resource subscription", "server", srv.Name(), "uri", uri, "error", err)
			}
		}
	}
	send := fanout.LockedSend(stream.Send)
	if req.GetServerRequests() {
		// Registered before the acknowledgement, so that a request the
		// child sends once the client has it reaches this stream; sent
		// only after it, which is always the first message.
		acked := make(chan struct{})
		reg := c.Relay.OpenStream(ctx, false, true, func(sr *mcpbridgev1.ServerRequest) error {
			select {
			case <-acked:
			case <-ctx.Done():
				return ctx.Err()
			}
			return send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ServerRequest{ServerRequest: sr}})
		})
		defer reg.Close()
		defer func() {
			select {
			case <-acked:
			default:
				close(acked) // an early return: let the delivery goroutine go
			}
		}()
		if err := send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Acknowledged{Acknowledged: ack}}); err != nil {
			return err
		}
		close(acked)
	} else if err := send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Acknowledged{Acknowledged: ack}}); err != nil {
		return err
	}
	dropped := 0 // discarded events not yet reported
	for {
		select {
		case <-ctx.Done():
			return rpcerr.ToStatus(srv.Name(), method, ctx.Err())
		case <-c.Closed():
			return srv.Failure(c, method, c.Err())
		case <-sub.events.C():
			if err := sendQueued(sub.events, &dropped, sub.message, send); err != nil {
				return err
			}
		}
	}
}

// subscribeStream carries a long-lived stream's context to its handler.
type subscribeStream struct {
	grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]
	ctx context.Context
}

func (s subscribeStream) Context() context.Context { return s.ctx }
