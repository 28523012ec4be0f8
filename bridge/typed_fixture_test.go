package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// Fixtures of the typed RPC tests (typed_test.go, toolstream_test.go).
func init() {
	fixtures["typed-child"] = runTypedChild
	fixtures["typed-pager"] = runTypedPager
}

// typedChildEraEnv chooses the "typed-child" fixture's era: "legacy" makes
// it a 2025-11-25 server (initialize), anything else a 2026-07-28 one
// (server/discover).
const typedChildEraEnv = "TYPED_CHILD_ERA"

// The "typed-child" fixture is a small hand-written stdio MCP server for
// what no real child shows on demand. Its tools:
//
//   - echo: returns the params it received, as text and as
//     structuredContent, so a test sees exactly what reached the child, and
//     in _meta "seen" the number of tools/call requests received so far,
//     so a test sees what never reached it.
//   - odd: content blocks of an unknown type and of a known type with bad
//     base64, annotations, _meta, a non-object structuredContent (2026) and
//     an integer above 2^53.
//   - badshape: a result whose content is not an array.
//   - slow: reports progress "started <id>" if asked, then never answers;
//     it ends only when cancelled.
//   - cancellations: waits until at least arguments.atLeast (default 1)
//     notifications/cancelled have arrived and returns them all as
//     structuredContent {"cancelled":[…]}.
//   - logs: four log messages (debug, info, warning, error), each followed
//     by progress if asked. As a legacy server it logs every level (as a
//     server would at a session level the bridge set low); as a 2026 server
//     it honours the request's _meta logLevel, and logs nothing without one.
type typedChild struct {
	modern bool
	wmu    sync.Mutex // serialises writes to stdout
	eof    chan struct{}
	wg     sync.WaitGroup

	mu        sync.Mutex
	running   map[string]chan struct{} // slow calls by raw id; closed on cancel
	cancelled []json.RawMessage        // params of every notifications/cancelled
	changed   chan struct{}            // closed and replaced when cancelled grows
	seen      int                      // tools/call requests received
}

type fixtureMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

func runTypedChild() int {
	f := &typedChild{
		modern:  os.Getenv(typedChildEraEnv) != "legacy",
		eof:     make(chan struct{}),
		running: map[string]chan struct{}{},
		changed: make(chan struct{}),
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var m fixtureMessage
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "typed-child: bad line %q\n", in.Bytes())
			return 1
		}
		f.handle(m)
	}
	close(f.eof)
	f.wg.Wait()
	return 0
}

