// Package conformancetest runs the official MCP conformance suite against a
// Streamable HTTP endpoint and counts its checks: a stdio server's argv
// served through the product's adapter (package stdio/mcphttp), or a
// URL such as the bridge's own HTTP front door (docs/testing.md,
// "Conformance scores").
package conformancetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// scoreTimeout bounds one run of the conformance CLI; a run of the Go SDK
// server takes seconds.
const scoreTimeout = 10 * time.Minute

// Result is one conformance run, counted check by check from the
// checks.json files the CLI wrote, not from its exit code.
type Result struct {
	// Requirements is the --requirements set that was run.
	Requirements string
	// Scenarios are in name order.
	Scenarios []ScenarioResult
	// Passed and Failed count SUCCESS and FAILURE checks over every
	// scenario, scored or not, as the CLI's Total line does.
	Passed, Failed int
	// ExitCode is the CLI's: 1 means a failure that was not expected.
	ExitCode int
	// Output is the CLI's stdout and stderr.
	Output []byte
	// Elapsed is the CLI's wall time.
	Elapsed time.Duration
}

// ScenarioResult counts one scenario's checks by status.
type ScenarioResult struct {
	Name string
	// Passed, Failed and Warnings count SUCCESS, FAILURE and WARNING;
	// Other counts the rest (INFO, SKIPPED).
	Passed, Failed, Warnings, Other int
	// Failures are the FAILURE checks, in the file's order.
	Failures []Check
}

// Check is one entry of a checks.json file.
type Check struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Message is the check's errorMessage.
	Message string `json:"errorMessage"`
}

// FailedChecks lists every failed check as "scenario: id", in scenario
// order.
func (r *Result) FailedChecks() []string {
	var out []string
	for _, s := range r.Scenarios {
		for _, c := range s.Failures {
			out = append(out, s.Name+": "+c.ID)
		}
	}
	return out
}

// Summary is a line per scenario with failures, then the totals.
func (r *Result) Summary() string {
	var b strings.Builder
	for _, s := range r.Scenarios {
		if s.Failed == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %d passed, %d failed\n", s.Name, s.Passed, s.Failed)
		for _, c := range s.Failures {
			fmt.Fprintf(&b, "    %s: %s\n", c.ID, c.Message)
		}
	}
	fmt.Fprintf(&b, "requirements %s: %d passed, %d failed in %d scenarios (CLI exit %d, %v)",
		r.Requirements, r.Passed, r.Failed, len(r.Scenarios), r.ExitCode, r.Elapsed.Round(time.Millisecond))
	return b.String()
}

