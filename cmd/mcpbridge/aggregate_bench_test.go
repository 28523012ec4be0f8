package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkAggregate puts a call through an aggregate beside the same call
// on its member alone, in one run: the demo's echo as CallTool on "demo"
// and as CallTool of demo_echo on "all" (the demo and a second demo,
// prefixed), and the same over /mcp in one 2025-11-25 session each
// (/mcp/demo and /mcp/all; the demo's tunnels shared, so both are served
// by the one child), at 1, 8 and 64 callers. gw-cpu-µs/op is the bridge's
// CPU a call. From
//
//	go test -run '^$' -bench Aggregate -benchtime 3s -count 3 ./cmd/mcpbridge/
//
// Nothing asserts on timing.
func BenchmarkAggregate(b *testing.B) {
	ctx := b.Context()
	httpAddr := closedPort(b)
	path := aggregateBenchConfig(b)
	br, bc := startQuietBridge(b, "--config", path, "--http-listen", httpAddr)
	child := readyChild(b, bc, "demo")
	readyChild(b, bc, "other")
	args, err := structpb.NewStruct(map[string]any{"message": "hello"})
	if err != nil {
		b.Fatal(err)
	}
	checkEcho := textIs("hello")
	procs := map[string]int{"gw": br.Process.Pid, "child": child}
	member := &mcpbridgev1.CallToolRequest{Server: "demo", Name: "echo", Arguments: args}
	through := &mcpbridgev1.CallToolRequest{Server: "all", Name: "demo_echo", Arguments: args}
	paths := []struct {
		name string
		call func() error
	}{
		{"grpc-member", func() error { return checkEcho(bc.CallTool(ctx, member)) }},
		{"grpc-aggregate", func() error { return checkEcho(bc.CallTool(ctx, through)) }},
	}
	memberHTTP := newMCPHTTPBench(b, "http://"+httpAddr+"/mcp/demo", false)
	aggHTTP := newMCPHTTPBench(b, "http://"+httpAddr+"/mcp/all", false)
	paths = append(paths,
		struct {
			name string
			call func() error
		}{"http-member", memberHTTP.echo},
		struct {
			name string
			call func() error
		}{"http-aggregate", func() error { return aggHTTP.callEcho("demo_echo") }})
	for _, callers := range []int{1, 8, 64} {
		for _, p := range paths {
			b.Run(fmt.Sprintf("callers=%d/path=%s", callers, p.name), func(b *testing.B) {
				runLoad(b, callers, procs, p.call)
			})
		}
	}
}

// aggregateBenchConfig writes the configuration of the aggregate
// benchmarks: the demo and a second demo, their tunnels shared, and "all",
// an aggregate of the two.
func aggregateBenchConfig(b *testing.B) string {
	demo := yamlList([]string{mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn"})
	path := filepath.Join(b.TempDir(), "mcpbridge.yaml")
	writeConfig(b, path, fmt.Sprintf(`servers:
  - name: demo
    command: %s
    tunnel: shared
  - name: other
    command: %s
    tunnel: shared
  - name: all
    aggregate:
      servers: [demo, other]
`, demo, demo))
	return path
}