func (f *typedChild) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func (f *typedChild) reply(id json.RawMessage, result map[string]any) {
	if f.modern {
		result["resultType"] = "complete"
	}
	f.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (f *typedChild) fail(id json.RawMessage, code int, msg string) {
	f.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (f *typedChild) notify(method string, params any) {
	f.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

var typedChildInfo = map[string]any{"name": "typed-child", "version": "1.0.0"}

func (f *typedChild) handle(m fixtureMessage) {
	switch m.Method {
	case "server/discover":
		if !f.modern {
			f.fail(m.ID, -32601, "Method not found")
			return
		}
		f.reply(m.ID, map[string]any{
			"supportedVersions": []string{protocol.Version20260728},
			"capabilities":      map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
			"ttlMs":             0, "cacheScope": "public",
			"_meta": map[string]any{protocol.MetaServerInfo: typedChildInfo},
		})
	case "initialize":
		if f.modern {
			f.fail(m.ID, -32601, "Method not found")
			return
		}
		f.reply(m.ID, map[string]any{
			"protocolVersion": protocol.Version20251125,
			"capabilities":    map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
			"serverInfo":      typedChildInfo,
		})
	case "notifications/initialized":
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		f.mu.Lock()
		f.cancelled = append(f.cancelled, m.Params)
		if ch, ok := f.running[string(p.RequestID)]; ok {
			close(ch)
			delete(f.running, string(p.RequestID))
		}
		close(f.changed)
		f.changed = make(chan struct{})
		f.mu.Unlock()
	case "tools/list":
		tools := []map[string]any{}
		for _, name := range []string{"echo", "odd", "badshape", "slow", "cancellations", "logs"} {
			tools = append(tools, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
		}
		f.reply(m.ID, map[string]any{"tools": tools})
	case "tools/call":
		f.mu.Lock()
		f.seen++
		seen := f.seen
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.call(m, seen)
		}()
	default:
		if m.ID != nil {
			f.fail(m.ID, -32601, "Method not found")
		}
	}
}

// call runs one tools/call; seen is its number among those received, which
// echo and odd return in their result's _meta.
func (f *typedChild) call(m fixtureMessage, seen int) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			AtLeast int `json:"atLeast"`
		} `json:"arguments"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			LogLevel      string          `json:"io.modelcontextprotocol/logLevel"`
		} `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	token := p.Meta.ProgressToken
	switch p.Name {
	case "echo":
		f.reply(m.ID, map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": string(m.Params)}},
			"structuredContent": m.Params,
			"_meta":             map[string]any{"seen": seen},
		})
	case "odd":
		var structured any = map[string]any{"big": json.Number("9007199254740993")}
		if f.modern {
			structured = []any{1, "two", map[string]any{"big": json.Number("9007199254740993")}}
		}
		f.reply(m.ID, map[string]any{
			"content": []any{
				map[string]any{"type": "text", "text": "annotated", "annotations": map[string]any{"audience": []string{"user"}, "priority": 0.5}, "_meta": map[string]any{"x/y": "z"}},
				map[string]any{"type": "hologram", "frames": 3},
				map[string]any{"type": "image", "data": "not base64!", "mimeType": "image/png"},
				map[string]any{"type": "audio", "data": "AAEC", "mimeType": "audio/wav"},
				map[string]any{"type": "resource_link", "uri": "x://y", "name": "y", "size": 42, "icons": []any{map[string]any{"src": "data:,", "sizes": []string{"any"}}}},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "x://b", "blob": "AAEC"}},
			},
			"structuredContent": structured,
			"_meta":             map[string]any{"a/b": 1, "seen": seen},
		})
	case "badshape":
		f.reply(m.ID, map[string]any{"content": "not an array"})
	case "slow":
		done := make(chan struct{})
		f.mu.Lock()
		f.running[string(m.ID)] = done
		f.mu.Unlock()
		if token != nil {
			f.notify("notifications/progress", map[string]any{"progressToken": token, "progress": 1, "message": "started " + string(m.ID)})
		}
		// A cancelled request gets no response (docs/protocol.md,
		// "Progress and cancellation").
		select {
		case <-done:
		case <-f.eof:
		}
	case "cancellations":
		for {
			f.mu.Lock()
			got, changed := slices.Clone(f.cancelled), f.changed
			f.mu.Unlock()
			if len(got) >= max(p.Arguments.AtLeast, 1) {
				f.reply(m.ID, map[string]any{
					"content":           []any{map[string]any{"type": "text", "text": fmt.Sprint(len(got), " cancelled")}},
					"structuredContent": map[string]any{"cancelled": got},
				})
				return
			}
			select {
			case <-changed:
			case <-f.eof:
				return
			}
		}
	case "logs":
		levels := []string{"debug", "info", "warning", "error"}
		min := slices.Index(levels, p.Meta.LogLevel)
		for i, level := range levels {
			if !f.modern || min >= 0 && i >= min {
				f.notify("notifications/message", map[string]any{"level": level, "logger": "typed-child", "data": map[string]any{"i": i}})
			}
			if token != nil {
				f.notify("notifications/progress", map[string]any{"progressToken": token, "progress": i + 1, "total": len(levels)})
			}
		}
		f.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "logged"}}})
	default:
		f.fail(m.ID, -32602, "Unknown tool: "+p.Name)
	}
}

// The "typed-pager" fixture is this module's own MCP runtime (stdio/mcp)
// with pages of two items: five tools, prompts and resources and three
// templates, in both eras, with cache hints (90 s, public) on 2026-07-28.
func runTypedPager() int {
	out, err := server.TakeStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "typed-pager", Version: "1.0.0"},
		mcp.Config{PageSize: 2, CacheTTL: 90 * time.Second, CacheScope: "public"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 1; i <= 5; i++ {
		n := fmt.Sprint(i)
		srv.AddTool(mcp.Tool{Name: "tool" + n, Description: "Tool " + n}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return mcp.TextResult("tool " + n), nil
		})
		srv.AddPrompt(mcp.Prompt{Name: "prompt" + n}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.Text("prompt " + n)}}}, nil
		})
		srv.AddResource(mcp.Resource{URI: "pager://r/" + n, Name: "r" + n}, mcp.TextResource("resource "+n))
		if i <= 3 {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "pager://t" + n + "/{id}", Name: "t" + n}, mcp.TextResource("template "+n))
		}
	}
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
