package door

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file keeps a child's tasks their creator's (docs/security.md,
// "Tasks"): a child shared by many callers knows one client, the bridge,
// so every task it creates would answer every caller who names its id.
// The door records the principal of each tools/call that a child answers
// with a task (the 2026-07-28 CreateTaskResult, resultType "task"; the
// 2025-11-25 one, {task}), and lets only that principal's tasks/get,
// tasks/update, tasks/result and tasks/cancel reach the child; anyone
// else's is answered as the child answers an unknown task (-32602 "Task
// not found"), so that a task's existence is not told either. An
// authenticated caller's request naming a task the door did not see
// created is refused the same way; tasks/list shows a caller its own
// tasks only. Without authentication every caller is the same anonymous
// one, and requests pass to the child.

// Bounds of the record of tasks' owners.
const (
	maxTaskOwners = 1 << 16
	// taskOwnerTTL is how long an owner is kept when the task says no
	// ttl, and the most it is kept.
	taskOwnerTTL = 24 * time.Hour
)

// taskMethods are the requests that name a task by params.taskId.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/update": true, "tasks/result": true, "tasks/cancel": true}

type taskKey struct{ server, id string }

type taskOwner struct {
	caller string
	until  time.Time
}

// taskOwners is the record: bounded, oldest first out.
type taskOwners struct {
	mu    sync.Mutex
	m     map[taskKey]taskOwner
	order []taskKey
}

// record notes caller as the owner of the task id of server, created with
// ttl (0: none said).
func (o *taskOwners) record(server, caller, id string, ttl time.Duration) {
	if ttl <= 0 || ttl > taskOwnerTTL {
		ttl = taskOwnerTTL
	}
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[taskKey]taskOwner{}
	}
	if len(o.m) >= maxTaskOwners {
		// The expired go first, then the oldest.
		keep := o.order[:0]
		for _, k := range o.order {
			if now.Before(o.m[k].until) {
				keep = append(keep, k)
			} else {
				delete(o.m, k)
			}
		}
		o.order = keep
		for len(o.m) >= maxTaskOwners {
			delete(o.m, o.order[0])
			o.order = o.order[1:]
		}
	}
	k := taskKey{server, id}
	o.m[k] = taskOwner{caller: caller, until: now.Add(ttl)}
	o.order = append(o.order, k)
}

// owns reports whether caller may name the task id of server: it created
// it, or nobody is authenticated and the door never saw it created.
func (o *taskOwners) owns(server, caller, id string) bool {
	o.mu.Lock()
	owner, ok := o.m[taskKey{server, id}]
	o.mu.Unlock()
	if !ok || time.Now().After(owner.until) {
		return caller == ""
	}
	return owner.caller == caller
}

// createdTask returns the id of the task a tools/call result is, and its
// ttl: the 2026-07-28 flat CreateTaskResult or the 2025-11-25 {task}.
func createdTask(res json.RawMessage) (string, time.Duration) {
	env := res
	if rt, ok := rawjson.Member(res, "resultType"); !ok || string(rt) != `"task"` {
		task, ok := rawjson.Member(res, "task")
		if !ok || !rawjson.IsObject(task) {
			return "", 0
		}
		env = task
	}
	raw, _ := rawjson.Member(env, "taskId")
	id, _ := rawjson.StringValue(raw)
	var ms float64
	for _, key := range []string{"ttlMs", "ttl"} {
		if v, ok := rawjson.Member(env, key); ok && json.Unmarshal(v, &ms) == nil {
			break
		}
	}
	return id, time.Duration(ms) * time.Millisecond
}

// taskNotFound is the refusal of a request naming another's task, worded
// as a child answers an unknown one.
func taskNotFound(id string) *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Task not found", map[string]string{"taskId": id})
}

// taskIDOf is the taskId a tasks/* request names, "" for none.
func taskIDOf(params json.RawMessage) string {
	raw, _ := rawjson.Member(params, "taskId")
	id, _ := rawjson.StringValue(raw)
	return id
}

// filterTasks removes from a tasks/list result the tasks caller does not
// own.
func (o *taskOwners) filterTasks(server, caller string, res json.RawMessage) json.RawMessage {
	arr, ok := rawjson.Member(res, "tasks")
	if !ok {
		return res
	}
	out := []byte{'['}
	rawjson.Elements(arr, func(_ int, item json.RawMessage) bool {
		if o.owns(server, caller, taskIDOf(item)) {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, item...)
		}
		return true
	})
	filtered, err := rawjson.SetMember(res, "tasks", append(out, ']'))
	if err != nil {
		return res
	}
	return filtered
}
