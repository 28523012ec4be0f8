package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/conformancetest"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// tasksFailures are the checks `mcpbridge demo -conformance` fails at
// 2026-07-28, all in the tasks extension (io.modelcontextprotocol/tasks;
// docs/protocol.md, "Tasks"), which the suite runs but does not score: the
// runtime (stdio/mcp) does not implement the extension, so the demo
// advertises no tasks capability, its tools never answer with resultType
// "task", and tasks/get, tasks/update and tasks/cancel are -32601. The Go
// SDK server, which lacks it too, fails the same 30.
var tasksFailures = []string{
	"tasks-capability-negotiation: tasks-extension-advertised",
	"tasks-capability-negotiation: sep-2663-tasks-methods-non-declaring",
	"tasks-capability-negotiation: sep-2663-server-rejects-undeclared-client",
	"tasks-capability-negotiation: tasks-per-request-meta-opt-in",
	"tasks-dispatch-and-envelope: tasks-server-directed-creation-no-hint",
	"tasks-dispatch-and-envelope: sep-2663-legacy-task-param-ignored",
	"tasks-dispatch-and-envelope: tasks-immediate-result-shortcut",
	"tasks-dispatch-and-envelope: tasks-result-type-complete-on-non-task-responses",
	"tasks-dispatch-and-envelope: sep-2663-durable-create-strong-consistency",
	"tasks-dispatch-and-envelope: sep-2663-tasks-get-invalid-task-id-32602",
	"tasks-lifecycle: tasks-sync-tool-call",
	"tasks-lifecycle: sep-2663-result-type-task-on-create",
	"tasks-lifecycle: sep-2663-tasks-get-status-working",
	"tasks-lifecycle: sep-2663-tasks-get-status-completed",
	"tasks-lifecycle: sep-2663-tool-error-uses-completed-status",
	"tasks-lifecycle: sep-2663-tasks-get-status-failed",
	"tasks-lifecycle: sep-2663-cancel-ack-empty-result",
	"tasks-lifecycle: tasks-cancel-terminal-idempotent-ack",
	"tasks-mrtr-composition: sep-2663-mrtr-synchronous-before-task-creation",
	"tasks-mrtr-input: sep-2663-tasks-get-status-input-required",
	"tasks-mrtr-input: tasks-mrtr-tasks-update-resumes",
	"tasks-mrtr-input: tasks-mrtr-partial-fulfillment",
	"tasks-request-headers: tasks-headers-tolerate-mcp-method-on-tools-call",
	"tasks-request-headers: sep-2663-routing-headers-accepted-on-tasks-get",
	"tasks-request-headers: sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get",
	"tasks-request-state-removal: tasks-request-state-removal-setup",
	"tasks-required-task-error: sep-2663-server-returns-missing-capability-when-required",
	"tasks-wire-fields: tasks-wire-field-renames",
	"tasks-wire-fields: tasks-no-early-ttl-expiry",
	"tasks-wire-fields: tasks-no-related-task-meta-on-inlined-result",
}

// TestDemoConformance scores `mcpbridge demo -conformance` with the official
// conformance suite through the stdio→HTTP adapter, and holds it to its
// exact score: every scored scenario of both requirement sets passes, and
// only the unscored tasks extension fails. The Go SDK server, scored the
// same way (conformancetest.TestGoSDKServerConformance), gets 161/34 and 82/0: the
// demo also passes the four server-stateless checks it fails (a request
// without a 2026 protocolVersion gets -32602 and 400, not -32601 and 404).
//
// A change of the suite or of the demo that moves any count fails here, in
// either direction, so that a new pass or failure is looked at before the
// numbers are updated.
func TestDemoConformance(t *testing.T) {
	testkit.Conformance(t) // skip early (or fail under CI=true) without the suite
	tests := []struct {
		requirements   string
		passed, failed int
		failures       []string
	}{
		{requirements: "2026-07-28", passed: 165, failed: 30, failures: tasksFailures},
		{requirements: "2025-11-25", passed: 82, failed: 0},
	}
	for _, tt := range tests {
		t.Run(tt.requirements, func(t *testing.T) {
			res := conformancetest.Score(t, []string{mcpbridgeBin, "demo", "-conformance"}, tt.requirements, "")
			t.Logf("%s", res.Summary())
			if res.Passed != tt.passed || res.Failed != tt.failed {
				t.Errorf("Score(%s) = %d passed, %d failed; want %d, %d", tt.requirements, res.Passed, res.Failed, tt.passed, tt.failed)
			}
			if diff := cmp.Diff(tt.failures, res.FailedChecks()); diff != "" {
				t.Errorf("Score(%s) failed checks (-want +got):\n%s", tt.requirements, diff)
			}
			if res.ExitCode != 0 {
				t.Errorf("conformance CLI exit %d, want 0 (no failure outside the unscored extensions)", res.ExitCode)
			}
		})
	}
}
