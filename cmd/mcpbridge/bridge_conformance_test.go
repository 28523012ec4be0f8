package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/testkit/mcphttp"
)

// TestConformanceThroughBridge holds the bridge to its promise that it
// changes nothing but the transport: the official conformance suite scores
// a server directly (through the stdio→HTTP adapter) and through
// `mcpbridge serve` (the same adapter running `mcpbridge connect`, so that
// the suite drives a Connect tunnel), and every check must come out the
// same, one by one, in both eras, for the demo and the Go SDK server.
func TestConformanceThroughBridge(t *testing.T) {
	testkit.Conformance(t) // skip early (or fail under CI=true) without the suite
	servers := []struct {
		name string
		argv func(testing.TB) []string
	}{
		{"demo", func(testing.TB) []string { return []string{mcpbridgeBin, "demo", "-conformance"} }},
		{"go-sdk", testkit.GoSDKServer},
	}
	for _, srv := range servers {
		for _, era := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(srv.name+"/"+era, func(t *testing.T) {
				argv := srv.argv(t)
				direct := mcphttp.Score(t, argv, era, "")
				b := startBridge(t, nil, append([]string{"--protocol", era, "--"}, argv...)...)
				bridged := mcphttp.Score(t, []string{mcpbridgeBin, "connect", "--addr", b.addr}, era, "")
				t.Logf("%s at %s: %d passed, %d failed directly; %d passed, %d failed through the bridge",
					srv.name, era, direct.Passed, direct.Failed, bridged.Passed, bridged.Failed)
				if diff := cmp.Diff(direct.FailedChecks(), bridged.FailedChecks()); diff != "" || direct.Passed != bridged.Passed {
					t.Errorf("%s at %s: %d/%d passed/failed directly, %d/%d through the bridge; failed checks (-direct +bridged):\n%s",
						srv.name, era, direct.Passed, direct.Failed, bridged.Passed, bridged.Failed, diff)
				}
			})
		}
	}
}

// TestConformanceCrossEra scores a 2025 client through the bridge in front
// of a child the bridge negotiated at 2026-07-28 (the demo, which speaks
// both eras): the tunnel passes the client's initialize and requests to
// the child as they are, the child's elicitation and sampling requests
// reach the client's tunnel, and the score is the direct 2025 score,
// check by check.
func TestConformanceCrossEra(t *testing.T) {
	testkit.Conformance(t)
	argv := []string{mcpbridgeBin, "demo", "-conformance"}
	direct := mcphttp.Score(t, argv, "2025-11-25", "")
	b := startBridge(t, nil, append([]string{"--"}, argv...)...)
	res := mcphttp.Score(t, []string{mcpbridgeBin, "connect", "--addr", b.addr}, "2025-11-25", "")
	t.Logf("2025-11-25 client, 2026-07-28 child: %d passed, %d failed (directly: %d, %d)", res.Passed, res.Failed, direct.Passed, direct.Failed)
	if diff := cmp.Diff(direct.FailedChecks(), res.FailedChecks()); diff != "" || direct.Passed != res.Passed {
		t.Errorf("a 2025 client through the bridge to a 2026 child: %d/%d passed/failed, directly %d/%d; failed checks (-direct +bridged):\n%s",
			res.Passed, res.Failed, direct.Passed, direct.Failed, diff)
	}
}
