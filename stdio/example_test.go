package stdio_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// Connect runs an MCP server as a child, negotiates the protocol version and
// calls a tool. The server here is this package's test fixture (the test
// binary re-executed); any stdio MCP server command works the same way.
func ExampleConnect() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	start := func(ctx context.Context) (*stdio.Client, error) {
		cmd := exec.Command(exe) // e.g. exec.Command("npx", "-y", "@modelcontextprotocol/server-everything")
		cmd.Env = append(os.Environ(), testkit.FixtureEnv+"=mcp")
		cmd.Stderr = os.Stderr
		return stdio.Start(ctx, cmd, stdio.ClientConfig{})
	}
	ctx := context.Background()
	c, err := stdio.Connect(ctx, start, stdio.ConnectConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		c.Close() // the server exits at EOF
		<-c.Done()
	}()
	fmt.Println(c.Protocol())

	res, err := c.Call(ctx, "tools/call", map[string]any{
		"name":      "echo",
		"arguments": map[string]string{"message": "hello"},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(res))
	// Output:
	// 2026-07-28
	// {"content":[{"type":"text","text":"hello"}]}
}

// The versions this module speaks, in preference order: what Connect
// negotiates among by default, and what an mcp.Server serves by default.
func ExampleDefaultVersions() {
	fmt.Println(stdio.DefaultVersions())
	// Output:
	// [2026-07-28 2025-11-25 2025-06-18]
}

// ConnectConfig.Versions pins the protocol version, or limits the versions
// Connect may settle on. Pinned to a legacy version, Connect skips the
// server/discover probe and starts with initialize; Negotiation says why.
func ExampleConnectConfig() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	start := func(ctx context.Context) (*stdio.Client, error) {
		cmd := exec.Command(exe) // this package's test fixture; any stdio MCP server command
		cmd.Env = append(os.Environ(), testkit.FixtureEnv+"=mcp")
		cmd.Stderr = os.Stderr
		return stdio.Start(ctx, cmd, stdio.ClientConfig{})
	}
	c, err := stdio.Connect(context.Background(), start, stdio.ConnectConfig{Versions: []string{stdio.Version20251125}})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		c.Close() // the server exits at EOF
		<-c.Done()
	}()
	fmt.Println(c.Protocol())
	fmt.Println(c.Negotiation())
	// Output:
	// 2025-11-25
	// legacy versions only
}
