package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/testkit/stdiotest"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// goProgram is a fenced Go block of README.md that is a whole program.
var goProgram = regexp.MustCompile("(?s)```go\n(package main\n.*?)```")

// The README's server is a complete program: it builds as printed, and
// a client gets its tool's answer, or the reason it has none, in both
// eras.
func TestREADMEServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with go build")
	}
	root := testkit.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goProgram.FindAllSubmatch(readme, -1)
	if len(blocks) != 1 {
		t.Fatalf("README.md has %d Go blocks that are programs, want 1", len(blocks))
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "main.go"), filepath.Join(dir, "weather")
	if err := os.WriteFile(src, blocks[0][1], 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, src)
	build.Dir = root // the program's imports resolve to this module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the README's program: %v\n%s", err, out)
	}
	for _, version := range []string{stdio.Version20260728, stdio.Version20251125} {
		t.Run(version, func(t *testing.T) {
			var stderr testkit.SyncBuffer
			start := func(ctx context.Context) (*stdio.Client, error) {
				cmd := exec.Command(bin)
				cmd.Stderr = &stderr
				return stdio.Start(ctx, cmd, stdio.ClientConfig{})
			}
			c := stdiotest.Connect(t, start, stdio.ConnectConfig{Versions: []string{version}}, 0, &stderr)
			res := stdiotest.Call(t, c, "tools/call", `{"name":"forecast","arguments":{"city":"Paris"}}`, nil)
			var r struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal(res, &r); err != nil || len(r.Content) != 1 || r.Content[0].Text != "Sunny in Paris" {
				t.Errorf("forecast(Paris) = %s, want one text block \"Sunny in Paris\"", res)
			}
			// Without a city the handler never runs: the model is told why.
			res = stdiotest.Call(t, c, "tools/call", `{"name":"forecast","arguments":{}}`, nil)
			if got := string(res); !strings.Contains(got, `"text":"Invalid arguments: city: required"`) || !strings.Contains(got, `"isError":true`) {
				t.Errorf("forecast() = %s, want an isError result saying city is required", res)
			}
		})
	}
}
