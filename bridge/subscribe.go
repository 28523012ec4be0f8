package bridge

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
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
	srv, err := s.lookup(ctx, req.GetServer(), method)
	if err != nil {
		return err
	}
	for _, uri := range req.GetResourceSubscriptions() {
		if uri == "" {
			return toStatus(srv.name, method, invalidInput(srv.name, method, "resource_subscriptions has an empty URI"))
		}
	}
	c, err := srv.acquire(ctx, method)
	if err != nil {
		return err
	}
	if protocol.Modern(c.Protocol()) {
		return s.listen(ctx, srv, c, req, stream)
	}
	return s.subscribeLegacy(ctx, srv, c, req, stream)
}

// listen is Subscribe on a 2026 child: one subscriptions/listen per
// stream. Closing the Subscription (the stream ends) sends
// notifications/cancelled for it.
func (s *Service) listen(ctx context.Context, srv *upstream, c *child, req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "subscriptions/listen"
	filter := convert.ListenFilter(req)
	sub, err := c.Listen(ctx, filter, &stdio.ListenOptions{
		Timeout: s.cfg.DefaultDeadline, MaxBuffer: subscribeBuffer, Overflow: stdio.DropOldest,
	})
	if err != nil {
		if ctx.Err() != nil {
			return toStatus(srv.name, method, ctx.Err())
		}
		return srv.failure(method, err)
	}
	defer sub.Close()
	ack := convert.Acknowledged(sub.Accepted())
	if err := stream.Send(&mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_Acknowledged{Acknowledged: ack}}); err != nil {
		return err
	}
	for {
		ev, err := sub.Next(ctx)
		switch {
		case ctx.Err() != nil:
			return toStatus(srv.name, method, ctx.Err())
		case errors.Is(err, io.EOF):
			return nil // the child ended the listen
		case err != nil:
			return srv.failure(method, err)
		}
		msg := convert.Event(ev.Method, ev.Params)
		if msg == nil {
			continue // a kind this API does not carry (an extension's)
		}
		msg.Dropped = uint32(ev.Dropped)
		if err := stream.Send(msg); err != nil {
			return err
		}
	}
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
			keep = convert.Level(name) >= l.level
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
func (s *Service) subscribeLegacy(ctx context.Context, srv *upstream, c *child, req *mcpbridgev1.SubscribeRequest, stream grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]) error {
	const method = "resources/subscribe"
	caps := c.ServerCapabilities()
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
			c.relay.unsubscribeURI(c.Client, uri, s.cfg.DefaultDeadline)
		}
	}()
	if uris := req.GetResourceSubscriptions(); len(uris) > 0 && protocol.Capability(caps, "resources", "subscribe") {
		for _, uri := range uris {
			if slices.Contains(held, uri) {
				continue
			}
			err := c.relay.subscribeURI(ctx, c.Client, uri, s.cfg.DefaultDeadline)
			var e *jsonrpc.Error
			switch {
			case err == nil:
				held = append(held, uri)
				sub.add(uri)
				ack.ResourceSubscriptions = append(ack.ResourceSubscriptions, uri)
			case ctx.Err() != nil:
				return toStatus(srv.name, method, ctx.Err())
			case errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed:
				return srv.failure(method, err)
			default: // the child refused this URI: it is left out of the acknowledgement
				s.cfg.Logger.Info("mcpbridge: the server refused a resource subscription", "server", srv.name, "uri", uri, "error", err)
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
			return toStatus(srv.name, method, ctx.Err())
		case <-c.Closed():
			return srv.failure(method, c.Err())
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
