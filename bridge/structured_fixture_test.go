package bridge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
)

func init() { fixtures["structured-child"] = runStructuredChild }

// The "structured-child" fixture is a 2026-07-28 stdio MCP server with one
// tool, records, whose result is mostly structuredContent: {"records":
// [...]} with as many records as the argument "records" asks (each about
// 185 bytes of JSON: numbers, strings, a list, a bool), a one-line text
// block and the serverInfo _meta. BenchmarkLargeStructured calls it. Each
// size's result is made once, so that the child costs little per call.
func runStructuredChild() int {
	results := map[int][]byte{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m fixtureMessage
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "structured-child: bad line %q\n", in.Bytes())
			return 1
		}
		var result []byte
		switch m.Method {
		case "server/discover":
			result, _ = json.Marshal(map[string]any{
				"supportedVersions": []string{protocol.Version20260728},
				"capabilities":      map[string]any{"tools": map[string]any{}},
				"_meta":             map[string]any{protocol.MetaServerInfo: typedChildInfo},
				"resultType":        "complete",
			})
		case "tools/call":
			var p struct {
				Arguments struct {
					Records int `json:"records"`
				} `json:"arguments"`
			}
			json.Unmarshal(m.Params, &p)
			n := p.Arguments.Records
			if results[n] == nil {
				results[n] = structuredResult(n)
			}
			result = results[n]
		default:
			if m.ID != nil {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", m.ID)
				out.Flush()
			}
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		out.Flush()
	}
	return 0
}

// structuredResult is the records tool's result with n records.
func structuredResult(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"content":[{"type":"text","text":"records"}],"structuredContent":{"records":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"record %d","tags":["a","b","c"],"score":0.75,"ok":true,"note":"%s"}`, i, i, strings.Repeat("x", 100))
	}
	fmt.Fprintf(&sb, `]},"_meta":{%q:{"name":"structured-child","version":"1.0.0"}},"resultType":"complete"}`, protocol.MetaServerInfo)
	return []byte(sb.String())
}
