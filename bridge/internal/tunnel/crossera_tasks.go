package tunnel

// Tasks across eras (docs/protocol.md, "Tasks"): a tunnel whose client
// speaks the other era than its child translates the one's tasks into the
// other's.
//
//   - 2026 client, 2025-11-25 child. The child's tasks capability is
//     advertised as the tasks extension. A tools/call whose request
//     declares the extension asks the child for a task (params.task; a
//     tool that forbids tasks is called again without), and the child's
//     {task} becomes the flat CreateTaskResult. tasks/get is the child's
//     tasks/get, with, once the task is done, tasks/result inlined (a tool
//     error is completed, as 2026 has it; a JSON-RPC error failed), and,
//     while it is input_required, the child's questions about the task
//     (its requests with the related-task _meta, routed to this tunnel by
//     the relay's BindTask) as inputRequests; tasks/update answers them,
//     and tasks/cancel is acknowledged as 2026 does.
//   - 2025 client, 2026 child. The extension is advertised as the tasks
//     capability. A tools/call with params.task declares the extension in
//     its request, and the flat CreateTaskResult becomes {task}. tasks/get
//     gives the Task as 2025 has it (a tool error failed); the task's
//     inputRequests become requests into the tunnel with the related-task
//     _meta, whose answers go back in tasks/update; tasks/result polls the
//     task to its end; tasks/cancel refuses a task already final;
//     tasks/list lists the tasks created through the tunnel.

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

const (
	// maxTunnelTasks bounds the tasks a tunnel's translation remembers;
	// the oldest is forgotten first.
	maxTunnelTasks = 256
	// taskAskWait is how long tasks/get waits for the questions of a task
	// the legacy child says is input_required: the child sets the status
	// before it sends them.
	taskAskWait = time.Second
	// minTaskPoll and maxTaskPoll bound how often the tunnel polls a 2026
	// child's task for a 2025 client's tasks/result.
	minTaskPoll = 50 * time.Millisecond
	maxTaskPoll = time.Second
)

// xTask is a task created through the tunnel's translation.
type xTask struct {
	id string
	// A 2026 client on a legacy child: the child's questions about the
	// task.
	questions *fanout.Questions
	// A 2025 client on a 2026 child: the input request keys being asked,
	// and the ttl (ms) the client asked for when it is less than the
	// child's, which the tunnel keeps (expire).
	asking map[string]bool
	ttl    int64
}

// rememberTask records a task created through the translation; t.mu is
// not held.
func (t *Tunnel) rememberTask(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.xtasks[id] != nil {
		return
	}
	if len(t.xorder) >= maxTunnelTasks {
		delete(t.xtasks, t.xorder[0])
		t.xorder = t.xorder[1:]
	}
	t.xtasks[id] = &xTask{id: id, questions: fanout.NewQuestions(), asking: map[string]bool{}}
	t.xorder = append(t.xorder, id)
}

// xtask is the task id created through the translation, nil if none.
func (t *Tunnel) xtask(id string) *xTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.xtasks[id]
}

// legacyTasks reports whether a 2025-11-25 server's capabilities let a
// client ask for a tools/call as a task.
func legacyTasks(caps json.RawMessage) bool {
	tasks, _ := rawjson.Member(caps, "tasks")
	reqs, _ := rawjson.Member(tasks, "requests")
	tools, _ := rawjson.Member(reqs, "tools")
	_, ok := rawjson.Member(tools, "call")
	return ok
}

// childTasks reports whether the tunnel's legacy child runs tools as
// tasks.
func (t *Tunnel) childTasks() bool { return legacyTasks(t.child().ServerCapabilities()) }

// missingTasksExtension is the -32021 of a 2026 request that needs the
// tasks extension from a client that did not declare it.
func missingTasksExtension() *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeMissingCapability, "Missing required client capability",
		map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{protocol.TasksExtension: struct{}{}}}})
}

// withTasksExtension is the 2026 _meta meta with the tasks extension
// added to its client capabilities.
func withTasksExtension(meta json.RawMessage) json.RawMessage {
	caps, _ := rawjson.Member(meta, protocol.MetaClientCapabilities)
	out, err := rawjson.SetMember(meta, protocol.MetaClientCapabilities, protocol.WithTasksExtension(caps))
	if err != nil {
		return meta
	}
	return out
}

