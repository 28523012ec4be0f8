package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/conformancetest"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestConformanceThroughBridge holds the bridge to its promise that it
// changes nothing but the transport: the official conformance suite scores
// a server directly (through the stdio→HTTP adapter) and through
// `mcpbridge serve` twice: at its own HTTP front door (--http-listen, /mcp)
// and through the adapter running `mcpbridge connect`, so that the suite
// drives a Connect tunnel. Every check must come out the same, one by one,
// in both eras, for the demo and the Go SDK server.
func TestConformanceThroughBridge(t *testing.T) {
	testkit.Conformance(t) // skip early (or fail under CI=true) without the suite
	for _, srv := range conformanceServers {
		for _, era := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(srv.name+"/"+era, func(t *testing.T) {
				argv := srv.argv(t)
				b := startBridge(t, nil, append([]string{"--protocol", era, "--http-listen", "127.0.0.1:0", "--"}, argv...)...)
				// On a loaded machine a check of the suite's that waits for
				// a notification can come out missing in any run, the
				// direct one included; a disagreement is scored again once,
				// all three runs, and must not recur.
				for attempt := 1; ; attempt++ {
					diffs := scoreThroughBridge(t, argv, era, srv.name, b)
					if len(diffs) == 0 {
						break
					}
					if attempt == 2 {
						for _, d := range diffs {
							t.Error(d)
						}
						break
					}
					t.Logf("attempt %d disagreed; scoring again:\n%s", attempt, strings.Join(diffs, "\n"))
				}
			})
		}
	}
}

// conformanceServers are the servers the conformance tests score: the
// demo with its conformance fixtures, and the Go SDK's server.
var conformanceServers = []struct {
	name string
	argv func(testing.TB) []string
}{
	{"demo", func(testing.TB) []string { return []string{mcpbridgeBin, "demo", "-conformance"} }},
	{"go-sdk", testkit.GoSDKServer},
}

// scoreThroughBridge scores argv directly and through the bridge b on both
// paths, and returns how each path's checks differ from the direct ones.
func scoreThroughBridge(t *testing.T, argv []string, era, name string, b *bridgeProcess) []string {
	direct := conformancetest.Score(t, argv, era, "")
	paths := []struct {
		name string
		res  conformancetest.Result
	}{
		{"a Connect tunnel", conformancetest.Score(t, []string{mcpbridgeBin, "connect", "--addr", b.addr}, era, "")},
		{"the HTTP front door", conformancetest.ScoreURL(t, "http://"+httpAddr(t, b)+"/mcp", era, "")},
	}
	var diffs []string
	for _, p := range paths {
		t.Logf("%s at %s: %d passed, %d failed directly; %d passed, %d failed through %s",
			name, era, direct.Passed, direct.Failed, p.res.Passed, p.res.Failed, p.name)
		diff := cmp.Diff(direct.FailedChecks(), p.res.FailedChecks())
		for _, sc := range scenarioDiffs(direct, p.res) {
			diff += "\n" + sc
		}
		if diff != "" || direct.Passed != p.res.Passed {
			diffs = append(diffs, fmt.Sprintf("%s at %s: %d/%d passed/failed directly, %d/%d through %s; failed checks (-direct +bridged) and scenarios that differ:\n%s",
				name, era, direct.Passed, direct.Failed, p.res.Passed, p.res.Failed, p.name, diff))
		}
	}
	return diffs
}

// scenarioDiffs names the scenarios whose counts differ between two runs.
func scenarioDiffs(a, b conformancetest.Result) []string {
	counts := map[string][2]conformancetest.ScenarioResult{}
	for _, s := range a.Scenarios {
		c := counts[s.Name]
		c[0] = s
		counts[s.Name] = c
	}
	for _, s := range b.Scenarios {
		c := counts[s.Name]
		c[1] = s
		counts[s.Name] = c
	}
	var out []string
	for name, c := range counts {
		x, y := c[0], c[1]
		if x.Passed != y.Passed || x.Failed != y.Failed || x.Warnings != y.Warnings || x.Other != y.Other {
			out = append(out, fmt.Sprintf("scenario %s: passed/failed/warnings/other %d/%d/%d/%d directly, %d/%d/%d/%d bridged",
				name, x.Passed, x.Failed, x.Warnings, x.Other, y.Passed, y.Failed, y.Warnings, y.Other))
		}
	}
	slices.Sort(out)
	return out
}

