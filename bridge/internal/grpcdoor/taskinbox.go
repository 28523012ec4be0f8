package grpcdoor

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// This file gives the task RPCs one way to answer a task's questions in
// both eras (docs/api.md, "Tasks"). A 2026 child lists them in tasks/get
// and takes the answers in tasks/update; a 2025-11-25 child asks them
// with requests to its client, carrying the related-task _meta. For a
// task StartTask created on a legacy child, the relay routes those
// requests to the task's inbox (fanout.Relay.BindTask), which holds each
// as an input request (fanout.Questions) until AnswerTask answers it (or
// the child's wait for it ends): GetTask shows them as 2026 would.

const (
	// maxInboxes bounds the inboxes kept; the oldest is dropped first
	// (its task's questions then reach no one and fail).
	maxInboxes = 4096
	// inboxWait is how long GetTask waits for the questions of a task the
	// legacy child says is input_required: the child sets the status
	// before it sends them.
	inboxWait = time.Second
)

// taskInbox is the questions of one legacy child's task, as the
// fanout.Tunnel the relay asks them of.
type taskInbox struct {
	owner     string
	questions *fanout.Questions
}

func (b *taskInbox) Notify(stdio.Notification) {}
func (b *taskInbox) Principal() string         { return b.owner }
func (b *taskInbox) TakesRequests() bool       { return true }
func (b *taskInbox) Asking() bool              { return false }
func (b *taskInbox) CrossModern() bool         { return false }

// Ask holds the child's question until AnswerTask answers it, at most
// timeout.
func (b *taskInbox) Ask(ctx context.Context, _ string, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error) {
	return b.questions.Ask(ctx, req, timeout, nil)
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
	b := &taskInbox{owner: owner, questions: fanout.NewQuestions()}
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
