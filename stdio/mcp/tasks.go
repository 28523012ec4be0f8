package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is tasks: a tools/call whose work outlives the request
// (docs/protocol.md, "Tasks"; docs/server.md, "Tasks"), in both eras.
//
//   - 2026-07-28, the tasks extension (io.modelcontextprotocol/tasks): a
//     client that declares the extension in a request's capabilities may
//     get {resultType:"task", taskId, status, ...} instead of the result.
//     It polls tasks/get, which carries the result or error when the task
//     ends and the open input requests while it waits for input; it
//     answers those with tasks/update {inputResponses}, and stops the work
//     with tasks/cancel. tasks/result and tasks/list do not exist.
//   - 2025-11-25, the core tasks: a client asks with params.task {ttl?}
//     for a tool whose execution.taskSupport allows it, and gets
//     {task: Task}. tasks/get returns the Task, tasks/result waits for the
//     end and returns what tools/call would have, tasks/list pages the
//     session's tasks and tasks/cancel cancels. Input is asked with real
//     server-to-client requests that carry the related-task _meta.
//
// A tool declares its support in Tool.Execution.TaskSupport; its handler
// runs synchronously until it calls [CallToolRequest.RunTask], whose work
// then runs as the task when the client can take one (and at once, in the
// request, when it cannot and the support is optional). So input can be
// gathered with input_required rounds before the task starts, as the
// extension's MRTR composition has it. [Server.AddTaskTool] registers a
// tool whose whole handler is the task.
//
// A task belongs to the connection (session) that created it: another
// connection does not find it. Task ids are 128 random bits. A session
// keeps at most Config.MaxTasks tasks; each lives Config.TaskTTL from its
// creation (or less, when a 2025 client asks for less) and is then
// cancelled if it still runs and forgotten. A task's status only moves
// forward: working and input_required to completed, failed or cancelled,
// which never change.

// TaskSupport says whether a tool may run as a task.
type TaskSupport string

const (
	// TaskForbidden (the default): the tool never runs as a task.
	TaskForbidden TaskSupport = "forbidden"
	// TaskOptional: as a task when the client can take one, else in the
	// request.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: only as a task; a client that cannot take one is
	// refused (-32021 on 2026-07-28, -32601 on 2025-11-25).
	TaskRequired TaskSupport = "required"
)

// ToolExecution is how a tool runs: the execution member of a Tool.
type ToolExecution struct {
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// TaskStatus is a task's status.
type TaskStatus string

// The statuses; the last three are final.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// final reports whether a status never changes again.
func (st TaskStatus) final() bool {
	return st == TaskCompleted || st == TaskFailed || st == TaskCancelled
}

// Defaults of the task settings of Config.
const (
	DefaultMaxTasks         = 256
	DefaultTaskTTL          = time.Hour
	DefaultTaskPollInterval = time.Second
)

// TasksExtension is the 2026-07-28 tasks extension's identifier.
const TasksExtension = protocol.TasksExtension

// metaRelatedTask is the 2025-11-25 _meta key of a task's traffic.
const metaRelatedTask = protocol.MetaRelatedTask

// TaskFunc is a task's work: a tool handler's, run as the task.
type TaskFunc func(ctx context.Context, req *CallToolRequest) (*ToolResult, error)

// AddTaskTool registers a tool whose whole handler runs as a task when the
// client can take one: AddTool with the handler wrapped in
// [CallToolRequest.RunTask], and Execution.TaskSupport TaskOptional
// unless t sets it.
func (s *Server) AddTaskTool(t Tool, work TaskFunc) {
	if t.Execution == nil || t.Execution.TaskSupport == "" || t.Execution.TaskSupport == TaskForbidden {
		t.Execution = &ToolExecution{TaskSupport: TaskOptional}
	}
	s.AddTool(t, func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
		return req.RunTask(ctx, work)
	})
}

// taskMode is what a tools/call may become: whether it may run as a task
// and, on 2025-11-25, the ttl the client asked for.
type taskMode struct {
	ok  bool
	ttl time.Duration // 0: the server's
}

