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
