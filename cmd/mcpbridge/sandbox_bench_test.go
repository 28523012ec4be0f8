//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/sandbox"
)

// BenchmarkSandbox measures what the default sandbox costs
// (docs/sandbox.md, docs/performance.md):
//
//   - start: a child's start, its handshake, one call and its end, with and
//     without the sandbox: the entry's extra execve, the namespaces, the
//     control groups and the filters;
//
//   - call: calls through the bridge to a plain and to a sandboxed demo at
//     8 callers, with the bridge's and the child's CPU per call (the
//     sandbox is the child's: the bridge's path is the same, and the
//     child's system calls pass the seccomp filter).
//
//     go test -run '^$' -bench Sandbox -benchtime 2s -count 3 ./cmd/mcpbridge/
func BenchmarkSandbox(b *testing.B) {
	profile := sandbox.Profile{Network: sandbox.NetworkNone,
		Limits: sandbox.Limits{Memory: 2 << 30, Processes: 256, OpenFiles: 1024}}
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`)
	for _, boxed := range []bool{false, true} {
		b.Run(fmt.Sprintf("start/sandbox=%v", boxed), func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				var fences *sandbox.Fences
				c, err := stdio.Connect(ctx, func(ctx context.Context) (*stdio.Client, error) {
					cmd := exec.Command(mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn")
					cmd.Stderr = os.Stderr
					if boxed {
						var err error
						if fences, err = sandbox.Wrap(cmd, profile, b.TempDir()); err != nil {
							return nil, err
						}
					}
					return stdio.Start(ctx, cmd, stdio.ClientConfig{})
				}, stdio.ConnectConfig{Versions: []string{stdio.Version20260728}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Call(ctx, "tools/call", params, nil); err != nil {
					b.Fatal(err)
				}
				c.Close()
				<-c.Done()
				fences.Release()
			}
		})
	}
	config := writeConfig(b, "", fmt.Sprintf("sandbox: {}\nservers:\n  - name: demo\n    command: %s\n", yamlList([]string{mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn"})))
	args, err := structpb.NewStruct(map[string]any{"message": "hello"})
	if err != nil {
		b.Fatal(err)
	}
	req := &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: args}
	for _, boxed := range []bool{false, true} {
		argv := []string{"--", mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn"}
		if boxed {
			argv = []string{"--config", config}
		}
		br, bc := startQuietBridge(b, argv...)
		child := readyChild(b, bc, "")
		ctx := b.Context()
		b.Run(fmt.Sprintf("call/sandbox=%v", boxed), func(b *testing.B) {
			runLoad(b, 8, map[string]int{"bridge": br.Process.Pid, "child": child}, func() error {
				return textIs("hello")(bc.CallTool(ctx, req))
			})
		})
	}
}