// taskModeOf decides whether the call of a tool with support may become a
// task, or refuses a call that must and cannot.
func (s *Server) taskModeOf(c *call, support TaskSupport) (taskMode, error) {
	if c.modern {
		// The legacy params.task is ignored; the extension, declared in
		// this request's own capabilities, decides.
		if _, ok := c.caps.Extensions[TasksExtension]; ok && support != TaskForbidden {
			return taskMode{ok: true}, nil
		}
		if support == TaskRequired {
			return taskMode{}, missingTasks()
		}
		return taskMode{}, nil
	}
	raw, asked := rawjson.Member(c.params, "task")
	switch {
	case asked && !rawjson.IsObject(raw):
		return taskMode{}, invalidParams("task must be an object")
	case asked && support == TaskForbidden:
		return taskMode{}, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: this tool does not run as a task")
	case !asked && support == TaskRequired:
		return taskMode{}, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: this tool runs only as a task (params.task)")
	case !asked:
		return taskMode{}, nil
	}
	var meta struct {
		TTL *float64 `json:"ttl"`
	}
	if json.Unmarshal(raw, &meta) != nil || meta.TTL != nil && *meta.TTL < 0 {
		return taskMode{}, invalidParams("task.ttl must be a number of milliseconds")
	}
	m := taskMode{ok: true}
	if meta.TTL != nil {
		m.ttl = time.Duration(*meta.TTL) * time.Millisecond
	}
	return m, nil
}

// missingTasks is the -32021 of a 2026-07-28 request that needs the tasks
// extension from a client that did not declare it.
func missingTasks() *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeMissingCapability, "Missing required client capability",
		map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: struct{}{}}}})
}

// taskCreated is what RunTask returns once the task is created: callTool
// answers with the task, as it was created (working), instead of a result.
type taskCreated struct{ reply *reply }

func (taskCreated) Error() string { return "mcp: the call continues as a task" }

// RunTask runs work as a task when the client can take one (the tool's
// Execution allows it and the client asked, on 2025-11-25, or declared
// the tasks extension in this request, on 2026-07-28): it returns at once,
// and the client gets the task. Otherwise work runs here, in the request,
// and RunTask returns its result. Return what RunTask returns.
//
// work gets a context that ends when the task is cancelled (tasks/cancel),
// when its TTL passes or when the connection ends, not with the request.
// In it, req.Ask waits for the client's answers (tasks/update on
// 2026-07-28; real requests on 2025-11-25) with the task input_required,
// req.SetTaskStatus sets the task's status message, and
// req.ReportProgress reports progress (on 2026-07-28, as the status
// message). A result is the task's: completed (a tool error too on
// 2026-07-28; failed on 2025-11-25), a *jsonrpc.Error makes it failed,
// and a panic makes it failed with -32603.
func (r *CallToolRequest) RunTask(ctx context.Context, work TaskFunc) (*ToolResult, error) {
	if !r.taskMode.ok || r.task != nil {
		return work(ctx, r)
	}
	ss := r.c.sess
	t, err := ss.tasks.create(ss, r.c.modern, r.taskMode.ttl)
	if err != nil {
		if r.support == TaskOptional {
			return work(ctx, r) // no room: in the request
		}
		return nil, err
	}
	r.task = t
	tctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	t.cancelWork = cancel
	created := t.createdReply() // before the work can move the status on
	go t.run(tctx, ss, r, work)
	return nil, taskCreated{created}
}

// SetTaskStatus sets the status message of the task the request runs as,
// which tasks/get shows; outside a task it does nothing.
func (r *Request) SetTaskStatus(message string) {
	if r.task != nil {
		r.task.setMessage(message)
	}
}

// Task returns the id of the task the request runs as, "" outside one.
func (r *Request) Task() string {
	if r.task == nil {
		return ""
	}
	return r.task.id
}

// task is one task of a session.
type task struct {
	id      string
	modern  bool // created by a 2026-07-28 request: its envelopes are the extension's
	created time.Time
	ttl     time.Duration
	poll    time.Duration

	mu         sync.Mutex
	status     TaskStatus
	message    string
	updated    time.Time
	result     json.RawMessage // the CallToolResult's members, on completed (and failed by a tool error, 2025)
	err        *jsonrpc.Error  // on failed
	pending    map[string]InputRequest
	answers    map[string]json.RawMessage
	wake       chan struct{} // closed and replaced when answers arrive
	done       chan struct{} // closed at the final status
	cancelWork context.CancelCauseFunc
	expiry     *time.Timer
}

