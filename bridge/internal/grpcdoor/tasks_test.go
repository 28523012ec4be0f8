package grpcdoor

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The task RPCs in both eras, on the fixture's task tools: a task that
// asks is started, waited for to its question, answered, and waited for to
// its result, which GetTask, WatchTask and ListTasks show too; a task that
// holds is cancelled; a tool that is not a task ends at once; an unknown
// task is NOT_FOUND.
func TestTaskRPCs(t *testing.T) {
	_, client := twoEras(t, startEras(t))
	ctx := testCtx(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			start := func(name string) *mcpbridgev1.Task {
				t.Helper()
				res, err := client.StartTask(ctx, &mcpbridgev1.StartTaskRequest{Server: era, Name: name, Ttl: durationpb.New(time.Minute)})
				if err != nil {
					t.Fatalf("StartTask %s: %v", name, err)
				}
				return res.GetTask()
			}
			job := start("job")
			if job.GetTaskId() == "" || job.GetDone() || job.GetServer() != era {
				t.Fatalf("StartTask job = %v; want a live task on %s", job, era)
			}
			waited, err := client.WaitTask(ctx, &mcpbridgev1.WaitTaskRequest{Server: era, TaskId: job.GetTaskId(), Timeout: durationpb.New(wait)})
			if err != nil || waited.GetTask().GetState() != mcpbridgev1.TaskState_TASK_STATE_INPUT_REQUIRED || len(waited.GetTask().GetInputRequests().GetFields()) != 1 {
				t.Fatalf("WaitTask of the asking job = %v, %v; want INPUT_REQUIRED with one question", waited, err)
			}
			answers := map[string]any{}
			for key, q := range waited.GetTask().GetInputRequests().GetFields() {
				if m := q.GetStructValue().GetFields()["method"].GetStringValue(); m != "elicitation/create" {
					t.Errorf("question %s is %q, want elicitation/create", key, m)
				}
				answers[key] = map[string]any{"action": "accept", "content": map[string]any{"ok": true}}
			}
			responses, err := structpb.NewStruct(answers)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := client.AnswerTask(ctx, &mcpbridgev1.AnswerTaskRequest{Server: era, TaskId: job.GetTaskId(), InputResponses: responses}); err != nil {
				t.Fatalf("AnswerTask: %v", err)
			}
			waited, err = client.WaitTask(ctx, &mcpbridgev1.WaitTaskRequest{Server: era, TaskId: job.GetTaskId(), Timeout: durationpb.New(wait)})
			if err != nil || waited.GetTask().GetState() != mcpbridgev1.TaskState_TASK_STATE_COMPLETED || text(t, waited.GetTask().GetResponse()) != "job accept" {
				t.Fatalf("WaitTask after the answer = %v, %v; want COMPLETED with \"job accept\"", waited, err)
			}
			got, err := client.GetTask(ctx, &mcpbridgev1.GetTaskRequest{Server: era, TaskId: job.GetTaskId()})
			if err != nil || !got.GetTask().GetDone() || text(t, got.GetTask().GetResponse()) != "job accept" {
				t.Errorf("GetTask of the done job = %v, %v", got, err)
			}
			watch, err := client.WatchTask(ctx, &mcpbridgev1.WatchTaskRequest{Server: era, TaskId: job.GetTaskId()})
			if err != nil {
				t.Fatal(err)
			}
			if ev, err := watch.Recv(); err != nil || !ev.GetTask().GetDone() {
				t.Errorf("WatchTask of the done job = %v, %v; want the done task", ev, err)
			}

			hold := start("hold")
			listed, err := client.ListTasks(ctx, &mcpbridgev1.ListTasksRequest{Server: era})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, task := range listed.GetTasks() {
				seen[task.GetTaskId()] = true
			}
			if !seen[job.GetTaskId()] || !seen[hold.GetTaskId()] {
				t.Errorf("ListTasks = %v; want both tasks", listed)
			}
			cancelled, err := client.CancelTask(ctx, &mcpbridgev1.CancelTaskRequest{Server: era, TaskId: hold.GetTaskId()})
			if err != nil {
				t.Fatalf("CancelTask: %v", err)
			}
			if st := cancelled.GetTask().GetState(); st != mcpbridgev1.TaskState_TASK_STATE_CANCELLED {
				waited, err := client.WaitTask(ctx, &mcpbridgev1.WaitTaskRequest{Server: era, TaskId: hold.GetTaskId(), Timeout: durationpb.New(wait)})
				if err != nil || waited.GetTask().GetState() != mcpbridgev1.TaskState_TASK_STATE_CANCELLED {
					t.Errorf("the held task after CancelTask = %v, %v; want CANCELLED", waited, err)
				}
			}

			now := start("echo")
			if !now.GetDone() || now.GetTaskId() != "" {
				t.Errorf("StartTask of a tool that is no task = %v; want it done, without an id", now)
			}
			_, err = client.GetTask(ctx, &mcpbridgev1.GetTaskRequest{Server: era, TaskId: "no-such-task"})
			if status.Code(err) != codes.NotFound {
				t.Errorf("GetTask of an unknown task = %v, want NotFound", err)
			}
		})
	}
}
