package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// offered opens an opted-in stream whose offered requests arrive on the
// returned channel.
func offered(r *Relay, ctx context.Context, call bool) (*StreamReg, chan *mcpbridgev1.ServerRequest) {
	ch := make(chan *mcpbridgev1.ServerRequest, 16)
	g := r.OpenStream(ctx, call, true, func(m *mcpbridgev1.ServerRequest) error {
		ch <- m
		return nil
	})
	return g, ch
}

// TestServerRequestsToStreams: with no tunnel, a legacy child's request is
// offered to the opted-in streams as a ServerRequest (a minted id, the
// child's method, params and id, the server, an expiry, the stream's
// routing key); the first answer with a stream's routing key goes to the
// child, a later one is refused.
func TestServerRequestsToStreams(t *testing.T) {
	_, p, r := connect(t, childConfig{})
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(SessionMetadataKey, "sess-1"))
	g, ch := offered(r, ctx, true)
	defer g.Close()
	quiet := r.OpenStream(context.Background(), false, false, nil) // not opted in
	defer quiet.Close()

	p.write(t, `{"jsonrpc":"2.0","id":"c-1","method":"sampling/createMessage","params":{"messages":[]}}`)
	m := within(t, ch, "offered request")
	if !strings.HasPrefix(m.Id, "sr-") || m.Method != "sampling/createMessage" || m.ParamsJson != `{"messages":[]}` ||
		m.ChildRequestIdJson != `"c-1"` || m.Server != "s" || m.RoutingKey != "sess-1" {
		t.Errorf("offered %v", m)
	}
	if exp := m.ExpireTime.AsTime(); exp.Before(time.Now()) || exp.After(time.Now().Add(wait+time.Second)) {
		t.Errorf("expiry %v, want within the relay's timeout", exp)
	}
	if r.Respond(m.Id, "", "other", Outcome{Result: json.RawMessage(`{}`)}) {
		t.Error("Respond with another routing key = true")
	}
	if !r.Respond(m.Id, "", "sess-1", Outcome{Result: json.RawMessage(`{"role":"assistant"}`)}) {
		t.Fatal("Respond = false, want the answer taken")
	}
	ans := p.next(t)
	if string(ans.ID) != `"c-1"` || string(ans.Result) != `{"role":"assistant"}` {
		t.Errorf("the child got %s, want the answer under its id", ans)
	}
	if r.Respond(m.Id, "", "sess-1", Outcome{Result: json.RawMessage(`{}`)}) {
		t.Error("a second Respond = true, want the request forgotten")
	}

	// An error answer reaches the child as it is.
	p.write(t, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
	m = within(t, ch, "offered request")
	r.Respond(m.Id, "", "sess-1", Outcome{Err: jsonrpc.Errorf(-1, "declined")})
	if ans := p.next(t); string(ans.ID) != `2` || ans.Error == nil || ans.Error.Code != -1 || ans.Error.Message != "declined" {
		t.Errorf("the child got %s, want the caller's error", ans)
	}
}

