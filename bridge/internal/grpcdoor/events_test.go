package grpcdoor

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/internal/dropq"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// brokenStream is a server stream whose Send fails from the n-th message
// on (counting from 0), recording what it sent before.
type brokenStream[T any] struct {
	grpc.ServerStream // nil: only Send is used
	failAt            int
	sent              []*T
	tries             int
}

var errGone = errors.New("the client is gone")

func (s *brokenStream[T]) Send(m *T) error {
	s.tries++
	if len(s.sent) >= s.failAt {
		return errGone
	}
	s.sent = append(s.sent, m)
	return nil
}

// TestStreamEventsBreak shows a call stream whose Send fails: the call is
// cancelled, nothing is sent after, and the call's outcome is the Send
// error, whatever the call itself returned.
func TestStreamEventsBreak(t *testing.T) {
	st := &brokenStream[mcpbridgev1.CallToolStreamResponse]{failAt: 1}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := &streamEvents[mcpbridgev1.CallToolStreamResponse]{stream: st, wrap: toolStreamEvent, cancel: cancel}
	opts := ev.options(&stdio.CallOptions{})
	opts.Progress(stdio.Progress{Progress: 1})
	if ev.broken() != nil || ctx.Err() != nil || len(st.sent) != 1 || st.sent[0].GetProgress().GetProgress() != 1 {
		t.Fatalf("after one progress: broken %v, ctx %v, sent %v", ev.broken(), ctx.Err(), st.sent)
	}
	if opts.Log != nil {
		t.Error("a stream without a log level has a Log callback")
	}
	opts.Progress(stdio.Progress{Progress: 2})
	if !errors.Is(ev.broken(), errGone) || ctx.Err() == nil {
		t.Fatalf("after a failed Send: broken %v, ctx %v; want the Send error and the call cancelled", ev.broken(), ctx.Err())
	}
	if err := ev.send(&mcpbridgev1.CallToolResponse{}); !errors.Is(err, errGone) || st.tries != 2 {
		t.Errorf("send after the break = %v after %d tries, want the Send error without a try", err, st.tries)
	}
	if err := ev.finish(context.Canceled); !errors.Is(err, errGone) {
		t.Errorf("finish = %v, want the Send error", err)
	}
}

// TestStreamEventsLog shows the log filter of a call stream: a message
// below the stream's level is dropped, one at or above it sent, and one
// of a level this API does not know delivered as UNSPECIFIED.
func TestStreamEventsLog(t *testing.T) {
	st := &brokenStream[mcpbridgev1.CallStreamResponse]{failAt: 100}
	ev := &streamEvents[mcpbridgev1.CallStreamResponse]{stream: st, wrap: callStreamEvent, cancel: func() {},
		minLog: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING}
	opts := ev.options(&stdio.CallOptions{})
	for _, level := range []string{"debug", "warning", "mystery", "error"} {
		opts.Log(stdio.Notification{Method: "notifications/message", Params: json.RawMessage(`{"level":"` + level + `","data":1}`)})
	}
	var got []mcpbridgev1.LoggingLevel
	for _, m := range st.sent {
		got = append(got, m.GetLog().GetLevel())
	}
	want := []mcpbridgev1.LoggingLevel{mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR}
	if len(got) != len(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sent %v, want %v", got, want)
		}
	}
}

// TestLegacySubNotify shows which of a legacy child's notifications a
// Subscribe stream keeps: the list changes it asked for, updates of the
// resources it subscribed (or that they contain), logs at its level.
func TestLegacySubNotify(t *testing.T) {
	sub := &legacySub{who: "alice", prompts: true, level: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR,
		events: dropq.NewSignalled[stdio.Notification](subscribeBuffer, false)}
	sub.add("file:///dir/")
	if sub.Principal() != "alice" {
		t.Errorf("Principal = %q, want alice", sub.Principal())
	}
	for _, n := range []stdio.Notification{
		{Method: "notifications/tools/list_changed"},   // not asked for
		{Method: "notifications/prompts/list_changed"}, // kept
		{Method: "notifications/resources/list_changed"},
		{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"file:///other"}`)},
		{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"file:///dir/x"}`)}, // kept
		{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":1}`)},
		{Method: "notifications/message", Params: json.RawMessage(`{"level":"critical","data":2}`)}, // kept
		{Method: "notifications/other"},
	} {
		sub.Notify(n)
	}
	var got []string
	for _, it := range sub.events.Take() {
		got = append(got, it.V.Method)
	}
	want := []string{"notifications/prompts/list_changed", "notifications/resources/updated", "notifications/message"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("kept %v, want %v", got, want)
	}
}

// TestSendQueued shows the drops of a Subscribe stream's queue reported
// on the next message sent, also across an item that no message carries.
func TestSendQueued(t *testing.T) {
	ring := dropq.NewSignalled[string](2, false)
	for _, v := range []string{"a", "b", "skip", "c"} { // a and b dropped
		ring.Push(v)
	}
	var sent []*mcpbridgev1.SubscribeResponse
	dropped := 0
	err := sendQueued(ring, &dropped, func(v string) *mcpbridgev1.SubscribeResponse {
		if v == "skip" {
			return nil
		}
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ResourceUpdated{ResourceUpdated: &mcpbridgev1.ResourceUpdated{Uri: v}}}
	}, func(m *mcpbridgev1.SubscribeResponse) error {
		sent = append(sent, m)
		return nil
	})
	if err != nil || len(sent) != 1 || sent[0].GetResourceUpdated().GetUri() != "c" || sent[0].GetDropped() != 2 || dropped != 0 {
		t.Fatalf("sendQueued = %v, sent %v, %d left to report; want c reporting 2 drops", err, sent, dropped)
	}
	ring.Push("d")
	err = sendQueued(ring, &dropped, func(v string) *mcpbridgev1.SubscribeResponse {
		return &mcpbridgev1.SubscribeResponse{}
	}, func(*mcpbridgev1.SubscribeResponse) error { return errGone })
	if !errors.Is(err, errGone) {
		t.Errorf("sendQueued with a broken stream = %v, want its error", err)
	}
}