// taskStore is a session's tasks.
type taskStore struct {
	mu sync.Mutex
	m  map[string]*task
}

// errTaskCancelled is the cause of a cancelled task's context.
var errTaskCancelled = errors.New("mcp: the task was cancelled")

// errTaskExpired is the cause when a task's TTL passes.
var errTaskExpired = errors.New("mcp: the task's ttl passed")

// create makes a working task, visible to tasks/get before it is
// returned.
func (st *taskStore) create(ss *session, modern bool, ttl time.Duration) (*task, error) {
	cfg := ss.srv.cfg
	if ttl <= 0 || ttl > cfg.TaskTTL {
		ttl = cfg.TaskTTL
	}
	var b [16]byte
	rand.Read(b[:])
	now := time.Now().UTC()
	t := &task{id: base64.RawURLEncoding.EncodeToString(b[:]), modern: modern, created: now, updated: now, ttl: ttl,
		poll: cfg.TaskPollInterval, status: TaskWorking, wake: make(chan struct{}), done: make(chan struct{}),
		pending: map[string]InputRequest{}, answers: map[string]json.RawMessage{}}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m == nil {
		st.m = map[string]*task{}
	}
	if len(st.m) >= cfg.MaxTasks {
		return nil, jsonrpc.WithData(jsonrpc.CodeInternalError, "Too many tasks: the server keeps at most "+strconv.Itoa(cfg.MaxTasks),
			map[string]any{"retryable": true})
	}
	st.m[t.id] = t
	t.expiry = time.AfterFunc(ttl, func() { st.expire(t) })
	return t, nil
}

