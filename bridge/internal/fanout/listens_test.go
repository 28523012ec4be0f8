package fanout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// events waits for n events of l and returns them as short strings:
// "tools", "prompts", "resources", "updated <uri>", "log <data>", with
// "+<dropped>" when the event carries drops.
func events(t *testing.T, l *Listener, n int) []string {
	t.Helper()
	var out []string
	deadline := time.After(wait)
	for len(out) < n {
		select {
		case <-l.Events.C():
		case <-deadline:
			t.Fatalf("the listener got %v, want %d events", out, n)
		}
		for _, it := range l.Events.Take() {
			out = append(out, describe(it.V)+dropped(it.Dropped))
		}
	}
	if len(out) > n {
		t.Errorf("the listener got %v, want %d events", out, n)
	}
	return out
}

func dropped(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("+%d", n)
}

func describe(m *mcpbridgev1.SubscribeResponse) string {
	switch {
	case m.GetToolsListChanged() != nil:
		return "tools"
	case m.GetPromptsListChanged() != nil:
		return "prompts"
	case m.GetResourcesListChanged() != nil:
		return "resources"
	case m.GetResourceUpdated() != nil:
		return "updated " + m.GetResourceUpdated().GetUri()
	case m.GetLog() != nil:
		return "log " + m.GetLog().GetData().GetStringValue()
	}
	return m.String()
}

// noEvents checks that nothing is queued for l.
func noEvents(t *testing.T, l *Listener, who string) {
	t.Helper()
	if got := l.Events.Take(); len(got) > 0 {
		t.Errorf("%s got %d events it did not ask for: %v", who, len(got), describe(got[0].V))
	}
}

func acknowledge(t *testing.T, p *peer, id json.RawMessage, accepted string) {
	t.Helper()
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":`+accepted+
		`,"_meta":{"`+protocol.MetaSubscriptionID+`":`+string(id)+`}}}`)
}

func event(t *testing.T, p *peer, id json.RawMessage, method, params string) {
	t.Helper()
	meta := `"_meta":{"` + protocol.MetaSubscriptionID + `":` + string(id) + `}`
	if params == "" {
		params = `{` + meta + `}`
	} else {
		params = params[:len(params)-1] + `,` + meta + `}`
	}
	p.write(t, `{"jsonrpc":"2.0","method":"`+method+`","params":`+params+`}`)
}

func ready(t *testing.T, s *SharedListen) {
	t.Helper()
	within(t, s.Ready, "the listen's acknowledgement")
}