// Score runs the official conformance CLI ([testkit.Conformance]) with
// --requirements requirements against the stdio MCP server argv, served by
// an mcphttp.Adapter on a loopback httptest server, and returns the
// counted checks, as [ScoreURL] does. The children's stderr and the
// adapter's log are logged if the test fails.
func Score(tb testing.TB, argv []string, requirements, outDir string) Result {
	tb.Helper()
	if testkit.Conformance(tb) == nil {
		return Result{}
	}
	diag := &tailBuffer{max: 64 << 10}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("children's stderr and adapter log (last %d bytes):\n%s", diag.max, diag.Bytes())
		}
	})
	a, err := mcphttp.New(mcphttp.Config{
		Start:  mcphttp.Command(argv, nil, "", diag),
		Logger: slog.New(slog.NewTextHandler(diag, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		tb.Fatalf("mcphttp.New: %v", err)
	}
	srv := httptest.NewServer(a)
	defer func() {
		a.Close() // ends the streams that srv.Close would wait for
		srv.Close()
	}()
	return ScoreURL(tb, srv.URL+mcphttp.Endpoint, requirements, outDir)
}

// ScoreURL runs the official conformance CLI ([testkit.Conformance]) with
// --requirements requirements against the Streamable HTTP endpoint url and
// returns the counted checks. The CLI writes its results under outDir (a
// fresh t.TempDir() when empty), which must not hold an earlier run.
//
// A missing conformance install skips the test (fails it under CI=true). A
// CLI that cannot run, or whose totals disagree with the checks counted,
// fails the test; failed checks do not: judging them is the caller's part.
func ScoreURL(tb testing.TB, url, requirements, outDir string) Result {
	tb.Helper()
	cli := testkit.Conformance(tb)
	if cli == nil {
		return Result{}
	}
	if outDir == "" {
		outDir = tb.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), scoreTimeout)
	defer cancel()
	args := append(slices.Clone(cli[1:]), "server", "--url", url, "--requirements", requirements, "-o", outDir)
	cmd := exec.CommandContext(ctx, cli[0], args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Requirements: requirements, Output: out.Bytes(), Elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && ctx.Err() == nil:
		res.ExitCode = exit.ExitCode()
	case err != nil:
		tb.Fatalf("conformance CLI %q: %v\n%s", args, err, out.Bytes())
	}
	parsed, err := ParseResults(outDir)
	if err != nil {
		tb.Fatalf("reading the conformance results: %v\nCLI output:\n%s", err, out.Bytes())
	}
	res.Scenarios, res.Passed, res.Failed = parsed.Scenarios, parsed.Passed, parsed.Failed
	for i := range res.Scenarios {
		for j, c := range res.Scenarios[i].Failures {
			if c.ID != ScenarioFailedCheck {
				continue
			}
			// The CLI said why on its output.
			why := regexp.MustCompile(`(?m)^Failed to run scenario ` + regexp.QuoteMeta(res.Scenarios[i].Name) + `: (.*)$`).FindSubmatch(out.Bytes())
			if why != nil {
				res.Scenarios[i].Failures[j].Message = string(why[1])
			}
		}
	}
	if passed, failed, ok := cliTotal(out.Bytes()); !ok || passed != res.Passed || failed != res.Failed {
		tb.Errorf("checks.json files count %d passed, %d failed; the CLI's Total line says %d, %d (found: %v)\n%s",
			res.Passed, res.Failed, passed, failed, ok, out.Bytes())
	}
	return res
}

// scenarioDir matches the directory the CLI writes a scenario's results
// to: server-<scenario>-<UTC timestamp with - for : and .>.
var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// ScenarioFailedCheck is the id of the failure ParseResults records for a
// scenario that failed to run: the CLI made its directory but wrote no
// checks.json (and counted one failure).
const ScenarioFailedCheck = "scenario-failed-to-run"

// ParseResults counts the checks of every <dir>/server-<scenario>-*/checks.json.
// Only Scenarios, Passed and Failed of the Result are set. A scenario found
// twice is an error: dir must hold one run.
func ParseResults(dir string) (Result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Result{}, err
	}
	var res Result
	seen := map[string]bool{}
	for _, e := range entries {
		m := scenarioDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		name := m[1]
		if seen[name] {
			return Result{}, fmt.Errorf("%s: scenario %s has more than one result directory", dir, name)
		}
		seen[name] = true
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		var checks []Check
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// The CLI makes the directory, then writes nothing when the
			// scenario throws; it counts that as one failure.
			checks = []Check{{ID: ScenarioFailedCheck, Status: "FAILURE", Message: "the scenario failed to run and wrote no checks.json"}}
		case err != nil:
			return Result{}, err
		default:
			if err := json.Unmarshal(data, &checks); err != nil {
				return Result{}, fmt.Errorf("%s: %v", filepath.Join(e.Name(), "checks.json"), err)
			}
		}
		s := ScenarioResult{Name: name}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				s.Passed++
			case "FAILURE":
				s.Failed++
				s.Failures = append(s.Failures, c)
			case "WARNING":
				s.Warnings++
			default:
				s.Other++
			}
		}
		res.Passed += s.Passed
		res.Failed += s.Failed
		res.Scenarios = append(res.Scenarios, s)
	}
	slices.SortFunc(res.Scenarios, func(a, b ScenarioResult) int { return strings.Compare(a.Name, b.Name) })
	return res, nil
}

var totalLine = regexp.MustCompile(`(?m)^Total: (\d+) passed, (\d+) failed`)

// cliTotal reads the CLI's own "Total: N passed, M failed" line.
func cliTotal(out []byte) (passed, failed int, ok bool) {
	m := totalLine.FindSubmatch(out)
	if m == nil {
		return 0, 0, false
	}
	passed, _ = strconv.Atoi(string(m[1]))
	failed, _ = strconv.Atoi(string(m[2]))
	return passed, failed, true
}

// tailBuffer keeps the last max bytes written to it, from any goroutine.
type tailBuffer struct {
	max int
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.buf)
}
