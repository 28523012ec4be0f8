package fanout

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"go.uber.org/goleak"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestServerRequestRouting checks which registered streams the relay
// offers a request to: the lone call in flight when it opted in, else
// every opted-in stream.
func TestServerRequestRouting(t *testing.T) {
	r := NewRelay("s", nil, time.Minute, false, slog.New(slog.DiscardHandler))
	reg := func(call, optIn bool) *StreamReg {
		return r.OpenStream(context.Background(), call, optIn, func(*mcpbridgev1.ServerRequest) error { return nil })
	}
	req := stdio.ServerRequest{ID: json.RawMessage(`1`), Method: "sampling/createMessage"}
	offer := func() []*StreamReg {
		p := r.Offer(MintID(), req)
		if p == nil {
			return nil
		}
		targets := p.targets
		r.forget(p)
		return targets
	}
	sub := reg(false, true)
	if got := offer(); len(got) != 1 || got[0] != sub {
		t.Errorf("only an opted-in Subscribe: offered to %d streams, want it alone", len(got))
	}
	stream := reg(true, true)
	if got := offer(); len(got) != 1 || got[0] != stream {
		t.Errorf("one call in flight, an opted-in stream: offered to %d streams, want that stream alone", len(got))
	}
	leave := r.Enter(context.Background()) // a unary call joins
	if got := offer(); len(got) != 2 {
		t.Errorf("two calls in flight: offered to %d streams, want both opted-in streams", len(got))
	}
	leave()
	other := reg(true, false) // in flight, not opted in
	if got := offer(); len(got) != 2 {
		t.Errorf("two calls in flight, one opted in: offered to %d streams, want both opted-in streams", len(got))
	}
	other.Close()
	stream.Close()
	sub.Close()
	if got := offer(); got != nil {
		t.Errorf("every stream closed: offered to %d streams, want none", len(got))
	}
	if r.calls != 0 {
		t.Errorf("calls after every stream closed = %d, want 0", r.calls)
	}
}

// BenchmarkListenFanOut measures what one event of a shared listen costs
// the bridge per stream that shares it: the pump converts it once and
// queues it for every listener that wants it, and each stream's handler
// takes its queue (every 32 events here; the gRPC send is not counted).
// "matching" streams want the event, "filtered" ones asked for another
// URI. ns/delivery is the time per event per stream.
func BenchmarkListenFanOut(b *testing.B) {
	ev := stdio.Event{
		Method: "notifications/resources/updated",
		Params: json.RawMessage(`{"uri":"test://r","_meta":{"io.modelcontextprotocol/subscriptionId":7}}`),
	}
	for _, uri := range []string{"test://r", "test://other"} {
		kind := "matching"
		if uri != "test://r" {
			kind = "filtered"
		}
		for _, n := range []int{1, 100, 10000} {
			b.Run(fmt.Sprintf("%s/streams=%d", kind, n), func(b *testing.B) {
				h := &Listens{}
				s := &SharedListen{members: map[*Listener]struct{}{}}
				ls := make([]*Listener, n)
				for i := range ls {
					ls[i] = NewListener(&mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{uri}})
					ls[i].Filter = ls[i].want
					s.members[ls[i]] = struct{}{}
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					h.fanOut(s, ev)
					if i%32 == 31 {
						for _, l := range ls {
							l.Events.Take()
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delivery")
			})
		}
	}
}

// sinkOf is a Sink of a principal that keeps what it is given.
type sinkOf struct {
	who string
	got []string
}

func (s *sinkOf) Principal() string           { return s.who }
func (s *sinkOf) Notify(n stdio.Notification) { s.got = append(s.got, n.Method) }

// TestOwnerTakesTheUnattributed: with authentication, a log message sent
// while no call is in flight goes to no one, unless the relay's child
// serves one principal (Owner, a tunnel's private child): then to that
// principal's sinks, and still to no one else's.
func TestOwnerTakesTheUnattributed(t *testing.T) {
	for _, owner := range []string{"", "apikey:alice"} {
		r := NewRelay("s", nil, time.Minute, true, slog.New(slog.DiscardHandler))
		r.Owner = owner
		alice, bob := &sinkOf{who: "apikey:alice"}, &sinkOf{who: "apikey:bob"}
		r.AddSink(alice)
		r.AddSink(bob)
		r.onNotification(stdio.Notification{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"x"}`)})
		want := 0
		if owner != "" {
			want = 1
		}
		if len(alice.got) != want || len(bob.got) != 0 {
			t.Errorf("Owner %q: alice got %v, bob %v; want %d for alice, none for bob", owner, alice.got, bob.got, want)
		}
	}
}
