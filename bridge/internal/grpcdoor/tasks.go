package grpcdoor

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file serves the task RPCs (docs/api.md, "Tasks"): MCP tasks as
// long-running operations. Each RPC is the child's own task methods,
// spoken in the child's era, through the door like any other request, so
// that a task is its creator's (the door's record, package internal/door)
// whichever door created it: StartTask is tools/call asking for a task
// (the 2026-07-28 extension declared in the request's capabilities, or
// 2025-11-25's params.task), GetTask is tasks/get (and, on a 2025 child,
// tasks/result once the task is done), AnswerTask tasks/update,
// CancelTask tasks/cancel. WaitTask and WatchTask poll tasks/get at the
// task's poll interval; ListTasks lists what the door saw the caller
// create.

// Bounds of the bridge's polling of a task.
const (
	minTaskPoll = 100 * time.Millisecond
	maxTaskPoll = time.Second
	// maxTaskPage is ListTasks' largest page, defaultTaskPage its default.
	maxTaskPage     = 100
	defaultTaskPage = 50
)

// taskStates are the MCP statuses as TaskState.
var taskStates = map[string]mcpbridgev1.TaskState{
	"working":        mcpbridgev1.TaskState_TASK_STATE_WORKING,
	"input_required": mcpbridgev1.TaskState_TASK_STATE_INPUT_REQUIRED,
	"completed":      mcpbridgev1.TaskState_TASK_STATE_COMPLETED,
	"failed":         mcpbridgev1.TaskState_TASK_STATE_FAILED,
	"cancelled":      mcpbridgev1.TaskState_TASK_STATE_CANCELLED,
}

// StartTask is tools/call as a task.
func (s *API) StartTask(ctx context.Context, req *mcpbridgev1.StartTaskRequest) (*mcpbridgev1.StartTaskResponse, error) {
	res, legacy, err := s.startTask(ctx, req, true)
	if e := jsonRPCDetail(err); legacy && e != nil && e.GetCode() == jsonrpc.CodeMethodNotFound {
		// tools/call is always found: a 2025-11-25 child answers -32601
		// to a task asked of a tool that does not run as one
		// (taskSupport forbidden), which did not run. It runs now, as a
		// call, and the Task comes back done, as on a 2026 child.
		res, _, err = s.startTask(ctx, req, false)
	}
	return res, err
}

// startTask is StartTask; on a 2025-11-25 child, asking for a task in
// params.task only when ask is set. legacy reports that a task was asked
// so of the child.
func (s *API) startTask(ctx context.Context, req *mcpbridgev1.StartTaskRequest, ask bool) (_ *mcpbridgev1.StartTaskResponse, legacy bool, err error) {
	const method = "tools/call"
	r, err := s.route(ctx, req.GetServer(), &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: method, Kind: access.Tool, Names: []string{req.GetName()}})
	if err != nil {
		return nil, legacy, err
	}
	defer r.release()
	call := &mcpbridgev1.CallToolRequest{Server: req.GetServer(), Name: req.GetName(), Arguments: req.GetArguments(), Meta: req.GetMeta()}
	modern := protocol.Modern(r.c.Protocol())
	if modern {
		caps, err := tasksCaps(req.GetClientCapabilities(), r.c.ClientCapabilities())
		if err != nil {
			return nil, legacy, r.invalid(err)
		}
		call.ClientCapabilities = caps
	} else if req.GetClientCapabilities() != nil {
		return nil, legacy, r.invalid(convert.FieldErrorf("client_capabilities", convert.ReasonInvalidValue, " applies to 2026-07-28 children only; this one speaks %s", r.c.Protocol()))
	}
	params, err := convert.CallToolParams(call, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED, r.era)
	if err != nil {
		return nil, legacy, r.invalid(err)
	}
	if !modern && ask {
		task := json.RawMessage(`{}`)
		if ttl := req.GetTtl(); ttl != nil {
			if err := ttl.CheckValid(); err != nil || ttl.AsDuration() <= 0 {
				return nil, legacy, r.invalid(convert.FieldErrorf("ttl", convert.ReasonInvalidValue, " must be a positive duration"))
			}
			task = json.RawMessage(`{"ttl":` + strconv.FormatInt(ttl.AsDuration().Milliseconds(), 10) + `}`)
		}
		legacy = true
		if params, err = rawjson.SetMember(params, "task", task); err != nil {
			return nil, legacy, r.invalid(err)
		}
	}
	r.setParams(params)
	relay := r.c.Relay
	expected := func() {}
	if legacy {
		// A legacy child asks the task's questions with requests, maybe
		// before this call is answered: the relay holds them for the
		// task's inbox (taskinbox.go).
		expected = relay.ExpectTask()
	}
	defer expected()
	res, err := r.call(ctx, params, nil)
	if err != nil {
		return nil, legacy, err
	}
	if id := r.req.Task; id != "" { // the door recorded the task the child created
		if !modern {
			relay.BindTask(id, s.inboxes.open(r.srv.Name(), id, access.CallerID(ctx)))
		}
		t, err := decodeTask(r.srv.Name(), res, r.era)
		if err != nil {
			return nil, legacy, r.badResult(err)
		}
		return &mcpbridgev1.StartTaskResponse{Task: t}, legacy, nil
	}
	// The tool ran to its end in the request: a done Task without an id.
	out, err := convert.DecodeCallToolResult(res, r.era)
	if err != nil {
		return nil, legacy, r.badResult(err)
	}
	if out.GetInputRequired() != nil {
		return nil, legacy, rpcerr.ToStatus(r.srv.Name(), method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
			"The tool %q asks for input before its task starts (input_required): call it with CallTool, answer, and pass the answers there", req.GetName())})
	}
	state := mcpbridgev1.TaskState_TASK_STATE_COMPLETED
	return &mcpbridgev1.StartTaskResponse{Task: &mcpbridgev1.Task{Server: r.srv.Name(), State: state, Done: true,
		Result: &mcpbridgev1.Task_Response{Response: out}}}, legacy, nil
}

