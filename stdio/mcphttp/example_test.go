package mcphttp_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// An Adapter makes a stdio MCP server reachable over Streamable HTTP. The
// server here is this package's test fixture (the test binary re-executed);
// any stdio MCP server's argv works the same way.
func ExampleNew() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	a, err := mcphttp.New(mcphttp.Config{
		Start: mcphttp.Command([]string{exe}, []string{testkit.FixtureEnv + "=server"}, "", nil),
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(a) // loopback only
	defer func() {
		a.Close() // first: it ends the streams srv.Close would wait for
		srv.Close()
	}()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"example","version":"0"}}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+mcphttp.Endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Println(string(out))
	// Output:
	// 200 OK
	// {"jsonrpc":"2.0","id":1,"result":{"tools":[{"inputSchema":{"properties":{"region":{"type":"string","x-mcp-header":"Region"}},"type":"object"},"name":"mirror"}]}}
}
