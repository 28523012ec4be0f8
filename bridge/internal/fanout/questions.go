package fanout

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Questions are a legacy child's requests about one task (those with its
// related-task _meta), held for a caller that answers a task's questions
// as 2026-07-28 has it: listed as the task's inputRequests, under keys
// input-1, input-2, ..., and answered by key (a tunnel's 2026 client's
// tasks/update, the gRPC API's AnswerTask). Each waits at most the relay's
// timeout, as any request of the child does.
type Questions struct {
	mu      sync.Mutex
	asks    map[string]*question
	keys    int
	arrived chan struct{} // closed (and replaced) when a question arrives
}

type question struct {
	req   stdio.ServerRequest
	reply chan Outcome // one slot
}

// NewQuestions returns an empty set of questions.
func NewQuestions() *Questions {
	return &Questions{asks: map[string]*question{}, arrived: make(chan struct{})}
}

// questionsGather is how long Open waits, once one question is there, for
// those sent with it.
const questionsGather = 10 * time.Millisecond

// Ask holds req until it is answered, at most timeout, or until ctx ends
// or closed is closed (nil: never).
func (q *Questions) Ask(ctx context.Context, req stdio.ServerRequest, timeout time.Duration, closed <-chan struct{}) (json.RawMessage, error) {
	a := &question{req: req, reply: make(chan Outcome, 1)}
	q.mu.Lock()
	q.keys++
	key := "input-" + strconv.Itoa(q.keys)
	q.asks[key] = a
	close(q.arrived)
	q.arrived = make(chan struct{})
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.asks, key)
		q.mu.Unlock()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case o := <-a.reply:
		if o.Err != nil {
			return nil, o.Err
		}
		return o.Result, nil
	case <-closed:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client went away before answering %s", req.Method)
	case <-timer.C:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", req.Method)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Open returns the open questions as an inputRequests object ({key:
// {method, params}}, the related-task _meta left out), waiting at most
// wait for the first (a child sets its task input_required a moment before
// it asks); nil when none comes.
func (q *Questions) Open(ctx context.Context, wait time.Duration) json.RawMessage {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		q.mu.Lock()
		n, arrived := len(q.asks), q.arrived
		q.mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-arrived:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
	time.Sleep(questionsGather) // questions sent together arrive together
	q.mu.Lock()
	defer q.mu.Unlock()
	out := []byte{'{'}
	for _, key := range slices.Sorted(maps.Keys(q.asks)) {
		a := q.asks[key]
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(rawjson.AppendString(out, key), `:{"method":`...)
		out = rawjson.AppendString(out, a.req.Method)
		out = append(append(append(out, `,"params":`...), withoutRelatedTask(a.req.Params)...), '}')
	}
	return append(out, '}')
}

// withoutRelatedTask is params without the related-task _meta (and
// without _meta when nothing else is in it).
func withoutRelatedTask(params json.RawMessage) json.RawMessage {
	if !rawjson.IsObject(params) {
		return json.RawMessage(`{}`)
	}
	meta, ok := rawjson.Member(params, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		return params
	}
	if meta = rawjson.DeleteMember(meta, protocol.MetaRelatedTask); len(rawjson.Fields(meta)) == 0 {
		return rawjson.DeleteMember(params, "_meta")
	}
	if out, err := rawjson.SetMember(params, "_meta", meta); err == nil {
		return out
	}
	return params
}

// Answer answers the questions responses has a key for and returns how
// many it answered; with responses nil (the task was cancelled) it fails
// every one.
func (q *Questions) Answer(responses json.RawMessage) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for key, a := range q.asks {
		o := Outcome{Err: jsonrpc.Errorf(jsonrpc.CodeInternalError, "The task was cancelled")}
		if responses != nil {
			r, ok := rawjson.Member(responses, key)
			if !ok {
				continue
			}
			o = Outcome{Result: r}
		}
		select {
		case a.reply <- o:
		default:
		}
		delete(q.asks, key)
		n++
	}
	return n
}