// tasksCaps are the client capabilities of a task request to a 2026
// child: the caller's, or the bridge's own, with the tasks extension.
func tasksCaps(own *structpb.Struct, bridge json.RawMessage) (*structpb.Struct, error) {
	caps := bridge
	if own != nil {
		raw, err := convert.AppendStruct(nil, own)
		if err != nil {
			return nil, convert.FieldErrorf("client_capabilities", convert.ReasonInvalidValue, ": %v", err)
		}
		caps = raw
	}
	return convert.Struct(protocol.WithTasksExtension(caps))
}

// taskCall sends one tasks/* request naming id, with more params, in the
// child's era: on a 2026 child with the tasks extension declared. The
// door checks the caller owns the task before the child sees it.
func (s *API) taskCall(ctx context.Context, server, method, id string, more map[string]json.RawMessage) (json.RawMessage, convert.Era, string, error) {
	if id == "" {
		err := rpcerr.InvalidField(server, method, "task_id", convert.ReasonRequired, " is required")
		return nil, convert.Era{}, "", rpcerr.ToStatus(server, method, err)
	}
	params := rawjson.AppendString([]byte(`{"taskId":`), id)
	params = append(params, '}')
	r, err := s.route(ctx, server, door.NewRequest(door.Via(ctx, door.ViaGRPC), nil, method, params))
	if err != nil {
		return nil, convert.Era{}, "", notFound(err)
	}
	defer r.release()
	sent := json.RawMessage(params)
	for k, v := range more {
		if sent, err = rawjson.SetMember(sent, k, v); err != nil {
			return nil, r.era, "", r.invalid(err)
		}
	}
	if method == "tasks/update" && !protocol.Modern(r.c.Protocol()) {
		// A legacy child has no tasks/update: its questions wait in the
		// task's inbox.
		start := time.Now()
		b := s.inboxes.get(r.srv.Name(), id)
		if b == nil || b.questions.Answer(more["inputResponses"]) == 0 {
			err := rpcerr.ToStatus(r.srv.Name(), method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
				"The task has no open input request with those keys (a 2025-11-25 server asks each question once, and waits for its answer a limited time)")})
			r.pass.Record(start, nil, err)
			return nil, r.era, "", err
		}
		r.pass.Record(start, json.RawMessage(`{}`), nil)
		return json.RawMessage(`{}`), r.era, r.srv.Name(), nil
	}
	if protocol.Modern(r.c.Protocol()) {
		meta := rawjson.AppendString([]byte(`{`), protocol.MetaClientCapabilities)
		meta = append(append(append(meta, ':'), protocol.WithTasksExtension(r.c.ClientCapabilities())...), '}')
		if sent, err = rawjson.SetMember(sent, "_meta", meta); err != nil {
			return nil, r.era, "", r.invalid(err)
		}
	}
	res, err := r.call(ctx, sent, nil)
	return res, r.era, r.srv.Name(), notFound(err)
}

