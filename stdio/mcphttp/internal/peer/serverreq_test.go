package peer

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// reply is the next message Raw sent, which must be a response to id.
func (c *testConn) reply(t *testing.T, id string) wire.Message {
	t.Helper()
	m := c.next(t)
	if m.Kind != wire.KindResponse || string(m.ID) != id {
		t.Fatalf("Raw sent %s %s id %s, want a response to %s", m.Kind, m.Method, m.ID, id)
	}
	return m
}

// replyError is reply, which must be an error.
func (c *testConn) replyError(t *testing.T, id string) *wire.Error {
	t.Helper()
	m := c.reply(t, id)
	e, ok := wire.DecodeError(m.Error)
	if !ok || m.HasResult() {
		t.Fatalf("response %s %s, want an error", m.Result, m.Error)
	}
	return e
}

// TestServerRequest: the server's request reaches OnServerRequest (params
// compacted) and its answer goes back under the server's id, as given:
// a result compacted, a *jsonrpc.Error with its code, message and data,
// any other error, an invalid result or a panic as -32603.
func TestServerRequest(t *testing.T) {
	type answer struct {
		res json.RawMessage
		err error
		pan bool
	}
	answers := make(chan answer, 1)
	reqs := make(chan stdio.ServerRequest, 1)
	r := newRig(t, stdio.ClientConfig{OnServerRequest: func(_ context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
		reqs <- req
		a := <-answers
		if a.pan {
			panic("handler bug")
		}
		return a.res, a.err
	}}, "")

	answers <- answer{res: json.RawMessage(`{ "model" : "m" }`)}
	r.c.push(t, `{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{ "x" : 1 }}`)
	req := <-reqs
	if string(req.ID) != `"s-1"` || req.Method != "sampling/createMessage" || string(req.Params) != `{"x":1}` {
		t.Errorf("handler got %s %s %s", req.ID, req.Method, req.Params)
	}
	if m := r.c.reply(t, `"s-1"`); string(m.Result) != `{"model":"m"}` || m.HasError() {
		t.Errorf("result %s error %s", m.Result, m.Error)
	}

	for i, tc := range []struct {
		a       answer
		code    int64
		message string
		data    string
	}{
		{answer{err: jsonrpc.WithData(-32042, "needs a URL", map[string]int{"n": 1})}, -32042, "needs a URL", `{"n":1}`},
		{answer{err: errors.New("private detail")}, jsonrpc.CodeInternalError, "Server request handler failed", ""},
		{answer{res: json.RawMessage(`{"broken"`)}, jsonrpc.CodeInternalError, "Server request handler returned an invalid result", ""},
		{answer{pan: true}, jsonrpc.CodeInternalError, "Server request handler panicked", ""},
	} {
		answers <- tc.a
		id := strconv.Itoa(100 + i)
		r.c.push(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"elicitation/create"}`)
		if req := <-reqs; req.Params != nil {
			t.Errorf("params %s, want none", req.Params)
		}
		e := r.c.replyError(t, id)
		if e.Code != tc.code || e.Message != tc.message || string(e.Data) != tc.data {
			t.Errorf("case %d: error %d %q %s, want %d %q %s", i, e.Code, e.Message, e.Data, tc.code, tc.message, tc.data)
		}
	}
	if !contains(r.log.String(), "server request handler panicked") {
		t.Errorf("the panic was not logged:\n%s", r.log)
	}
}

// TestServerPing: the server's ping is answered {} without the handler.
func TestServerPing(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{OnServerRequest: func(context.Context, stdio.ServerRequest) (json.RawMessage, error) {
		t.Error("the handler got ping")
		return nil, nil
	}}, "")
	r.c.push(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if m := r.c.reply(t, "9"); string(m.Result) != `{}` {
		t.Errorf("ping result %s", m.Result)
	}
}

// TestServerRequestNoHandler: without OnServerRequest the server's
// request gets -32601.
func TestServerRequestNoHandler(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	r.c.push(t, `{"jsonrpc":"2.0","id":3,"method":"roots/list"}`)
	if e := r.c.replyError(t, "3"); e.Code != jsonrpc.CodeMethodNotFound || e.Message != "Method not found: roots/list" {
		t.Errorf("error %d %q", e.Code, e.Message)
	}
}

// TestServerRequestCancelled: the server's notifications/cancelled for its
// request ends the handler's ctx, and nothing is answered; a request
// whose id is being answered gets -32600, and beyond
// rawMaxServerRequests at once -32603 retryable.
func TestServerRequestCancelled(t *testing.T) {
	started := make(chan string, rawMaxServerRequests+1)
	ended := make(chan string, rawMaxServerRequests+1)
	release := make(chan struct{})
	r := newRig(t, stdio.ClientConfig{OnServerRequest: func(ctx context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
		started <- string(req.ID)
		select {
		case <-ctx.Done():
			ended <- string(req.ID)
			return nil, ctx.Err()
		case <-release:
			return json.RawMessage(`{}`), nil
		}
	}}, "")
	for i := range rawMaxServerRequests {
		r.c.push(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"sampling/createMessage"}`)
	}
	for range rawMaxServerRequests {
		<-started
	}
	r.c.push(t, `{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage"}`)
	if e := r.c.replyError(t, "0"); e.Code != jsonrpc.CodeInvalidRequest || e.Message != "Duplicate server request id" {
		t.Errorf("duplicate: %d %q", e.Code, e.Message)
	}
	r.c.push(t, `{"jsonrpc":"2.0","id":"more","method":"sampling/createMessage"}`)
	e := r.c.replyError(t, `"more"`)
	if e.Code != jsonrpc.CodeInternalError || !contains(e.Message, "Too many server requests") ||
		string(member(t, e.Data, "retryable")) != "true" || string(member(t, e.Data, "limit")) != strconv.Itoa(rawMaxServerRequests) {
		t.Errorf("too many: %d %q %s", e.Code, e.Message, e.Data)
	}

	r.c.push(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"no longer needed"}}`)
	timer := waitTimer(t)
	select {
	case id := <-ended:
		if id != "3" {
			t.Errorf("the handler of %s ended, want 3", id)
		}
	case <-timer:
		t.Fatal("the cancelled handler's ctx did not end")
	}
	r.barrier(t) // the cancellation was not a notification for the client
	close(release)
	got := map[string]bool{}
	for range rawMaxServerRequests - 1 {
		got[string(r.c.next(t).ID)] = true
	}
	if got["3"] || len(got) != rawMaxServerRequests-1 {
		t.Errorf("answered %v, want all but 3", got)
	}
}