// envelope copies a Task's members from task, the Task's names renamed
// (ttl to ttlMs and pollInterval to pollIntervalMs, or back) and status
// replaced when status is set; what is not a Task's member is left out.
func envelope(task json.RawMessage, modern bool, status string) []byte {
	names := map[string]string{"ttl": "ttlMs", "pollInterval": "pollIntervalMs"}
	if !modern {
		names = map[string]string{"ttlMs": "ttl", "pollIntervalMs": "pollInterval"}
	}
	keep := []string{"taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttl", "pollInterval", "ttlMs", "pollIntervalMs"}
	out := []byte{'{'}
	for _, f := range rawjson.Fields(task) {
		if !slices.Contains(keep, f.Key) {
			continue
		}
		key, v := f.Key, f.Value
		if to, ok := names[key]; ok {
			key = to
		}
		if key == "status" && status != "" {
			v = rawjson.AppendString(nil, status)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(rawjson.AppendString(out, key), ':'), v...)
	}
	return append(out, '}')
}

// withMember is obj with key set to v.
func withMember(obj []byte, key string, v json.RawMessage) []byte {
	out, err := rawjson.SetMember(obj, key, v)
	if err != nil {
		return obj
	}
	return out
}

// rpcErrorJSON is e as a JSON-RPC error object.
func rpcErrorJSON(e *jsonrpc.Error) json.RawMessage {
	out, _ := rawjson.Marshal(struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}{e.Code, e.Message, e.Data})
	return out
}

// ---- A 2026 client on a 2025 child ----

// modernCreated is a legacy child's {task} as the flat CreateTaskResult,
// the task bound to the tunnel; res itself when it holds no task.
func (t *Tunnel) modernCreated(res json.RawMessage) json.RawMessage {
	task, ok := rawjson.Member(res, "task")
	if !ok || !rawjson.IsObject(task) {
		return res
	}
	id := protocol.TaskID(task)
	if id == "" {
		return res
	}
	t.rememberTask(id)
	t.child().Relay.BindTask(id, t)
	out := withMember(envelope(task, true, ""), "resultType", json.RawMessage(`"task"`))
	if meta, ok := rawjson.Member(res, "_meta"); ok {
		out = withMember(out, "_meta", meta)
	}
	return out
}

// modernTask serves a 2026 client's tasks/get, tasks/update or
// tasks/cancel on a legacy child.
func (t *Tunnel) modernTask(ctx context.Context, call *tunnelCall, id json.RawMessage, method string, params json.RawMessage) {
	adm := passOf(ctx)
	taskID := protocol.TaskID(params)
	sent := legacyParams(params)
	opts := &stdio.CallOptions{Timeout: adm.Deadline, Verbatim: true}
	start := time.Now()
	switch method {
	case "tasks/update":
		responses, ok := rawjson.Member(params, "inputResponses")
		if !ok || !rawjson.IsObject(responses) {
			t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: tasks/update needs an inputResponses object"))
			return
		}
		x := t.xtask(taskID)
		if x == nil {
			// Not a task of this tunnel's: the child says whether it
			// exists.
			if _, err := t.child().Client.Call(ctx, "tasks/get", rawjson.DeleteMember(sent, "inputResponses"), opts); err != nil {
				t.audit(ctx, start, nil, err)
				t.finish(id, call, nil, modernError(err))
				return
			}
		} else {
			x.questions.Answer(responses)
		}
		t.audit(ctx, start, json.RawMessage(`{}`), nil)
		t.finish(id, call, t.modernResult(method, json.RawMessage(`{}`)), nil)
	case "tasks/cancel":
		res, err := t.callChild(ctx, sent, opts)
		t.audit(ctx, start, res, err)
		if err != nil && (asRPCError(err).Code != jsonrpc.CodeInvalidParams || asRPCError(err).Message == "Task not found") {
			t.finish(id, call, nil, modernError(err))
			return
		}
		// Cancelled, or final already: 2026 acknowledges both.
		if x := t.xtask(taskID); x != nil {
			x.questions.Answer(nil)
		}
		t.finish(id, call, t.modernResult(method, json.RawMessage(`{}`)), nil)
	default: // tasks/get
		res, err := t.callChild(ctx, sent, opts)
		t.audit(ctx, start, res, err)
		if err != nil {
			t.finish(id, call, nil, modernError(err))
			return
		}
		t.finish(id, call, t.modernResult(method, t.modernGot(ctx, taskID, sent, res, opts)), nil)
	}
}

