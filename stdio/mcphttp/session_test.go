package mcphttp

import (
	"context"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"sampling":{}},"clientInfo":{"name":"mcphttp-test","version":"0"}}}`

// open starts a 2025 session and returns its id.
func open(t *testing.T, url string) string {
	t.Helper()
	status, h, msgs := post(t, url, request{body: initialize})
	sid := h.Get("Mcp-Session-Id")
	if status != http.StatusOK || sid == "" || len(msgs) != 1 || field(t, msgs[0], "result", "protocolVersion") != "2025-11-25" {
		t.Fatalf("initialize: status %d, session %q, messages %s", status, sid, msgs)
	}
	if status, _, _ := post(t, url, request{session: sid, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, want 202", status)
	}
	return sid
}

// getStream opens a session's GET stream until the test ends.
func getStream(t *testing.T, url, sid string) (*http.Response, *events) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, newEvents(resp.Body)
}

func TestSession(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	sid := open(t, url)
	in := func(body string) request { return request{session: sid, body: body} }

	get, stream := getStream(t, url, sid)
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: status %d, want 200", get.StatusCode)
	}
	if second, _ := getStream(t, url, sid); second.StatusCode != http.StatusConflict {
		t.Errorf("a second GET: status %d, want 409", second.StatusCode)
	}

	t.Run("progress and logs on the POST stream", func(t *testing.T) {
		_, _, msgs := post(t, url, in(`{"jsonrpc":"2.0","id":"p","method":"test/progress","params":{"_meta":{"progressToken":"tok"}}}`))
		var got []string
		for _, m := range msgs {
			got = append(got, raw(t, m, "method")+" "+raw(t, m, "params", "progressToken")+" "+raw(t, m, "id"))
		}
		want := []string{
			`"notifications/progress" "tok" null`,
			`"notifications/progress" "tok" null`,
			`"notifications/message" null null`,
			`null null "p"`,
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("stream %q, want %q", got, want)
		}
	})

	t.Run("other notifications on the GET stream", func(t *testing.T) {
		call(t, url, in(`{"jsonrpc":"2.0","id":1,"method":"test/notify"}`))
		ev, err := stream.next()
		if err != nil || field(t, ev, "method") != "notifications/resources/updated" {
			t.Errorf("GET stream: %s, %v; want notifications/resources/updated", ev, err)
		}
	})

	t.Run("a server request and its answer", func(t *testing.T) {
		resp := send(context.Background(), t, url, in(`{"jsonrpc":"2.0","id":5,"method":"test/ask"}`))
		defer resp.Body.Close()
		events := newEvents(resp.Body)
		req, err := events.next()
		if err != nil || field(t, req, "method") != "sampling/createMessage" {
			t.Fatalf("first message on the POST stream: %s, %v; want sampling/createMessage", req, err)
		}
		answer := `{"jsonrpc":"2.0","id":` + raw(t, req, "id") + `,"result":{"model":"m"}}`
		if status, _, _ := post(t, url, in(answer)); status != http.StatusAccepted {
			t.Errorf("POST of the answer: status %d, want 202", status)
		}
		res, err := events.next()
		if err != nil || raw(t, res, "id") != "5" || raw(t, res, "result", "answer", "result") != `{"model":"m"}` {
			t.Errorf("response %s, %v; want id 5 with the answer", res, err)
		}
	})

	t.Run("a server request outlives the stream that carried it", func(t *testing.T) {
		// The request comes while a short POST is the newest; that POST
		// ends before the client answers, and the answer still reaches
		// the child (a task's question while a tasks/get polls).
		call(t, url, in(`{"jsonrpc":"2.0","id":20,"method":"test/ask-later","params":{"delayMs":500}}`))
		resp := send(context.Background(), t, url, in(`{"jsonrpc":"2.0","id":21,"method":"test/hold","params":{"ms":1500}}`))
		defer resp.Body.Close()
		events := newEvents(resp.Body)
		req, err := events.next()
		if err != nil || field(t, req, "method") != "sampling/createMessage" {
			t.Fatalf("first message on the short POST: %s, %v; want sampling/createMessage", req, err)
		}
		if res, err := events.next(); err != nil || raw(t, res, "id") != "21" {
			t.Fatalf("the short POST's response: %s, %v", res, err)
		}
		if msg, err := events.next(); err != io.EOF {
			t.Fatalf("after its response the short POST carried %s, %v; want its end", msg, err)
		}
		answer := `{"jsonrpc":"2.0","id":` + raw(t, req, "id") + `,"result":{"model":"late"}}`
		if status, _, _ := post(t, url, in(answer)); status != http.StatusAccepted {
			t.Errorf("POST of the answer: status %d, want 202", status)
		}
		got := call(t, url, in(`{"jsonrpc":"2.0","id":22,"method":"test/late-answer"}`))
		if a := raw(t, got, "result", "answer", "result"); a != `{"model":"late"}` {
			t.Errorf("the child got %s, want the client's answer", raw(t, got, "result", "answer"))
		}
	})

	t.Run("notifications/cancelled reaches the child under its id", func(t *testing.T) {
		resp := send(context.Background(), t, url, in(`{"jsonrpc":"2.0","id":9,"method":"test/wait","params":{"_meta":{"progressToken":1}}}`))
		defer resp.Body.Close()
		events := newEvents(resp.Body)
		first, err := events.next()
		if err != nil {
			t.Fatalf("reading test/wait's progress: %v", err)
		}
		childID := field(t, first, "params", "message")
		post(t, url, in(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`))
		if msg, err := events.next(); err != io.EOF {
			t.Errorf("after the cancel the stream carried %s, %v; want its end and no response", msg, err)
		}
		got := call(t, url, in(`{"jsonrpc":"2.0","id":10,"method":"test/cancelled"}`))
		if want := "[" + childID.(string) + "]"; raw(t, got, "result", "cancelled") != want {
			t.Errorf("cancellations the child got: %s, want %s", raw(t, got, "result", "cancelled"), want)
		}
	})

	t.Run("MCP-Protocol-Version other than the session's", func(t *testing.T) {
		r := in(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		r.header = map[string]string{"MCP-Protocol-Version": "2025-06-18"}
		if status, _, _ := post(t, url, r); status != http.StatusBadRequest {
			t.Errorf("status %d, want 400", status)
		}
	})

	t.Run("sessions have children of their own", func(t *testing.T) {
		other := open(t, url)
		echo := `{"jsonrpc":"2.0","id":1,"method":"test/echo"}`
		a := call(t, url, in(echo))
		b := call(t, url, request{session: other, body: echo})
		if field(t, a, "result", "pid") == field(t, b, "result", "pid") {
			t.Errorf("sessions %s and %s share pid %v", sid, other, field(t, a, "result", "pid"))
		}
	})

	t.Run("DELETE ends the session", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("DELETE: status %d, want 204", resp.StatusCode)
		}
		if msg, err := stream.next(); err != io.EOF {
			t.Errorf("GET stream after DELETE: %s, %v; want its end", msg, err)
		}
		if status, _, _ := post(t, url, in(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); status != http.StatusNotFound {
			t.Errorf("POST after DELETE: status %d, want 404", status)
		}
	})
}

