//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestREADMETour replays the README's tour as it is printed: every `$ `
// command of its shell blocks, run with bash against `mcpbridge serve
// --http-listen` in front of the demo (the tour's addresses replaced by
// the test's), must print what the README shows. Output is compared with
// whitespace ignored; "..." in the README elides anything, and timestamps,
// pids and durations match any value. A command that streams (Subscribe)
// runs until its output matches or tourWait passes; one whose answer
// depends on what came before (GetServer after a crash) is tried again
// until it matches.
func TestREADMETour(t *testing.T) {
	g := findGrpcurl(t)
	if _, err := exec.LookPath("curl"); err != nil {
		testkit.MissingPeer(t, "curl", "apt-get install curl")
		return
	}
	readme, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tour := string(readme)
	start, end := strings.Index(tour, "## A five-minute tour with grpcurl"), strings.Index(tour, "\n## Using the API")
	if start < 0 || end < start {
		t.Fatal("README.md has no tour between \"## A five-minute tour with grpcurl\" and \"## Using the API\"")
	}
	steps := tourSteps(tour[start:end])
	if len(steps) < 8 {
		t.Fatalf("found %d commands in the README's tour, want at least 8", len(steps))
	}
	b := startBridge(t, nil, "--http-listen", "127.0.0.1:0")
	httpAddr := httpAddr(t, b)
	path := filepath.Dir(g.path) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, st := range steps {
		command := strings.NewReplacer("localhost:50051", b.addr, "127.0.0.1:8080", httpAddr).Replace(st.command)
		want := tourPattern(st.output)
		var got string
		for deadline := time.Now().Add(tourWait); ; time.Sleep(200 * time.Millisecond) {
			got = runTourCommand(t, command, path, want)
			if want.MatchString(squeeze(got)) || time.Now().After(deadline) {
				break
			}
		}
		if !want.MatchString(squeeze(got)) {
			t.Errorf("README: $ %s\nprinted:\n%s\nwhere the README shows:\n%s", st.command, got, st.output)
		}
	}
}

// tourWait bounds how long one command of the tour may take to print what
// the README shows: the demo's counter ticks every 3 s, and the Subscribe
// step shows two ticks.
const tourWait = 15 * time.Second

// tourStep is one `$ ` command of the tour and what the README shows it
// print.
type tourStep struct{ command, output string }

// shBlock is a fenced shell block of the README.
var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// tourSteps reads the commands of the tour's sh blocks: a line starting
// "$ " (with its "\" continuations) and the lines up to the next command
// or the block's end.
func tourSteps(tour string) []tourStep {
	var steps []tourStep
	for _, block := range shBlock.FindAllStringSubmatch(tour, -1) {
		lines := strings.Split(strings.TrimSuffix(block[1], "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			cmd, ok := strings.CutPrefix(lines[i], "$ ")
			if !ok {
				continue
			}
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			var out []string
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
				i++
				out = append(out, lines[i])
			}
			steps = append(steps, tourStep{cmd, strings.Join(out, "\n")})
		}
	}
	return steps
}

// volatile are the values that differ from run to run: timestamps, pids
// and durations, and what each matches.
var volatile = []struct {
	re      *regexp.Regexp
	pattern string
}{
	{regexp.MustCompile(`"\d{4}-\d\d-\d\dT[^"]*"`), `"[^"]*"`},
	{regexp.MustCompile(`"pid":\d+`), `"pid":\d+`},
	{regexp.MustCompile(`\d+(\.\d+)?[µnm]?s\b`), `\d+(\.\d+)?[µnm]?s`},
}

// squeeze drops all whitespace, so that the README's compact JSON and
// grpcurl's indented JSON compare.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// tourPattern turns what the README shows into a regexp over the squeezed
// output: "..." matches anything, volatile values any value.
func tourPattern(shown string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	for i, part := range strings.Split(squeeze(shown), "...") {
		if i > 0 {
			b.WriteString(`.*?`)
		}
		for part != "" {
			first, firstAt := -1, []int(nil)
			for j, v := range volatile {
				if at := v.re.FindStringIndex(part); at != nil && (firstAt == nil || at[0] < firstAt[0]) {
					first, firstAt = j, at
				}
			}
			if firstAt == nil {
				b.WriteString(regexp.QuoteMeta(part))
				break
			}
			b.WriteString(regexp.QuoteMeta(part[:firstAt[0]]) + volatile[first].pattern)
			part = part[firstAt[1]:]
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(`(?s)` + b.String())
}

// runTourCommand runs a tour command with bash and returns what it
// printed, stdout and stderr together; a command still running when its
// output matches want, or after tourWait, is stopped (Subscribe).
func runTourCommand(t *testing.T, command, path string, want *regexp.Regexp) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), tourWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Env = append(os.Environ(), "PATH="+path)
	cmd.WaitDelay = 5 * time.Second
	out := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return out.String()
		case <-time.After(100 * time.Millisecond):
			if want.MatchString(squeeze(out.String())) {
				cancel()
				<-done
				return out.String()
			}
		}
	}
}
