package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/conformancetest"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestDemoConformance scores `mcpbridge demo -conformance` with the official
// conformance suite through the stdio→HTTP adapter, and holds it to its
// exact score: every check of both requirement sets passes, the unscored
// tasks extension's too (its fixtures: demo/tasks.go; the runtime's tasks:
// stdio/mcp/tasks.go), where the demo failed 30 checks before it had
// tasks. The Go SDK server, scored the same way
// (conformancetest.TestGoSDKServerConformance), gets 161/34 and 82/0: it
// lacks the tasks extension, and the demo also passes the four
// server-stateless checks it fails (a request without a 2026
// protocolVersion gets -32602 and 400, not -32601 and 404).
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
		{requirements: "2026-07-28", passed: 197, failed: 0},
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