// modernGot is a legacy tasks/get result as 2026's: the Task with its
// names renamed and what its status carries, the questions while it is
// input_required, and the outcome (tasks/result) once it is done.
func (t *Tunnel) modernGot(ctx context.Context, taskID string, sent, res json.RawMessage, opts *stdio.CallOptions) json.RawMessage {
	switch protocol.TaskStatus(res) {
	case "input_required":
		out := envelope(res, true, "")
		if x := t.xtask(taskID); x != nil {
			if reqs := x.questions.Open(ctx, taskAskWait); reqs != nil {
				out = withMember(out, "inputRequests", reqs)
			}
		}
		return out
	case "completed", "failed":
		r, err := t.child().Client.Call(ctx, "tasks/result", sent, opts)
		if err != nil {
			out := envelope(res, true, "failed")
			return withMember(out, "error", rpcErrorJSON(asRPCError(modernError(err))))
		}
		// A tool error is a result: completed, as 2026 has it.
		result := dropMetaKeys(r, protocol.MetaRelatedTask)
		result = withMember(result, "resultType", json.RawMessage(`"complete"`))
		return withMember(envelope(res, true, "completed"), "result", result)
	}
	return envelope(res, true, "")
}

// relatedTask is the task the child's request req is about, when it is
// one created through this tunnel's translation. (A question that comes
// before its task's creation is answered waits in the relay for the
// binding: startOp's ExpectTask.)
func (t *Tunnel) relatedTask(req stdio.ServerRequest) *xTask {
	return t.xtask(protocol.RelatedTask(req.Params))
}

// ---- A 2025 client on a 2026 child ----

