package door

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
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

// TaskStates are a task's statuses, as MCP names them; the last three are
// final.
var TaskStates = []string{"working", "input_required", "completed", "failed", "cancelled"}

func finalState(st string) bool { return st == "completed" || st == "failed" || st == "cancelled" }

type taskKey struct{ server, id string }

// taskOwner is what the door knows of one task: who created it, on which
// child process, in which era, and the status it last saw.
type taskOwner struct {
	caller  string
	until   time.Time
	created time.Time
	seq     uint64
	client  *stdio.Client // the child process that holds the task
	modern  bool          // created by a 2026-07-28 request: the extension's envelopes
	state   string        // the status last seen passing the door
}

func (o taskOwner) live(now time.Time) bool { return !finalState(o.state) && now.Before(o.until) }

// taskOwners is the record: bounded, oldest first out.
type taskOwners struct {
	mu    sync.Mutex
	m     map[taskKey]*taskOwner
	order []taskKey
	seq   uint64
}

// TaskCaps bound a server's live tasks: in all (Max) and per
// authenticated principal (MaxPerPrincipal); 0 is no bound.
type TaskCaps struct {
	Max, MaxPerPrincipal int
}

// record notes caller as the owner of the task id of server, created on
// client with ttl (0: none said), and reports, for a task beyond caps,
// the error that refuses it (the caller then cancels it).
func (o *taskOwners) record(server, caller, id string, ttl time.Duration, client *stdio.Client, modern bool, state string, caps TaskCaps) *rpcerr.CallError {
	if ttl <= 0 || ttl > taskOwnerTTL {
		ttl = taskOwnerTTL
	}
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[taskKey]*taskOwner{}
	}
	if refused := o.overCaps(server, caller, now, caps); refused != nil {
		return refused
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
	if state == "" {
		state = "working"
	}
	o.seq++
	k := taskKey{server, id}
	o.m[k] = &taskOwner{caller: caller, until: now.Add(ttl), created: now, seq: o.seq, client: client, modern: modern, state: state}
	o.order = append(o.order, k)
	return nil
}

// taskCapRetry is the RetryInfo of a refusal for live tasks: a task's
// poll interval is about a second, and tasks end at that pace.
const taskCapRetry = time.Second

// overCaps is the refusal of one more live task of caller on server, or
// nil. o.mu is held.
func (o *taskOwners) overCaps(server, caller string, now time.Time, caps TaskCaps) *rpcerr.CallError {
	if caps.Max <= 0 && (caps.MaxPerPrincipal <= 0 || caller == "") {
		return nil
	}
	all, mine := 0, 0
	for k, t := range o.m {
		if k.server == server && t.live(now) {
			all++
			if t.caller == caller {
				mine++
			}
		}
	}
	refuse := func(limit int, per, what string) *rpcerr.CallError {
		return &rpcerr.CallError{RPC: jsonrpc.WithData(jsonrpc.CodeInternalError,
			fmt.Sprintf("The server %q has the most live tasks %s (%s %d); the task was cancelled", server, what, map[bool]string{true: "tasks.max_per_principal", false: "tasks.max"}[per == "principal"], limit),
			map[string]any{"retryable": true, "limit": limit, "per": per}), RetryAfter: taskCapRetry}
	}
	switch {
	case caps.MaxPerPrincipal > 0 && caller != "" && mine >= caps.MaxPerPrincipal:
		return refuse(caps.MaxPerPrincipal, "principal", "one principal may have")
	case caps.Max > 0 && all >= caps.Max:
		return refuse(caps.Max, "server", "it may run")
	}
	return nil
}

// lookup is the record of the task id of server, if the door has one.
func (o *taskOwners) lookup(server, id string) (taskOwner, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.m[taskKey{server, id}]
	if !ok || time.Now().After(t.until) {
		return taskOwner{}, false
	}
	return *t, true
}

// saw records the status a task was seen with; a final one stays.
func (o *taskOwners) saw(server, id, state string) {
	if state == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if t, ok := o.m[taskKey{server, id}]; ok && !finalState(t.state) {
		t.state = state
	}
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

// TaskRef is one task of a caller, as the door saw it created.
type TaskRef struct {
	ID  string
	Seq uint64 // its place in the order of creation
}

// Tasks returns caller's tasks on server created after seq (0: all),
// oldest first, at most n.
func (d *Door) Tasks(server, caller string, after uint64, n int) []TaskRef {
	o := &d.tasks
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []TaskRef
	for _, k := range o.order {
		t := o.m[k]
		if t == nil || k.server != server || t.caller != caller || t.seq <= after || now.After(t.until) {
			continue
		}
		out = append(out, TaskRef{ID: k.id, Seq: t.seq})
		if len(out) == n {
			break
		}
	}
	return out
}

// TaskCounts are the tasks the door knows, by server and the status it
// last saw (the tasks metric).
func (d *Door) TaskCounts() map[string]map[string]int {
	o := &d.tasks
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]map[string]int{}
	for k, t := range o.m {
		if now.After(t.until) {
			continue
		}
		if out[k.server] == nil {
			out[k.server] = map[string]int{}
		}
		out[k.server][t.state]++
	}
	return out
}