// TestServerRequestsToStreamsUnanswered: a request not answered within
// the relay's timeout, or whose streams all ended, gets -32603 on the
// child and is forgotten; one the child cancels is forgotten too and gets
// no answer.
func TestServerRequestsToStreamsUnanswered(t *testing.T) {
	r := NewRelay("s", nil, 200*time.Millisecond, false, slog.New(slog.DiscardHandler))
	_, p, _ := connect(t, childConfig{relay: r})
	g, ch := offered(r, context.Background(), false)

	p.write(t, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
	m := within(t, ch, "offered request")
	ans := p.next(t)
	if string(ans.ID) != `1` || ans.Error == nil || ans.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(ans.Error.Message, "in time") {
		t.Errorf("the child got %s, want -32603: not answered in time", ans)
	}
	if r.Respond(m.Id, "", "", Outcome{Result: json.RawMessage(`{}`)}) {
		t.Error("Respond after the timeout = true")
	}

	g.Close()

	// The rest with a timeout that does not come into play.
	r = NewRelay("s", nil, time.Minute, false, slog.New(slog.DiscardHandler))
	_, p, _ = connect(t, childConfig{relay: r})
	g, ch = offered(r, context.Background(), false)

	// The child cancels its request: nothing is written, and the request is
	// forgotten.
	p.write(t, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
	m = within(t, ch, "offered request")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	eventually(t, "the cancelled request is forgotten", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.pending[m.Id] == nil
	})
	if r.Respond(m.Id, "", "", Outcome{Result: json.RawMessage(`{}`)}) {
		t.Error("Respond after the child cancelled = true")
	}

	// The only receiving stream ends before answering.
	p.write(t, `{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{}}`)
	within(t, ch, "offered request")
	g.Close()
	ans = p.next(t)
	if string(ans.ID) != `3` || ans.Error == nil || !strings.Contains(ans.Error.Message, "ended before answering") {
		t.Errorf("the child got %s, want -32603: every stream ended", ans)
	}
	// Nobody is left: -32601 at once.
	p.write(t, `{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{}}`)
	if ans := p.next(t); string(ans.ID) != `4` || ans.Error == nil || ans.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("the child got %s, want -32601", ans)
	}
}

// TestStreamSendFailure: a stream whose send fails leaves the routing: a
// request only it received fails at once; later ones go to the others.
func TestStreamSendFailure(t *testing.T) {
	_, p, r := connect(t, childConfig{})
	broken := r.OpenStream(context.Background(), false, true, func(*mcpbridgev1.ServerRequest) error {
		return errors.New("the stream broke")
	})
	defer broken.Close()
	p.write(t, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
	if ans := p.next(t); string(ans.ID) != `1` || ans.Error == nil || !strings.Contains(ans.Error.Message, "ended before answering") {
		t.Errorf("the child got %s, want -32603: its only stream failed", ans)
	}
	g, ch := offered(r, context.Background(), false)
	defer g.Close()
	p.write(t, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
	m := within(t, ch, "offered request")
	r.Respond(m.Id, "", "", Outcome{Result: json.RawMessage(`{"action":"cancel"}`)})
	if ans := p.next(t); string(ans.ID) != `2` || string(ans.Result) != `{"action":"cancel"}` {
		t.Errorf("the child got %s, want the working stream's answer", ans)
	}
}

// TestServerRequestsToStreamsByPrincipal: with authentication a request
// is offered only to the streams of the principal whose calls are in
// flight, and answered only by that principal.
func TestServerRequestsToStreamsByPrincipal(t *testing.T) {
	r := NewRelay("s", nil, wait, true, slog.New(slog.DiscardHandler))
	_, p, _ := connect(t, childConfig{relay: r})
	a, fromA := offered(r, as("alice"), false)
	defer a.Close()
	b, fromB := offered(r, as("bob"), false)
	defer b.Close()
	defer r.Enter(as("alice"))() // alice's call in flight

	p.write(t, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
	m := within(t, fromA, "alice's offered request")
	select {
	case m := <-fromB:
		t.Errorf("bob was offered %v", m)
	default:
	}
	if r.Respond(m.Id, "apikey:bob", "", Outcome{Result: json.RawMessage(`{}`)}) {
		t.Error("bob answered alice's request")
	}
	if !r.Respond(m.Id, "apikey:alice", "", Outcome{Result: json.RawMessage(`{"by":"alice"}`)}) {
		t.Error("alice could not answer her request")
	}
	if ans := p.next(t); string(ans.Result) != `{"by":"alice"}` {
		t.Errorf("the child got %s", ans)
	}
}

// TestLockedSend: the send of a stream is serialised across goroutines.
func TestLockedSend(t *testing.T) {
	var inside, most int
	var mu sync.Mutex
	send := LockedSend(func(int) error {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		inside--
		mu.Unlock()
		return nil
	})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { send(i) })
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d sends at once, want 1", most)
	}
}