// notFound is err as NOT_FOUND when it says the task is unknown (the
// child's answer, or the door's for another's task, worded alike).
func notFound(err error) error {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.InvalidArgument || st.Message() != "Task not found" {
		return err
	}
	p := st.Proto()
	p.Code = int32(codes.NotFound)
	return status.FromProto(p).Err()
}

// getTask is the task now: tasks/get, and on a legacy child that says
// the task is done, tasks/result for its outcome.
func (s *API) getTask(ctx context.Context, server, id string) (*mcpbridgev1.Task, error) {
	res, era, name, err := s.taskCall(ctx, server, "tasks/get", id, nil)
	if err != nil {
		return nil, err
	}
	t, err := decodeTask(name, res, era)
	if err != nil {
		return nil, rpcerr.ToStatus(name, "tasks/get", &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInternalError, "The MCP server's task is malformed: %v", err)})
	}
	if t.Done {
		s.inboxes.close(name, id)
	}
	if t.State == mcpbridgev1.TaskState_TASK_STATE_INPUT_REQUIRED && !era.Modern() {
		if b := s.inboxes.get(name, id); b != nil {
			if q, err := convert.Struct(b.questions.Open(ctx, inboxWait)); err == nil && q != nil {
				t.InputRequests = q
			}
		}
	}
	if !t.Done || t.Result != nil || t.State == mcpbridgev1.TaskState_TASK_STATE_CANCELLED {
		return t, nil
	}
	res, era, _, err = s.taskCall(ctx, server, "tasks/result", id, nil)
	rpc := jsonRPCDetail(err)
	switch {
	case err == nil:
		out, derr := convert.DecodeCallToolResult(res, era)
		if derr != nil {
			return nil, rpcerr.ToStatus(name, "tasks/result", &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInternalError, "The MCP server's task result is malformed: %v", derr)})
		}
		t.Result = &mcpbridgev1.Task_Response{Response: out}
	case rpc != nil && status.Code(err) != codes.NotFound:
		t.Result = &mcpbridgev1.Task_Error{Error: rpc}
	default:
		return nil, err
	}
	return t, nil
}

// jsonRPCDetail is the JsonRpcError detail of a status error, nil when it
// has none.
func jsonRPCDetail(err error) *mcpbridgev1.JsonRpcError {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if e, ok := d.(*mcpbridgev1.JsonRpcError); ok {
			return e
		}
	}
	return nil
}

