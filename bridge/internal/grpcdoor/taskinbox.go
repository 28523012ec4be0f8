package grpcdoor

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file gives the task RPCs one way to answer a task's questions in
// both eras (docs/api.md, "Tasks"). A 2026 child lists them in tasks/get
// and takes the answers in tasks/update; a 2025-11-25 child asks them
// with requests to its client, carrying the related-task _meta. For a
// task StartTask created on a legacy child, the relay routes those
// requests to the task's inbox (fanout.Relay.BindTask), which holds each
// as an input request under a key of its own until AnswerTask answers it
// (or the child's wait for it ends): GetTask shows them as 2026 would.

const (
	// maxInboxes bounds the inboxes kept; the oldest is dropped first
	// (its task's questions then reach no one and fail).
	maxInboxes = 4096
	// inboxWait is how long GetTask waits for the questions of a task the
	// legacy child says is input_required: the child sets the status
	// before it sends them.
	inboxWait = time.Second
)

// taskInbox is the questions of one legacy child's task; it is the
// fanout.Tunnel the relay asks them of.
type taskInbox struct {
	owner string

	mu      sync.Mutex
	asks    map[string]*inboxAsk
	keys    int
	arrived chan struct{} // closed (and replaced) when a question arrives
}

type inboxAsk struct {
	req   stdio.ServerRequest
	reply chan fanout.Outcome // one slot
}

func (b *taskInbox) Notify(stdio.Notification) {}
func (b *taskInbox) Principal() string         { return b.owner }
func (b *taskInbox) TakesRequests() bool       { return true }
func (b *taskInbox) Asking() bool              { return false }
func (b *taskInbox) CrossModern() bool         { return false }

// Ask holds the child's question until AnswerTask answers it, at most
// timeout.
func (b *taskInbox) Ask(ctx context.Context, _ string, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error) {
	a := &inboxAsk{req: req, reply: make(chan fanout.Outcome, 1)}
	b.mu.Lock()
	b.keys++
	key := "input-" + strconv.Itoa(b.keys)
	b.asks[key] = a
	close(b.arrived)
	b.arrived = make(chan struct{})
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.asks, key)
		b.mu.Unlock()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case o := <-a.reply:
		if o.Err != nil {
			return nil, o.Err
		}
		return o.Result, nil
	case <-timer.C:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", req.Method)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// questions are the open questions as InputRequired.input_requests has
// them, waiting inboxWait for the first; nil when none comes.
func (b *taskInbox) questions(ctx context.Context) json.RawMessage {
	timer := time.NewTimer(inboxWait)
	defer timer.Stop()
	for {
		b.mu.Lock()
		n, arrived := len(b.asks), b.arrived
		b.mu.Unlock()
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
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []byte{'{'}
	for _, key := range slices.Sorted(maps.Keys(b.asks)) {
		a := b.asks[key]
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(rawjson.AppendString(out, key), `:{"method":`...)
		out = rawjson.AppendString(out, a.req.Method)
		params := a.req.Params
		if meta, ok := rawjson.Member(params, "_meta"); ok {
			if meta = rawjson.DeleteMember(meta, protocol.MetaRelatedTask); len(rawjson.Fields(meta)) == 0 {
				params = rawjson.DeleteMember(params, "_meta")
			} else if p, err := rawjson.SetMember(params, "_meta", meta); err == nil {
				params = p
			}
		}
		if !rawjson.IsObject(params) {
			params = json.RawMessage(`{}`)
		}
		out = append(append(append(out, `,"params":`...), params...), '}')
	}
	return append(out, '}')
}

// answer answers the questions responses has a key for, and reports how
// many it answered.
func (b *taskInbox) answer(responses json.RawMessage) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for key, a := range b.asks {
		if r, ok := rawjson.Member(responses, key); ok {
			select {
			case a.reply <- fanout.Outcome{Result: r}:
			default:
			}
			delete(b.asks, key)
			n++
		}
	}
	return n
}

// taskInboxes are the inboxes of the tasks StartTask created on legacy
// children, by server and task id; bounded, oldest first out.
type taskInboxes struct {
	mu    sync.Mutex
	m     map[[2]string]*taskInbox
	order [][2]string
}

// open makes the inbox of a task.
func (ib *taskInboxes) open(server, id, owner string) *taskInbox {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	if ib.m == nil {
		ib.m = map[[2]string]*taskInbox{}
	}
	if len(ib.order) >= maxInboxes {
		delete(ib.m, ib.order[0])
		ib.order = ib.order[1:]
	}
	b := &taskInbox{owner: owner, asks: map[string]*inboxAsk{}, arrived: make(chan struct{})}
	k := [2]string{server, id}
	ib.m[k] = b
	ib.order = append(ib.order, k)
	return b
}

// get is a task's inbox, nil if it has none.
func (ib *taskInboxes) get(server, id string) *taskInbox {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return ib.m[[2]string{server, id}]
}

// close forgets the inbox of a task that ended.
func (ib *taskInboxes) close(server, id string) {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	k := [2]string{server, id}
	if _, ok := ib.m[k]; ok {
		delete(ib.m, k)
		ib.order = slices.DeleteFunc(ib.order, func(x [2]string) bool { return x == k })
	}
}