// TestListensShared: streams whose filters a listen covers share it, one
// that asks for more opens another; each stream gets the events its own
// filter, narrowed by what the child accepted, wants; the last stream
// to leave closes the listen on the child.
func TestListensShared(t *testing.T) {
	c, p, _ := connect(t, childConfig{version: protocol.Version20260728})
	h := NewListens(c)
	opts := stdio.ListenOptions{Timeout: wait, MaxBuffer: StreamBuffer}

	l1 := NewListener(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourcesListChanged: true,
		ResourceSubscriptions: []string{"file:///a", "file:///a", "file:///z"}, LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO})
	s1 := h.Join(l1, json.RawMessage(`{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a","file:///z"]}`), opts)
	req := p.expect(t, "subscriptions/listen")
	if !jsonEqual(member(req.Params, "notifications"), `{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a","file:///z"]}`) {
		t.Errorf("listen params %s", req.Params)
	}
	l2 := NewListener(&mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"file:///a/b"}})
	if s := h.Join(l2, nil, opts); s != s1 {
		t.Error("a stream the opening listen covers did not join it")
	}
	p.none(t)
	// The child accepts the tools and file:///a, not the resource list or
	// file:///z.
	acknowledge(t, p, req.ID, `{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}`)
	ready(t, s1)
	if s1.OpenErr != nil {
		t.Fatalf("OpenErr = %v", s1.OpenErr)
	}
	if got := l1.Filter.Ack(); !got.GetToolsListChanged() || got.GetResourcesListChanged() || !slices.Equal(got.GetResourceSubscriptions(), []string{"file:///a"}) {
		t.Errorf("l1's acknowledgement %v, want its request within what the child accepted", got)
	}
	if got := l2.Filter.Ack(); got.GetToolsListChanged() || !slices.Equal(got.GetResourceSubscriptions(), []string{"file:///a/b"}) {
		t.Errorf("l2's acknowledgement %v, want file:///a/b alone", got)
	}
	l4 := NewListener(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	if s := h.Join(l4, nil, opts); s != s1 || !l4.Filter.tools {
		t.Error("a covered stream joining an acknowledged listen did not get its filter at once")
	}
	l3 := NewListener(&mcpbridgev1.SubscribeRequest{PromptsListChanged: true})
	s3 := h.Join(l3, json.RawMessage(`{"promptsListChanged":true}`), opts)
	if s3 == s1 {
		t.Fatal("a stream that asks for more joined a listen that does not cover it")
	}
	req3 := p.expect(t, "subscriptions/listen")
	acknowledge(t, p, req3.ID, `{"promptsListChanged":true}`)
	ready(t, s3)

	event(t, p, req.ID, "notifications/tools/list_changed", "")
	event(t, p, req.ID, "notifications/resources/updated", `{"uri":"file:///a/b"}`)
	event(t, p, req.ID, "notifications/resources/updated", `{"uri":"file:///a/c"}`)
	event(t, p, req.ID, "notifications/resources/list_changed", "") // accepted by nobody's filter
	event(t, p, req.ID, "notifications/message", `{"level":"debug","data":"d"}`)
	event(t, p, req.ID, "notifications/message", `{"level":"warning","data":"w"}`)
	event(t, p, req3.ID, "notifications/prompts/list_changed", "")
	if got := events(t, l1, 4); !slices.Equal(got, []string{"tools", "updated file:///a/b", "updated file:///a/c", "log w"}) {
		t.Errorf("l1 got %v", got)
	}
	if got := events(t, l2, 1); !slices.Equal(got, []string{"updated file:///a/b"}) {
		t.Errorf("l2 got %v", got)
	}
	if got := events(t, l4, 1); !slices.Equal(got, []string{"tools"}) {
		t.Errorf("l4 got %v", got)
	}
	if got := events(t, l3, 1); !slices.Equal(got, []string{"prompts"}) {
		t.Errorf("l3 got %v", got)
	}
	noEvents(t, l1, "l1")
	noEvents(t, l2, "l2")

	h.Leave(s1, l1)
	h.Leave(s1, l2)
	p.none(t) // l4 still listens
	select {
	case <-s1.Done:
		t.Fatal("the listen ended while a stream still used it")
	default:
	}
	h.Leave(s1, l4)
	if n := p.expect(t, "notifications/cancelled"); member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("the last leave cancelled %s, want the listen %s", n.Params, req.ID)
	}
	within(t, s1.Done, "the listen's pump to end")

	// The child ends s3: a new stream asking the same opens a new listen.
	p.reply(t, req3.ID, `{"resultType":"complete"}`)
	within(t, s3.Done, "the ended listen's pump to end")
	if !errors.Is(s3.EndErr, io.EOF) {
		t.Errorf("EndErr = %v, want io.EOF for a listen the child ended", s3.EndErr)
	}
	l5 := NewListener(&mcpbridgev1.SubscribeRequest{PromptsListChanged: true})
	s5 := h.Join(l5, json.RawMessage(`{"promptsListChanged":true}`), opts)
	if s5 == s3 {
		t.Error("a stream joined a listen the child ended")
	}
	h.Leave(s3, l3) // nothing to stop
	req5 := p.expect(t, "subscriptions/listen")
	acknowledge(t, p, req5.ID, `{"promptsListChanged":true}`)
	ready(t, s5)
	h.Leave(s5, l5)
	p.expect(t, "notifications/cancelled")
}