// decodeTask is the Task of a task result of server: a CreateTaskResult
// (flat on 2026, {task} on 2025) or a tasks/get result, with, on 2026,
// the input requests, result or error it carries.
func decodeTask(server string, res json.RawMessage, era convert.Era) (*mcpbridgev1.Task, error) {
	if inner, ok := rawjson.Member(res, "task"); ok && rawjson.IsObject(inner) {
		res = inner
	}
	var w struct {
		TaskID         string          `json:"taskId"`
		Status         string          `json:"status"`
		StatusMessage  string          `json:"statusMessage"`
		CreatedAt      string          `json:"createdAt"`
		LastUpdatedAt  string          `json:"lastUpdatedAt"`
		TTL            *float64        `json:"ttl"`
		TTLMs          *float64        `json:"ttlMs"`
		PollInterval   *float64        `json:"pollInterval"`
		PollIntervalMs *float64        `json:"pollIntervalMs"`
		InputRequests  json.RawMessage `json:"inputRequests"`
		Result         json.RawMessage `json:"result"`
		Error          *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(res, &w); err != nil {
		return nil, err
	}
	state, ok := taskStates[w.Status]
	if w.TaskID == "" || !ok {
		return nil, errors.New("a task needs a taskId and a known status")
	}
	t := &mcpbridgev1.Task{Server: server, TaskId: w.TaskID, State: state, StatusMessage: w.StatusMessage,
		Done: state >= mcpbridgev1.TaskState_TASK_STATE_COMPLETED}
	for _, ts := range []struct {
		text string
		dst  **timestamppb.Timestamp
	}{{w.CreatedAt, &t.CreateTime}, {w.LastUpdatedAt, &t.UpdateTime}} {
		if at, err := time.Parse(time.RFC3339Nano, ts.text); err == nil {
			*ts.dst = timestamppb.New(at)
		}
	}
	for _, d := range []struct {
		a, b *float64
		dst  **durationpb.Duration
	}{{w.TTLMs, w.TTL, &t.Ttl}, {w.PollIntervalMs, w.PollInterval, &t.PollInterval}} {
		if v := d.a; v != nil || d.b != nil {
			if v == nil {
				v = d.b
			}
			*d.dst = durationpb.New(time.Duration(*v * float64(time.Millisecond)))
		}
	}
	if state == mcpbridgev1.TaskState_TASK_STATE_INPUT_REQUIRED && rawjson.IsObject(w.InputRequests) {
		q, err := convert.Struct(w.InputRequests)
		if err != nil {
			return nil, err
		}
		t.InputRequests = q
	}
	switch {
	case len(w.Result) > 0 && rawjson.IsObject(w.Result):
		out, err := convert.DecodeCallToolResult(w.Result, era)
		if err != nil {
			return nil, err
		}
		t.Result = &mcpbridgev1.Task_Response{Response: out}
	case w.Error != nil:
		t.Result = &mcpbridgev1.Task_Error{Error: &mcpbridgev1.JsonRpcError{Code: int32(w.Error.Code), Message: w.Error.Message, DataJson: string(w.Error.Data)}}
	}
	return t, nil
}

// GetTask is tasks/get.
func (s *API) GetTask(ctx context.Context, req *mcpbridgev1.GetTaskRequest) (*mcpbridgev1.GetTaskResponse, error) {
	t, err := s.getTask(ctx, req.GetServer(), req.GetTaskId())
	if err != nil {
		return nil, err
	}
	return &mcpbridgev1.GetTaskResponse{Task: t}, nil
}

// pollEvery is how long to wait before asking about t again.
func pollEvery(t *mcpbridgev1.Task) time.Duration {
	return min(max(t.GetPollInterval().AsDuration(), minTaskPoll), maxTaskPoll)
}

// WaitTask polls the task until it is done or needs input, or the
// timeout passes.
func (s *API) WaitTask(ctx context.Context, req *mcpbridgev1.WaitTaskRequest) (*mcpbridgev1.WaitTaskResponse, error) {
	wait := s.core.DefaultDeadline()
	if to := req.GetTimeout(); to != nil {
		if err := to.CheckValid(); err != nil || to.AsDuration() < 0 {
			return nil, rpcerr.ToStatus(req.GetServer(), "WaitTask", rpcerr.InvalidField(req.GetServer(), "WaitTask", "timeout", convert.ReasonInvalidValue, " must be a duration of zero or more"))
		}
		wait = to.AsDuration()
	}
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-deadlineMargin(time.Until(dl)))
	}
	until := time.Now().Add(wait)
	for {
		t, err := s.getTask(ctx, req.GetServer(), req.GetTaskId())
		if err != nil {
			return nil, err
		}
		left := time.Until(until)
		// Input is needed once there is a question to answer: a legacy
		// child's status says input_required a moment before its
		// questions come, and after they are answered.
		asks := t.State == mcpbridgev1.TaskState_TASK_STATE_INPUT_REQUIRED && len(t.GetInputRequests().GetFields()) > 0
		if t.Done || asks || left <= 0 {
			return &mcpbridgev1.WaitTaskResponse{Task: t}, nil
		}
		select {
		case <-time.After(min(pollEvery(t), left)):
		case <-ctx.Done():
			return nil, rpcerr.ToStatus(t.Server, "WaitTask", ctx.Err())
		}
	}
}

// WatchTask streams the task's changes until it is done.
func (s *API) WatchTask(req *mcpbridgev1.WatchTaskRequest, stream grpc.ServerStreamingServer[mcpbridgev1.WatchTaskResponse]) error {
	ctx, end := s.core.LongLived(stream.Context())
	defer end()
	var last *mcpbridgev1.Task
	for {
		t, err := s.getTask(ctx, req.GetServer(), req.GetTaskId())
		if err != nil {
			return rpcerr.Drained(ctx, req.GetServer(), "WatchTask", err)
		}
		if last == nil || changed(last, t) {
			if err := stream.Send(&mcpbridgev1.WatchTaskResponse{Task: t}); err != nil {
				return err
			}
			last = t
		}
		if t.Done {
			return nil
		}
		select {
		case <-time.After(pollEvery(t)):
		case <-ctx.Done():
			return rpcerr.Drained(ctx, req.GetServer(), "WatchTask", rpcerr.ToStatus(t.Server, "WatchTask", ctx.Err()))
		}
	}
}