// TaskModern reports whether the door saw the task id of server created
// by a 2026-07-28 request (the extension's envelopes), and whether it
// knows the task at all.
func (d *Door) TaskModern(server, id string) (modern, known bool) {
	t, ok := d.tasks.lookup(server, id)
	return t.modern, ok
}

// divert is where a request about a task goes instead of child c: the
// process that holds the task, when it is another one (a pool's other
// child) and still runs; or, when that process exited, nowhere: the
// child's tasks went with it, so the task failed, and answered is the
// answer that says so (truer than the next child's "Task not found").
func (o *taskOwners) divert(req *Request, c *stdio.Client) (to *stdio.Client, res json.RawMessage, err error, answered bool) {
	t, known := o.lookup(req.Server.Name, req.Task)
	if !known || t.client == nil {
		return c, nil, nil, false
	}
	select {
	case <-t.client.Done():
	default:
		return t.client, nil, nil, false // c itself, or the pool's child that holds it
	}
	o.saw(req.Server.Name, req.Task, "failed")
	msg := fmt.Sprintf("The MCP server's process (pid %d) exited before the task ended", t.client.Pid())
	var je *jsonrpc.Error
	if cause := t.client.Err(); errors.As(cause, &je) {
		msg += ": " + je.Message
	} else if cause != nil {
		msg += ": " + cause.Error()
	}
	switch req.Method {
	case "tasks/result":
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "%s", msg), true
	case "tasks/cancel":
		if t.modern {
			return nil, json.RawMessage(`{}`), nil, true
		}
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Cannot cancel task: already in terminal status 'failed'"), true
	case "tasks/update":
		return nil, json.RawMessage(`{}`), nil, true
	}
	out := []byte(`{"taskId":`)
	out = rawjson.AppendString(out, req.Task)
	out = append(out, `,"status":"failed","statusMessage":`...)
	out = rawjson.AppendString(out, msg)
	out = append(out, `,"createdAt":`...)
	out = rawjson.AppendString(out, t.created.UTC().Format(time.RFC3339Nano))
	out = append(out, `,"lastUpdatedAt":`...)
	out = rawjson.AppendString(out, time.Now().UTC().Format(time.RFC3339Nano))
	if t.modern {
		out = append(out, `,"ttlMs":null,"error":{"code":-32000,"message":`...)
		out = rawjson.AppendString(out, msg)
		out = append(out, '}')
	} else {
		out = append(out, `,"ttl":null`...)
	}
	return nil, append(out, '}'), nil, true
}

// createdTask returns the id of the task a tools/call result is, and its
// ttl: the 2026-07-28 flat CreateTaskResult (modern) or the 2025-11-25
// {task}.
func createdTask(res json.RawMessage) (id string, ttl time.Duration, modern bool) {
	env := res
	if rt, ok := rawjson.Member(res, "resultType"); ok && string(rt) == `"task"` {
		modern = true
	} else {
		task, ok := rawjson.Member(res, "task")
		if !ok || !rawjson.IsObject(task) {
			return "", 0, false
		}
		env = task
	}
	raw, _ := rawjson.Member(env, "taskId")
	id, _ = rawjson.StringValue(raw)
	var ms float64
	for _, key := range []string{"ttlMs", "ttl"} {
		if v, ok := rawjson.Member(env, key); ok && json.Unmarshal(v, &ms) == nil {
			break
		}
	}
	return id, time.Duration(ms) * time.Millisecond, modern
}

// taskNotFound is the refusal of a request naming another's task, worded
// as a child answers an unknown one.
func taskNotFound(id string) *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Task not found", map[string]string{"taskId": id})
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
		if o.owns(server, caller, protocol.TaskID(item)) {
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

// descTasks is the tasks metric: the tasks the door knows of each server
// by the status it last saw them in.
var descTasks = prometheus.NewDesc("mcpbridge_tasks",
	"MCP tasks the bridge saw created and not yet expired, by the status it last saw: working, input_required, completed, failed (a child that exited fails its tasks) or cancelled.",
	[]string{"server", "state"}, nil)

// TaskCollector reports the tasks metric at each scrape, for the servers
// servers names (those in force).
func (d *Door) TaskCollector(servers func() []string) prometheus.Collector {
	return taskCollector{d, servers}
}

type taskCollector struct {
	d       *Door
	servers func() []string
}

func (taskCollector) Describe(ch chan<- *prometheus.Desc) { ch <- descTasks }

func (c taskCollector) Collect(ch chan<- prometheus.Metric) {
	counts := c.d.TaskCounts()
	for _, name := range c.servers() {
		for _, state := range TaskStates {
			ch <- prometheus.MustNewConstMetric(descTasks, prometheus.GaugeValue, float64(counts[name][state]), name, state)
		}
	}
}