// TestConformanceCrossEra scores a client of one era through the bridge in
// front of a child of the other, against the same server spoken to
// natively in the client's era (the dual-era demo, directly): a 2025 suite
// in front of a 2026-only demo and of the dual demo the bridge negotiated
// at 2026; a 2026 suite in front of a 2025-only demo and of the dual demo
// pinned at 2025. The tunnel translates (bridge/crossera.go), and every
// check must come out as it does natively, except the named checks that
// no translation can pass, which must fail (so the list stays exact).
func TestConformanceCrossEra(t *testing.T) {
	testkit.Conformance(t)
	demo := []string{mcpbridgeBin, "demo", "-conformance"}
	// What a 2025 child cannot give a 2026 client: checks that fail, or
	// (warn) only warn.
	type gap struct {
		why  string
		warn bool
	}
	legacyGaps := map[string]gap{
		// A legacy server request has no name; the bridge names the input
		// requests it turns them into input-1, input-2, ... so a client
		// that answers by the server's own names is asked again.
		"input-required-result-basic-elicitation: sep-2322-elicitation-incomplete":     {"input request keys", false},
		"input-required-result-ignore-extra-params: sep-2322-ignore-unexpected-params": {"input request keys", true},
		// A legacy child learns one set of client capabilities, at the
		// bridge's initialize; a request that declares fewer gets -32021
		// when the child asks for more.
		"input-required-result-capability-check: sep-2322-respect-client-capabilities": {"per-request capabilities", false},
	}
	cases := []struct {
		name   string
		era    string
		bridge []string
		gaps   map[string]gap
	}{
		{"2025 client, 2026-only child", "2025-11-25", append(append([]string{"--"}, demo...), "-versions", "2026-07-28"), nil},
		{"2025 client, dual-era child at 2026", "2025-11-25", append([]string{"--protocol", "2026-07-28", "--"}, demo...), nil},
		// A 2026 client reaches a 2025 child across eras through shared
		// tunnels; a private tunnel answers its server/discover as the
		// child would, as if the client had launched it.
		{"2026 client, 2025-only child", "2026-07-28", append(append([]string{"--tunnel", "shared", "--"}, demo...), "-versions", "2025-11-25,2025-06-18"), legacyGaps},
		{"2026 client, dual-era child at 2025", "2026-07-28", append([]string{"--tunnel", "shared", "--protocol", "2025-11-25", "--"}, demo...), legacyGaps},
	}
	direct := map[string]conformancetest.Result{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			native, ok := direct[tc.era]
			if !ok {
				native = conformancetest.Score(t, demo, tc.era, "")
				direct[tc.era] = native
			}
			b := startBridge(t, nil, tc.bridge...)
			res := conformancetest.Score(t, []string{mcpbridgeBin, "connect", "--addr", b.addr}, tc.era, "")
			t.Logf("%s: %d passed, %d failed (natively: %d, %d)", tc.name, res.Passed, res.Failed, native.Passed, native.Failed)
			want := native.FailedChecks()
			for check, g := range tc.gaps {
				if !g.warn {
					want = append(want, check)
				}
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, slices.Sorted(slices.Values(res.FailedChecks()))); diff != "" {
				t.Errorf("failed checks (-native and the known gaps +through the bridge):\n%s\n%s", diff, res.Summary())
			}
			// Scenarios without a gap must also pass as many checks (a
			// failed first check can hide the ones after it).
			passed := map[string]int{}
			for _, sc := range native.Scenarios {
				passed[sc.Name] = sc.Passed
			}
			for _, sc := range res.Scenarios {
				gap := false
				for check := range tc.gaps {
					gap = gap || strings.HasPrefix(check, sc.Name+": ")
				}
				if !gap && sc.Passed != passed[sc.Name] {
					t.Errorf("scenario %s: %d checks passed through the bridge, %d natively", sc.Name, sc.Passed, passed[sc.Name])
				}
			}
		})
	}
}

// TestConformanceThroughAggregate scores an aggregate whose first member
// is the Go SDK server and whose second is the demo, with conflicts:
// priority, at /mcp/all: check by check as the Go SDK server alone, in
// both eras (docs/aggregation.md, "Conformance").
func TestConformanceThroughAggregate(t *testing.T) {
	testkit.Conformance(t)
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			argv := testkit.GoSDKServer(t)
			b := startBridge(t, nil, "--http-listen", "127.0.0.1:0", "--config", writeConfig(t, "", fmt.Sprintf(`servers:
  - name: conf
    command: %s
    protocol: %s
  - name: demo
    command: %s
    protocol: %s
  - name: all
    aggregate:
      servers: [conf, demo]
      conflicts: priority
`, yamlList(argv), era, yamlList([]string{mcpbridgeBin, "demo"}), era)))
			for attempt := 1; ; attempt++ {
				direct := conformancetest.Score(t, argv, era, "")
				agg := conformancetest.ScoreURL(t, "http://"+httpAddr(t, b)+"/mcp/all", era, "")
				t.Logf("at %s: %d passed, %d failed directly; %d passed, %d failed through the aggregate", era, direct.Passed, direct.Failed, agg.Passed, agg.Failed)
				diff := cmp.Diff(direct.FailedChecks(), agg.FailedChecks())
				for _, sc := range scenarioDiffs(direct, agg) {
					diff += "\n" + sc
				}
				if diff == "" && direct.Passed == agg.Passed {
					break
				}
				if attempt == 2 {
					t.Errorf("at %s the aggregate differs from the Go SDK server alone (-direct +aggregate):\n%s", era, diff)
					break
				}
				t.Logf("attempt %d disagreed; scoring again:\n%s", attempt, diff)
			}
		})
	}
}