// changed reports whether b says something a does not: another state,
// status message, input requests or outcome.
func changed(a, b *mcpbridgev1.Task) bool {
	return a.State != b.State || a.StatusMessage != b.StatusMessage || a.Done != b.Done ||
		!proto.Equal(a.InputRequests, b.InputRequests)
}

// AnswerTask is tasks/update with the answers to the input requests; on
// a legacy child it answers the requests the child asked, held in the
// task's inbox.
func (s *API) AnswerTask(ctx context.Context, req *mcpbridgev1.AnswerTaskRequest) (*mcpbridgev1.AnswerTaskResponse, error) {
	const method = "tasks/update"
	answers := req.GetInputResponses()
	if answers == nil {
		return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "input_responses", convert.ReasonRequired, " is required"))
	}
	raw, err := convert.AppendStruct(nil, answers)
	if err != nil {
		return nil, rpcerr.ToStatus(req.GetServer(), method, rpcerr.InvalidField(req.GetServer(), method, "input_responses", convert.ReasonInvalidValue, ": %v", err))
	}
	if _, _, _, err := s.taskCall(ctx, req.GetServer(), method, req.GetTaskId(), map[string]json.RawMessage{"inputResponses": raw}); err != nil {
		return nil, err
	}
	t, err := s.getTask(ctx, req.GetServer(), req.GetTaskId())
	if err != nil {
		return nil, err
	}
	return &mcpbridgev1.AnswerTaskResponse{Task: t}, nil
}

// CancelTask is tasks/cancel; a task that ended already is returned as it
// ended.
func (s *API) CancelTask(ctx context.Context, req *mcpbridgev1.CancelTaskRequest) (*mcpbridgev1.CancelTaskResponse, error) {
	_, _, _, cerr := s.taskCall(ctx, req.GetServer(), "tasks/cancel", req.GetTaskId(), nil)
	if st, _ := status.FromError(cerr); cerr != nil && st.Code() != codes.InvalidArgument {
		return nil, cerr // not the "already ended" of a legacy child
	}
	t, err := s.getTask(ctx, req.GetServer(), req.GetTaskId())
	if err != nil {
		return nil, err
	}
	if cerr != nil && !t.Done {
		return nil, cerr
	}
	return &mcpbridgev1.CancelTaskResponse{Task: t}, nil
}

// ListTasks lists the caller's tasks that the door saw created, each as
// tasks/get answers now.
func (s *API) ListTasks(ctx context.Context, req *mcpbridgev1.ListTasksRequest) (*mcpbridgev1.ListTasksResponse, error) {
	const method = "ListTasks"
	srv, err := s.core.Lookup(ctx, req.GetServer(), method)
	if err != nil {
		return nil, err
	}
	n := int(req.GetPageSize())
	switch {
	case n < 0:
		return nil, rpcerr.ToStatus(srv.Name(), method, rpcerr.InvalidField(srv.Name(), method, "page_size", convert.ReasonInvalidValue, " must not be negative"))
	case n == 0:
		n = defaultTaskPage
	}
	n = min(n, maxTaskPage)
	var after uint64
	if tok := req.GetPageToken(); tok != "" {
		if after, err = strconv.ParseUint(tok, 10, 64); err != nil {
			return nil, rpcerr.ToStatus(srv.Name(), method, rpcerr.InvalidField(srv.Name(), method, "page_token", convert.ReasonInvalidValue, " is not a token this bridge gave"))
		}
	}
	refs := s.core.Door().Tasks(srv.Name(), access.CallerID(ctx), after, n+1)
	out := &mcpbridgev1.ListTasksResponse{}
	if len(refs) > n {
		out.NextPageToken = strconv.FormatUint(refs[n-1].Seq, 10)
		refs = refs[:n]
	}
	for _, ref := range refs {
		t, err := s.getTask(ctx, srv.Name(), ref.ID)
		if status.Code(err) == codes.NotFound {
			continue // expired, or its child forgot it
		}
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, t)
	}
	return out, nil
}
