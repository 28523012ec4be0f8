package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"
)

// scripted is the far end of a Client made by Open whose test reads each
// line the Client writes and writes the answers itself.
type scripted struct {
	lines chan map[string]json.RawMessage
	out   *io.PipeWriter
}

func openScripted(t *testing.T) (*Client, *scripted) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &scripted{lines: make(chan map[string]json.RawMessage, 64), out: outW}
	c, err := Open(inW, outR, ClientConfig{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				s.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		outW.Close()
		inR.Close()
		<-done
		<-c.Done()
	})
	return c, s
}

// next is the next line the Client wrote.
func (s *scripted) next(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	select {
	case m := <-s.lines:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("the Client wrote nothing for 10 s")
		return nil
	}
}

func (s *scripted) write(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.out, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// TestCallersOwnIDAndToken: with CallOptions.ID and ProgressToken, the
// server sees the caller's id and progress token as the caller gave them,
// its progress reaches the caller under that token, and a cancellation
// names the caller's id with the caller's reason. An id the Client's own
// request holds is not reused: the request goes under one of the Client's.
func TestCallersOwnIDAndToken(t *testing.T) {
	c, s := openScripted(t)
	ctx := context.Background()

	type outcome struct {
		res json.RawMessage
		err error
	}
	got := make(chan outcome, 1)
	progress := make(chan json.RawMessage, 4)
	go func() {
		res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"slow"}`), &CallOptions{Verbatim: true,
			ID: json.RawMessage(`"host-7"`), ProgressToken: json.RawMessage(`7`),
			Progress: func(p Progress) { progress <- p.Raw }})
		got <- outcome{res, err}
	}()
	req := s.next(t)
	var params struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(req["params"], &params)
	if string(req["id"]) != `"host-7"` || string(params.Meta.ProgressToken) != `7` {
		t.Errorf("the server got id %s and progress token %s, want the caller's \"host-7\" and 7", req["id"], params.Meta.ProgressToken)
	}
	s.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`)
	s.write(t, `{"jsonrpc":"2.0","id":"host-7","result":{"ok":true}}`)
	if o := <-got; o.err != nil || string(o.res) != `{"ok":true}` {
		t.Errorf("Call = %s, %v", o.res, o.err)
	}
	select {
	case p := <-progress:
		if string(p) != `{"progressToken":7,"progress":1}` {
			t.Errorf("progress %s, want the caller's token as it is", p)
		}
	default:
		t.Error("no progress reached the caller")
	}

	// A cancellation with the caller's reason names the caller's id.
	cctx, cancel := context.WithCancelCause(ctx)
	go func() {
		_, err := c.Call(cctx, "tools/call", json.RawMessage(`{"name":"hang"}`), &CallOptions{ID: json.RawMessage(`8`)})
		got <- outcome{nil, err}
	}()
	if req := s.next(t); string(req["id"]) != `8` {
		t.Fatalf("the server got id %s, want 8", req["id"])
	}
	cancel(CancelReason{Reason: "host-reason-8423", Given: true})
	<-got
	note := s.next(t)
	if string(note["method"]) != `"notifications/cancelled"` || string(note["params"]) != `{"requestId":8,"reason":"host-reason-8423"}` {
		t.Errorf("the server got %s %s, want notifications/cancelled of 8 with the caller's reason", note["method"], note["params"])
	}

	// The Client's own request in flight holds its id: a caller's request
	// naming it goes under another, and both are answered.
	go func() {
		res, err := c.Call(ctx, "ping", nil, nil)
		got <- outcome{res, err}
	}()
	own := s.next(t)
	ownID := string(own["id"])
	go func() {
		res, err := c.Call(ctx, "tools/call", json.RawMessage(`{}`), &CallOptions{ID: json.RawMessage(ownID)})
		got <- outcome{res, err}
	}()
	theirs := s.next(t)
	if string(theirs["id"]) == ownID {
		t.Fatalf("the caller's request went under %s, which the Client's own request in flight holds", ownID)
	}
	s.write(t, `{"jsonrpc":"2.0","id":`+string(theirs["id"])+`,"result":{"who":"caller"}}`)
	s.write(t, `{"jsonrpc":"2.0","id":`+ownID+`,"result":{"who":"own"}}`)
	answers := map[string]bool{}
	for range 2 {
		o := <-got
		if o.err != nil {
			t.Fatal(o.err)
		}
		answers[string(o.res)] = true
	}
	if !answers[`{"who":"caller"}`] || !answers[`{"who":"own"}`] {
		t.Errorf("answers %v, want each call its own", answers)
	}

	// A caller's integer id in flight is not minted for the Client's own.
	next := strconv.FormatInt(c.nextID.Load()+1, 10)
	go func() {
		_, err := c.Call(ctx, "tools/call", json.RawMessage(`{}`), &CallOptions{ID: json.RawMessage(next)})
		got <- outcome{nil, err}
	}()
	if req := s.next(t); string(req["id"]) != next {
		t.Fatalf("the caller's request went under %s, want its own %s", req["id"], next)
	}
	go func() {
		res, err := c.Call(ctx, "ping", nil, nil)
		got <- outcome{res, err}
	}()
	if mine := s.next(t); string(mine["id"]) == next {
		t.Errorf("the Client minted %s, which a caller's request in flight holds", next)
	} else {
		s.write(t, `{"jsonrpc":"2.0","id":`+string(mine["id"])+`,"result":{}}`)
	}
	s.write(t, `{"jsonrpc":"2.0","id":`+next+`,"result":{}}`)
	for range 2 {
		if o := <-got; o.err != nil {
			t.Error(o.err)
		}
	}
}