// legacyTaskCaps are a 2026 server's capabilities as a 2025-11-25 server
// declares them: the tasks extension as the tasks capability.
func legacyTaskCaps(caps json.RawMessage) json.RawMessage {
	if !protocol.HasTasksExtension(caps) {
		return caps
	}
	ext, _ := rawjson.Member(caps, "extensions")
	ext = rawjson.DeleteMember(ext, protocol.TasksExtension)
	if len(rawjson.Fields(ext)) == 0 {
		caps = rawjson.DeleteMember(caps, "extensions")
	} else {
		caps = withMember(caps, "extensions", ext)
	}
	return withMember(caps, "tasks", json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`))
}

// legacyCreated is a 2026 CreateTaskResult as 2025's {task}. A ttl the
// client asked for (ms, 0 for none) below the child's is kept by the
// tunnel: the task is the client's that long, then cancelled and
// forgotten, as a 2025 server does.
func (t *Tunnel) legacyCreated(res json.RawMessage, ttl int64) json.RawMessage {
	id := protocol.TaskID(res)
	t.rememberTask(id)
	var childTTL float64
	raw, _ := rawjson.Member(res, "ttlMs")
	if ttl > 0 && (json.Unmarshal(raw, &childTTL) != nil || int64(childTTL) > ttl) {
		t.mu.Lock()
		if x := t.xtasks[id]; x != nil {
			x.ttl = ttl
		}
		t.mu.Unlock()
		time.AfterFunc(time.Duration(ttl)*time.Millisecond, func() { t.expire(id) })
	}
	out := withMember([]byte(`{}`), "task", t.legacyEnvelope(res, ""))
	if meta, ok := rawjson.Member(res, "_meta"); ok {
		out = withMember(out, "_meta", meta)
	}
	return legacyResult(out)
}

// legacyEnvelope is a 2026 task as a 2025 Task, with the ttl the tunnel
// keeps for it.
func (t *Tunnel) legacyEnvelope(task json.RawMessage, status string) json.RawMessage {
	out := envelope(task, false, status)
	if x := t.xtask(protocol.TaskID(task)); x != nil && x.ttl > 0 {
		out = withMember(out, "ttl", json.RawMessage(strconv.FormatInt(x.ttl, 10)))
	}
	return out
}

// expire ends a task whose ttl the tunnel keeps: cancelled on the child
// if it still runs, and forgotten.
func (t *Tunnel) expire(id string) {
	t.mu.Lock()
	delete(t.xtasks, id)
	t.xorder = slices.DeleteFunc(t.xorder, func(x string) bool { return x == id })
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	meta, _ := t.peerMeta()
	p := append(rawjson.AppendString([]byte(`{"taskId":`), id), '}')
	_, _ = t.child().Client.Call(ctx, "tasks/cancel", json.RawMessage(p), &stdio.CallOptions{Timeout: 5 * time.Second, Meta: withTasksExtension(meta)})
}

// legacyStatus is a 2026 task's status as 2025 gives it: a task that
// completed with a tool error failed.
func legacyStatus(task json.RawMessage) string {
	st := protocol.TaskStatus(task)
	if st == "completed" {
		result, _ := rawjson.Member(task, "result")
		if isErr, _ := rawjson.Member(result, "isError"); string(isErr) == "true" {
			return "failed"
		}
	}
	return st
}

// legacyTask serves a 2025 client's tasks/get, tasks/result, tasks/cancel
// or tasks/list on a 2026 child.
func (t *Tunnel) legacyTask(ctx context.Context, call *tunnelCall, id json.RawMessage, method string, params json.RawMessage) {
	adm := passOf(ctx)
	meta, _ := t.peerMeta()
	opts := &stdio.CallOptions{Timeout: adm.Deadline, Meta: withTasksExtension(meta)}
	taskID := protocol.TaskID(params)
	ask := rawjson.AppendString([]byte(`{"taskId":`), taskID)
	ask = append(ask, '}')
	get := func(ctx context.Context, taskID string) (json.RawMessage, error) {
		p := append(rawjson.AppendString([]byte(`{"taskId":`), taskID), '}')
		return t.child().Client.Call(ctx, "tasks/get", json.RawMessage(p), opts)
	}
	start := time.Now()
	var res json.RawMessage
	var err error
	switch method {
	case "tasks/get":
		if res, err = t.callChild(ctx, ask, opts); err == nil {
			t.answerInputsLater(taskID, res, opts)
			res = t.legacyEnvelope(res, legacyStatus(res))
		}
	case "tasks/result":
		res, err = t.awaitTask(ctx, taskID, get, opts)
	case "tasks/cancel":
		var task json.RawMessage
		if task, err = get(ctx, taskID); err == nil {
			if st := legacyStatus(task); st == "completed" || st == "failed" || st == "cancelled" {
				err = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: cannot cancel a task in the final status %s", st)
			} else if _, err = t.callChild(ctx, ask, opts); err == nil {
				if task, err = get(ctx, taskID); err == nil {
					res = t.legacyEnvelope(task, legacyStatus(task))
				}
			}
		}
	case "tasks/list":
		t.mu.Lock()
		ids := slices.Clone(t.xorder)
		t.mu.Unlock()
		out := []byte(`{"tasks":[`)
		n := 0
		for _, taskID := range ids {
			task, gerr := get(ctx, taskID)
			if gerr != nil {
				continue // expired, or the child forgot it
			}
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, t.legacyEnvelope(task, legacyStatus(task))...)
			n++
		}
		res = append(out, "]}"...)
	}
	t.audit(ctx, start, res, err)
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	t.finish(id, call, res, nil)
}

// awaitTask is tasks/result for a 2025 client: the 2026 task polled to
// its end, its questions asked of the client on the way; what tools/call
// would have returned, with the related-task _meta, or the task's error.
func (t *Tunnel) awaitTask(ctx context.Context, taskID string, get func(context.Context, string) (json.RawMessage, error), opts *stdio.CallOptions) (json.RawMessage, error) {
	for {
		task, err := get(ctx, taskID)
		if err != nil {
			return nil, err
		}
		switch protocol.TaskStatus(task) {
		case "completed":
			result, _ := rawjson.Member(task, "result")
			result = legacyResult(result)
			related := append(rawjson.AppendString([]byte(`{"taskId":`), taskID), '}')
			meta, ok := rawjson.Member(result, "_meta")
			if !ok || !rawjson.IsObject(meta) {
				meta = json.RawMessage(`{}`)
			}
			return withMember(result, "_meta", withMember(meta, protocol.MetaRelatedTask, related)), nil
		case "failed":
			var e jsonrpc.Error
			raw, _ := rawjson.Member(task, "error")
			if json.Unmarshal(raw, &e) != nil || e.Code == 0 {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The task failed")
			}
			return nil, &e
		case "cancelled":
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: the task was cancelled")
		case "input_required":
			if err := t.answerTaskInputs(ctx, taskID, task, opts); err != nil {
				return nil, err
			}
			continue
		}
		var every float64
		if raw, ok := rawjson.Member(task, "pollIntervalMs"); ok {
			_ = json.Unmarshal(raw, &every)
		}
		wait := min(max(time.Duration(every*float64(time.Millisecond)), minTaskPoll), maxTaskPoll)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// answerInputsLater asks the client a 2026 task's questions in the
// background when tasks/get shows them (a 2025 client that polls
// tasks/get, not tasks/result, is asked all the same).
func (t *Tunnel) answerInputsLater(taskID string, task json.RawMessage, opts *stdio.CallOptions) {
	if protocol.TaskStatus(task) != "input_required" {
		return
	}
	if _, ok := rawjson.Member(task, "inputRequests"); !ok {
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		_ = t.answerTaskInputs(t.ctx, taskID, task, opts)
	}()
}

// answerTaskInputs asks the client each of a 2026 task's inputRequests not
// already being asked, as a 2025 server asks (a request with the
// related-task _meta), and sends the answers in tasks/update.
func (t *Tunnel) answerTaskInputs(ctx context.Context, taskID string, task json.RawMessage, opts *stdio.CallOptions) error {
	x := t.xtask(taskID)
	reqs, _ := rawjson.Member(task, "inputRequests")
	var mine []rawjson.Field
	t.mu.Lock()
	for _, f := range rawjson.Fields(reqs) {
		if x == nil || !x.asking[f.Key] {
			mine = append(mine, f)
			if x != nil {
				x.asking[f.Key] = true
			}
		}
	}
	t.mu.Unlock()
	if len(mine) == 0 {
		// Another request asks them: wait for the task to move on.
		select {
		case <-time.After(minTaskPoll):
		case <-ctx.Done():
		}
		return nil
	}
	defer func() {
		if x != nil {
			t.mu.Lock()
			for _, f := range mine {
				delete(x.asking, f.Key)
			}
			t.mu.Unlock()
		}
	}()
	related := append(rawjson.AppendString([]byte(`{"taskId":`), taskID), '}')
	responses := []byte{'{'}
	for _, f := range mine {
		m, _ := rawjson.Member(f.Value, "method")
		method, _ := rawjson.StringValue(m)
		p, _ := rawjson.Member(f.Value, "params")
		if !rawjson.IsObject(p) {
			p = json.RawMessage(`{}`)
		}
		meta, ok := rawjson.Member(p, "_meta")
		if !ok || !rawjson.IsObject(meta) {
			meta = json.RawMessage(`{}`)
		}
		p = withMember(p, "_meta", withMember(meta, protocol.MetaRelatedTask, related))
		answer, err := t.Ask(ctx, fanout.MintID(), stdio.ServerRequest{Method: method, Params: p}, t.child().Relay.Timeout)
		if err != nil {
			return err
		}
		if len(responses) > 1 {
			responses = append(responses, ',')
		}
		responses = append(append(rawjson.AppendString(responses, f.Key), ':'), answer...)
	}
	update := append(rawjson.AppendString([]byte(`{"taskId":`), taskID), `,"inputResponses":`...)
	update = append(append(update, responses...), "}}"...)
	_, err := t.child().Client.Call(ctx, "tasks/update", json.RawMessage(update), opts)
	return err
}
