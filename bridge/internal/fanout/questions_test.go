package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// TestQuestions: a legacy child's questions about a task are listed under
// keys of their own without the related-task _meta, answered by key (a
// partial answer leaves the rest open), failed all at once when the task
// is cancelled, and bounded by their timeout.
func TestQuestions(t *testing.T) {
	q := NewQuestions()
	ctx := context.Background()
	if got := q.Open(ctx, 10*time.Millisecond); got != nil {
		t.Fatalf("Open with no question = %s, want nil", got)
	}
	type answer struct {
		res json.RawMessage
		err error
	}
	ask := func(message string) chan answer {
		done := make(chan answer, 1)
		params := json.RawMessage(`{"message":"` + message + `","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`)
		go func() {
			res, err := q.Ask(ctx, stdio.ServerRequest{Method: "elicitation/create", Params: params}, time.Minute, nil)
			done <- answer{res, err}
		}()
		return done
	}
	first := ask("first?")
	if got := string(q.Open(ctx, time.Minute)); got != `{"input-1":{"method":"elicitation/create","params":{"message":"first?"}}}` {
		t.Fatalf("Open = %s", got)
	}
	second := ask("second?")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if got := string(q.Open(ctx, time.Minute)); strings.Contains(got, `"input-2"`) || time.Now().After(deadline) {
			break
		}
	}
	if n := q.Answer(json.RawMessage(`{"input-2":{"action":"accept"},"input-9":{}}`)); n != 1 {
		t.Errorf("Answer of input-2 and an unknown key answered %d, want 1", n)
	}
	select {
	case a := <-second:
		if a.err != nil || string(a.res) != `{"action":"accept"}` {
			t.Errorf("the second question's answer: %s, %v", a.res, a.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the second question was not answered")
	}
	if got := string(q.Open(ctx, time.Minute)); got != `{"input-1":{"method":"elicitation/create","params":{"message":"first?"}}}` {
		t.Errorf("after a partial answer Open = %s, want input-1 alone", got)
	}
	if n := q.Answer(nil); n != 1 {
		t.Errorf("Answer(nil) failed %d questions, want 1", n)
	}
	select {
	case a := <-first:
		var e *jsonrpc.Error
		if !errors.As(a.err, &e) || e.Message != "The task was cancelled" {
			t.Errorf("the first question after the cancellation: %s, %v", a.res, a.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first question was not failed")
	}
	if _, err := q.Ask(ctx, stdio.ServerRequest{Method: "roots/list"}, 20*time.Millisecond, nil); err == nil {
		t.Error("an unanswered question returned no error after its timeout")
	}
}

// TestTaskBinding: a request about a bound task goes to its tunnel; one
// about a task not bound yet waits while a call that may bind it is out,
// and finds nobody at once when none is; a removed tunnel's bindings go
// with it.
func TestTaskBinding(t *testing.T) {
	r := NewRelay("s", nil, time.Minute, false, slog.New(slog.DiscardHandler))
	about := func(id string) json.RawMessage {
		return json.RawMessage(`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + id + `"}}}`)
	}
	ctx := context.Background()
	tun := &fakeTunnel{takes: true}
	r.BindTask("t1", tun)
	if got := r.taskTunnel(ctx, about("t1")); got != tun {
		t.Errorf("the bound task's tunnel = %v", got)
	}
	start := time.Now()
	if got := r.taskTunnel(ctx, about("t2")); got != nil || time.Since(start) > time.Second {
		t.Errorf("an unbound task with nothing expected: %v after %v, want nil at once", got, time.Since(start))
	}
	if got := r.taskTunnel(ctx, json.RawMessage(`{"message":"no task"}`)); got != nil {
		t.Errorf("a request about no task: %v", got)
	}
	done := r.ExpectTask()
	found := make(chan Tunnel, 1)
	go func() { found <- r.taskTunnel(ctx, about("t2")) }()
	select { // it waits for the binding, not answering nobody
	case got := <-found:
		t.Fatalf("the request about a task expected to be bound gave %v before the binding", got)
	case <-time.After(50 * time.Millisecond):
	}
	r.BindTask("t2", tun)
	done()
	select {
	case got := <-found:
		if got != tun {
			t.Errorf("the task bound while expected: %v", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the request did not find the task bound while it waited")
	}
	r.RemoveTunnel(tun)
	if got := r.taskTunnel(ctx, about("t1")); got != nil {
		t.Errorf("after RemoveTunnel: %v", got)
	}
}