// expire forgets a task whose TTL passed, cancelling its work first.
func (st *taskStore) expire(t *task) {
	t.finish(TaskFailed, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Task expired: its ttl passed before it finished"), "")
	if t.cancelWork != nil {
		t.cancelWork(errTaskExpired)
	}
	st.mu.Lock()
	delete(st.m, t.id)
	st.mu.Unlock()
}

// closeAll cancels the work of every task, at the session's end.
func (st *taskStore) closeAll() {
	st.mu.Lock()
	tasks := slices.Collect(maps.Values(st.m))
	st.m = nil
	st.mu.Unlock()
	for _, t := range tasks {
		t.expiry.Stop()
		t.finish(TaskCancelled, nil, nil, "The connection ended")
		if t.cancelWork != nil {
			t.cancelWork(errTaskCancelled)
		}
	}
}

func (st *taskStore) get(id string) *task {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m[id]
}

// run runs a task's work and settles the task with its outcome.
func (t *task) run(ctx context.Context, ss *session, req *CallToolRequest, work TaskFunc) {
	defer t.cancelWork(nil)
	var res *ToolResult
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				ss.srv.cfg.Logger.Error("mcp: a task's work panicked", "tool", req.Name, "task", t.id, "panic", fmt.Sprint(p))
				err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error")
			}
		}()
		res, err = work(ctx, req)
	}()
	if ctx.Err() != nil {
		// Cancelled or expired: already settled by the canceller.
		t.finish(TaskCancelled, nil, nil, "")
		return
	}
	if err != nil {
		// A JSON-RPC error fails the task with it, as does an error the
		// runtime turns into one (a missing capability); any other is
		// the tool's failure.
		_, out, handled := ss.srv.settle(req.c, req.in, err)
		if handled {
			err = out
		}
		var rpc *jsonrpc.Error
		switch {
		case errors.As(err, &rpc):
			t.finish(TaskFailed, nil, rpc, rpc.Message)
			return
		case handled: // ErrInputRequired, which a task's Ask never returns
			t.finish(TaskFailed, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"), "")
			return
		}
		res = ErrorResult(err.Error())
	}
	if res == nil {
		res = &ToolResult{}
	}
	r, rerr := toolReply(res)
	if rerr != nil {
		t.finish(TaskFailed, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"), "")
		return
	}
	status := TaskCompleted
	if res.IsError && !t.modern {
		status = TaskFailed // 2025-11-25: a tool error fails the task
	}
	t.finish(status, r.body, nil, "")
}

// finish moves the task to a final status, unless it has one.
func (t *task) finish(status TaskStatus, result json.RawMessage, err *jsonrpc.Error, message string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.final() {
		return
	}
	t.status, t.result, t.err = status, result, err
	if message != "" {
		t.message = message
	}
	t.pending = nil
	t.updated = time.Now().UTC()
	close(t.done)
}

func (t *task) setMessage(m string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.status.final() {
		t.message, t.updated = m, time.Now().UTC()
	}
}

// cancel stops the task's work and makes it cancelled at once; it reports
// false for a task already final.
func (t *task) cancel() bool {
	t.mu.Lock()
	final := t.status.final()
	t.mu.Unlock()
	if final {
		return false
	}
	t.finish(TaskCancelled, nil, nil, "The task was cancelled by request")
	if t.cancelWork != nil {
		t.cancelWork(errTaskCancelled)
	}
	return true
}

// ask is Request.Ask in a 2026-07-28 task: the questions not yet answered
// become the task's input requests, the task input_required, and ask
// waits for tasks/update to answer them all.
func (t *task) ask(ctx context.Context, c *call, questions map[string]InputRequest) (map[string]json.RawMessage, error) {
	for {
		t.mu.Lock()
		if t.status.final() {
			t.mu.Unlock()
			return nil, context.Cause(ctx)
		}
		answers := map[string]json.RawMessage{}
		for key, q := range questions {
			if a, ok := t.answers[key]; ok {
				if !validAnswer(q.Method, a) {
					t.mu.Unlock()
					return nil, invalidParams("inputResponses[%q] is not a valid %s result", key, q.Method)
				}
				answers[key] = a
				continue
			}
			t.pending[key] = InputRequest{Method: q.Method, Params: eraParams(q, c.version)}
		}
		if len(answers) == len(questions) {
			for key := range questions {
				delete(t.answers, key) // a key answers one question
			}
			if len(t.pending) == 0 {
				t.status = TaskWorking
			}
			t.updated = time.Now().UTC()
			t.mu.Unlock()
			return answers, nil
		}
		if t.status != TaskInputRequired {
			t.status, t.updated = TaskInputRequired, time.Now().UTC()
		}
		wake := t.wake
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// update applies a tasks/update's answers: those of open input requests
// are taken, in this call (the next tasks/get no longer lists them), and
// every other key is ignored.
func (t *task) update(responses map[string]json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.final() {
		return
	}
	took := false
	for key, a := range responses {
		if _, open := t.pending[key]; open {
			delete(t.pending, key)
			t.answers[key] = a
			took = true
		}
	}
	if took {
		if len(t.pending) == 0 {
			t.status = TaskWorking
		}
		t.updated = time.Now().UTC()
		close(t.wake)
		t.wake = make(chan struct{})
	}
}

// askLegacyTask is Ask in a 2025-11-25 task: real requests, with the
// related-task _meta, and the task input_required while they wait.
func (r *Request) askLegacyTask(ctx context.Context, questions map[string]InputRequest) (map[string]json.RawMessage, error) {
	t := r.task
	related := map[string]any{metaRelatedTask: map[string]string{"taskId": t.id}}
	tagged := make(map[string]InputRequest, len(questions))
	for key, q := range questions {
		params, err := rawjson.SetMember(q.Params, "_meta", mergeMeta(q.Params, related))
		if err != nil {
			return nil, err
		}
		tagged[key] = InputRequest{Method: q.Method, Params: params}
	}
	t.mu.Lock()
	if !t.status.final() {
		t.status, t.updated = TaskInputRequired, time.Now().UTC()
	}
	t.mu.Unlock()
	answers, err := r.askLegacy(ctx, tagged)
	t.mu.Lock()
	if !t.status.final() {
		t.status, t.updated = TaskWorking, time.Now().UTC()
	}
	t.mu.Unlock()
	return answers, err
}

// mergeMeta is params' _meta with extra's keys set.
func mergeMeta(params json.RawMessage, extra map[string]any) json.RawMessage {
	meta, _ := rawjson.Member(params, "_meta")
	if !rawjson.IsObject(meta) {
		meta = json.RawMessage(`{}`)
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v, _ := rawjson.Marshal(extra[k])
		meta, _ = rawjson.SetMember(meta, k, v)
	}
	return meta
}

// envelope appends the Task's members: the extension's names on
// 2026-07-28 (ttlMs, pollIntervalMs), the core's on 2025-11-25 (ttl,
// pollInterval). Callers hold t.mu.
func (t *task) envelope(out []byte) []byte {
	out = append(out, `"taskId":`...)
	out = rawjson.AppendString(out, t.id)
	out = append(out, `,"status":`...)
	out = rawjson.AppendString(out, string(t.status))
	if t.message != "" {
		out = append(out, `,"statusMessage":`...)
		out = rawjson.AppendString(out, t.message)
	}
	out = append(out, `,"createdAt":`...)
	out = rawjson.AppendString(out, t.created.Format(time.RFC3339Nano))
	out = append(out, `,"lastUpdatedAt":`...)
	out = rawjson.AppendString(out, t.updated.Format(time.RFC3339Nano))
	ttl, poll := `,"ttl":`, `,"pollInterval":`
	if t.modern {
		ttl, poll = `,"ttlMs":`, `,"pollIntervalMs":`
	}
	out = append(out, ttl...)
	out = rawjson.AppendInt(out, max(t.ttl.Milliseconds(), 1))
	out = append(out, poll...)
	out = rawjson.AppendInt(out, max(t.poll.Milliseconds(), 1))
	return out
}

// createdReply is the reply of a tools/call that became a task: the flat
// CreateTaskResult on 2026-07-28, {task} on 2025-11-25.
func (t *task) createdReply() *reply {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.modern {
		return &reply{body: append(t.envelope([]byte{'{'}), '}'), resultType: "task"}
	}
	body := append(t.envelope([]byte(`{"task":{`)), "}}"...)
	return &reply{body: body}
}

// detailed is tasks/get's body: the Task and, on 2026-07-28, what its
// status carries (inputRequests, result, error).
func (t *task) detailed() *reply {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.envelope([]byte{'{'})
	if t.modern {
		switch t.status {
		case TaskInputRequired:
			out = append(out, `,"inputRequests":{`...)
			for i, key := range slices.Sorted(maps.Keys(t.pending)) {
				if i > 0 {
					out = append(out, ',')
				}
				q := t.pending[key]
				out = rawjson.AppendString(out, key)
				out = append(out, `:{"method":`...)
				out = rawjson.AppendString(out, q.Method)
				out = append(append(append(out, `,"params":`...), q.Params...), '}')
			}
			out = append(out, '}')
		case TaskCompleted:
			out = append(out, `,"result":{"resultType":"complete",`...)
			out = append(out, t.result[1:]...)
		case TaskFailed:
			if t.err != nil {
				e, _ := rawjson.Marshal(struct {
					Code    int64           `json:"code"`
					Message string          `json:"message"`
					Data    json.RawMessage `json:"data,omitempty"`
				}{t.err.Code, t.err.Message, t.err.Data})
				out = append(append(out, `,"error":`...), e...)
			}
		}
	}
	return &reply{body: append(out, '}')}
}

// taskParams reads a tasks/* request's taskId and looks the task up in
// the session: -32602 for a missing id or an unknown task.
func (ss *session) taskParams(c *call) (*task, error) {
	var p struct {
		TaskID *string `json:"taskId"`
	}
	if json.Unmarshal(c.params, &p) != nil || p.TaskID == nil {
		return nil, invalidParams("%s needs a string taskId", c.method)
	}
	t := ss.tasks.get(*p.TaskID)
	if t == nil {
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Task not found", map[string]string{"taskId": *p.TaskID})
	}
	return t, nil
}

// tasksGate refuses a 2026-07-28 tasks/* request of a client that did not
// declare the extension, before it looks the task up.
func tasksGate(c *call) error {
	if _, ok := c.caps.Extensions[TasksExtension]; c.modern && !ok {
		return missingTasks()
	}
	return nil
}

// getTask answers tasks/get.
func (s *Server) getTask(_ context.Context, c *call) (*reply, error) {
	if err := tasksGate(c); err != nil {
		return nil, err
	}
	t, err := c.sess.taskParams(c)
	if err != nil {
		return nil, err
	}
	return t.detailed(), nil
}

// updateTask answers tasks/update (2026-07-28).
func (s *Server) updateTask(_ context.Context, c *call) (*reply, error) {
	if err := tasksGate(c); err != nil {
		return nil, err
	}
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(c.params, &p) != nil || p.InputResponses == nil {
		return nil, invalidParams("tasks/update needs an inputResponses object")
	}
	t, err := c.sess.taskParams(c)
	if err != nil {
		return nil, err
	}
	t.update(p.InputResponses)
	return &reply{body: json.RawMessage(`{}`)}, nil
}

// cancelTask answers tasks/cancel: on 2026-07-28 an empty acknowledgement,
// a final task's too; on 2025-11-25 the cancelled Task, and -32602 for a
// task already final.
func (s *Server) cancelTask(_ context.Context, c *call) (*reply, error) {
	if err := tasksGate(c); err != nil {
		return nil, err
	}
	t, err := c.sess.taskParams(c)
	if err != nil {
		return nil, err
	}
	cancelled := t.cancel()
	if c.modern {
		return &reply{body: json.RawMessage(`{}`)}, nil
	}
	if !cancelled {
		t.mu.Lock()
		status := t.status
		t.mu.Unlock()
		return nil, invalidParams("cannot cancel a task in the final status %s", status)
	}
	r := t.detailed()
	return r, nil
}

// taskResult answers tasks/result (2025-11-25): it waits for the task's
// end and returns what tools/call would have, with the related-task
// _meta, or its error.
func (s *Server) taskResult(ctx context.Context, c *call) (*reply, error) {
	t, err := c.sess.taskParams(c)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.err != nil:
		return nil, t.err
	case t.status == TaskCancelled:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: the task was cancelled")
	}
	meta, _ := rawjson.Marshal(map[string]any{metaRelatedTask: map[string]string{"taskId": t.id}})
	return &reply{body: t.result, meta: meta}, nil
}

// listTasks answers tasks/list (2025-11-25): the session's tasks by
// creation, a page at a time, with the signed cursors of the other lists
// (pagination.go).
func (s *Server) listTasks(_ context.Context, c *call) (*reply, error) {
	st := &c.sess.tasks
	st.mu.Lock()
	byKey := make(map[string]*task, len(st.m))
	for _, t := range st.m {
		byKey[t.listKey()] = t
	}
	st.mu.Unlock()
	keys := slices.Sorted(maps.Keys(byKey))
	start, end, next, err := paginate(s, "tasks", c.params, keys)
	if err != nil {
		return nil, err
	}
	out := []byte(`{"tasks":[`)
	for i, k := range keys[start:end] {
		if i > 0 {
			out = append(out, ',')
		}
		t := byKey[k]
		t.mu.Lock()
		out = append(t.envelope(append(out, '{')), '}')
		t.mu.Unlock()
	}
	out = append(out, ']')
	if next != "" {
		out = append(out, `,"nextCursor":`...)
		out = rawjson.AppendString(out, next)
	}
	return &reply{body: append(out, '}')}, nil
}

// listKey orders tasks by creation: the time, fixed width, then the id.
func (t *task) listKey() string {
	return fmt.Sprintf("%020d/%s", t.created.UnixNano(), t.id)
}

// tasksCapability is the 2025-11-25 capabilities.tasks of a server with a
// task-capable tool.
type tasksCapability struct {
	List     struct{} `json:"list"`
	Cancel   struct{} `json:"cancel"`
	Requests struct {
		Tools struct {
			Call struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// taskMethod reports whether method is a tasks/* request of the client's
// that the runtime may serve in 2026-07-28.
func taskMethod(method string) bool {
	return slices.Contains(protocol.ModernTaskMethods, method)
}