// TestSessionChildExit kills a session's child: the session ends with it.
func TestSessionChildExit(t *testing.T) {
	a, url := serve(t, fixtureConfig(t))
	sid := open(t, url)
	a.mu.Lock()
	c := a.sessions[sid].b.link
	a.mu.Unlock()
	if err := c.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("killing the child: %v", err)
	}
	<-c.Done()
	if status, _, _ := post(t, url, request{session: sid, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}); status != http.StatusNotFound {
		t.Errorf("POST to a session whose child died: status %d, want 404", status)
	}
}

func TestInitializeFailure(t *testing.T) {
	_, url := serve(t, Config{Start: Command([]string{"/nonexistent/mcp-server"}, nil, "", nil)})
	status, h, msgs := post(t, url, request{body: initialize})
	if status != http.StatusOK || h.Get("Mcp-Session-Id") != "" || len(msgs) != 1 || field(t, msgs[0], "error") == nil {
		t.Errorf("initialize of a missing program: status %d, session %q, %s; want an error and no session", status, h.Get("Mcp-Session-Id"), msgs)
	}
}

// TestClose ends open streams and stops every child; later requests get 503.
func TestClose(t *testing.T) {
	a, url := serve(t, fixtureConfig(t))
	sid := open(t, url)
	_, get := getStream(t, url, sid)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := send(ctx, t, url, request{body: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":` +
		modernMeta + `,"notifications":{}}}`})
	defer listen.Body.Close()
	subscription := newEvents(listen.Body)
	if _, err := subscription.next(); err != nil {
		t.Fatalf("reading the acknowledgement: %v", err)
	}
	subscription.next() // the fixture's event
	a.mu.Lock()
	children := []*backend{a.sessions[sid].b, a.modern[caller{}.key()].shared}
	a.mu.Unlock()

	if err := a.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	for _, b := range children {
		select {
		case <-b.link.Done():
		default:
			t.Errorf("child %s still running after Close", b.name)
		}
	}
	if msg, err := get.next(); err != io.EOF {
		t.Errorf("GET stream after Close: %s, %v; want its end", msg, err)
	}
	if msg, err := subscription.next(); err == nil {
		t.Errorf("listen stream after Close: %s; want its end", msg)
	}
	if status, _, _ := post(t, url, request{body: initialize}); status != http.StatusServiceUnavailable {
		t.Errorf("initialize after Close: status %d, want 503", status)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
}