// TestListenOpenFails: every stream waiting for a listen gets its
// failure; only one that asked for less than the listen and was refused
// by the child opens a listen of its own (Retryable).
func TestListenOpenFails(t *testing.T) {
	c, p, _ := connect(t, childConfig{version: protocol.Version20260728})
	h := NewListens(c)
	opts := stdio.ListenOptions{Timeout: wait}
	wide := NewListener(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true, PromptsListChanged: true})
	narrow := NewListener(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	s := h.Join(wide, json.RawMessage(`{"toolsListChanged":true,"promptsListChanged":true}`), opts)
	if h.Join(narrow, nil, opts) != s {
		t.Fatal("the narrow stream did not join")
	}
	req := p.expect(t, "subscriptions/listen")
	p.write(t, errorLine(req.ID, jsonrpc.CodeInvalidParams, "prompts are not listened to"))
	ready(t, s)
	var e *jsonrpc.Error
	if !errors.As(s.OpenErr, &e) || e.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("OpenErr = %v, want the child's -32602", s.OpenErr)
	}
	if s.Retryable(wide) {
		t.Error("Retryable for the stream that asked for all of it")
	}
	if !s.Retryable(narrow) {
		t.Error("not Retryable for a stream that asked for less")
	}
	within(t, s.Done, "the failed listen's pump to end")
	h.Leave(s, wide)
	h.Leave(s, narrow)
	// The failed listen is no longer joinable.
	again := NewListener(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	s2 := h.Join(again, json.RawMessage(`{"toolsListChanged":true}`), opts)
	if s2 == s {
		t.Fatal("a stream joined a listen that failed to open")
	}
	req = p.expect(t, "subscriptions/listen")
	// The child's death is everyone's failure: no retry.
	c.Close()
	ready(t, s2)
	if s2.OpenErr == nil || s2.Retryable(again) || s2.Retryable(NewListener(&mcpbridgev1.SubscribeRequest{})) {
		t.Errorf("OpenErr = %v, and a retry offered for a dead child", s2.OpenErr)
	}
	h.Leave(s2, again)
	_ = req
}

// TestFanOutDrops: a stream's queue holds StreamBuffer events and drops
// the oldest, counting the drops on the next event it gets; drops of the
// listen's own buffer count on the next event of every stream of it,
// whether or not it wanted the event dropped.
func TestFanOutDrops(t *testing.T) {
	h := &Listens{}
	l := NewListener(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	l.Filter = l.want
	other := NewListener(&mcpbridgev1.SubscribeRequest{PromptsListChanged: true})
	other.Filter = other.want
	s := &SharedListen{members: map[*Listener]struct{}{l: {}, other: {}}}
	tools := stdio.Event{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`)}
	for range StreamBuffer + 36 {
		h.fanOut(s, tools)
	}
	items := l.Events.Take()
	if len(items) != StreamBuffer || items[0].Dropped != 36 {
		t.Errorf("the stream kept %d events, the first with %d drops; want %d and 36", len(items), items[0].Dropped, StreamBuffer)
	}
	noEvents(t, other, "the prompts stream")

	h.fanOut(s, stdio.Event{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`), Dropped: 5})
	h.fanOut(s, stdio.Event{Method: "notifications/prompts/list_changed", Params: json.RawMessage(`{}`), Dropped: 2})
	if got := events(t, l, 1); !slices.Equal(got, []string{"tools+5"}) {
		t.Errorf("the tools stream got %v, want the listen's 5 drops on its event", got)
	}
	if got := events(t, other, 1); !slices.Equal(got, []string{"prompts+7"}) {
		t.Errorf("the prompts stream got %v, want all 7 drops of the listen on its next event", got)
	}
	h.fanOut(s, tools)
	if got := events(t, l, 1); !slices.Equal(got, []string{"tools+2"}) {
		t.Errorf("the tools stream got %v, want the 2 drops since its last event only", got)
	}
	// An event nobody can carry (an update without a URI) is no event.
	h.fanOut(s, stdio.Event{Method: "notifications/resources/updated", Params: json.RawMessage(`{}`)})
	noEvents(t, l, "the tools stream")
}

// TestFilterCovers: a listen covers a stream when it asks for every list
// change the stream asks for and, for each of the stream's URIs, the same
// URI or a parent of it.
func TestFilterCovers(t *testing.T) {
	f := func(tools, prompts, resources bool, uris ...string) Filter {
		return Filter{tools: tools, prompts: prompts, resources: resources, uris: uris}
	}
	for _, tc := range []struct {
		listen, stream Filter
		want           bool
	}{
		{f(true, true, true), f(true, false, false), true},
		{f(true, false, false), f(false, true, false), false},
		{f(false, false, true), f(false, false, true), true},
		{f(false, false, false), f(false, false, true), false},
		{f(false, false, false, "file:///a"), f(false, false, false, "file:///a/b", "file:///a"), true},
		{f(false, false, false, "file:///a/b"), f(false, false, false, "file:///a"), false},
		{f(false, false, false), f(false, false, false), true},
	} {
		if got := tc.listen.covers(tc.stream); got != tc.want {
			t.Errorf("%+v covers %+v = %v, want %v", tc.listen, tc.stream, got, tc.want)
		}
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
