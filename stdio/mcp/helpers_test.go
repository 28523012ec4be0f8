package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// waitLimit bounds every wait for an event; it only fires when something
// is broken.
const waitLimit = 30 * time.Second

// Meta values of the tests' 2026-07-28 requests.
const (
	v26       = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	noCaps    = `"io.modelcontextprotocol/clientCapabilities":{}`
	allCaps   = `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}`
	infoMeta  = `"io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"1.0.0"}`
	meta26    = `"_meta":{` + v26 + `,` + noCaps + `,` + infoMeta + `}`
	meta26All = `"_meta":{` + v26 + `,` + allCaps + `}`
	serverInf = `{"name":"test-server","version":"1.0.0"}`
)

// pipe serves a Server over in-process pipes with server.Serve.
type pipe struct {
	tb   testing.TB
	in   *io.PipeWriter
	out  *bufio.Reader
	rd   *io.PipeReader
	done chan error
	// lines carries what the server writes, one line each, read by a
	// goroutine so that a test never blocks the server's writer.
	lines chan string
}

// serve starts server.Serve on srv; the test ends it with eof (or it is
// ended at cleanup).
func serve(tb testing.TB, srv *mcp.Server) *pipe {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipe{tb: tb, in: inW, rd: outR, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1), lines: make(chan string, 1000)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		p.done <- server.Serve(ctx, srv, inR, outW, server.Config{})
		outW.Close()
	}()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(p.lines)
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	tb.Cleanup(func() {
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(waitLimit):
			tb.Errorf("Serve did not return within %v of EOF", waitLimit)
		}
		cancel()
		outR.Close()
		<-readerDone
	})
	return p
}

// send writes one line.
func (p *pipe) send(line string) {
	p.tb.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.tb.Fatalf("writing %q: %v", line, err)
	}
}

// next returns the next line the server writes.
func (p *pipe) next() string {
	p.tb.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.tb.Fatalf("the server's output ended")
		}
		return line
	case <-time.After(waitLimit):
		p.tb.Fatalf("no output within %v", waitLimit)
	}
	return ""
}

// call sends a request and returns its response line, failing on any
// other line in between.
func (p *pipe) call(line string) string {
	p.tb.Helper()
	p.send(line)
	return p.next()
}

// eof closes the server's input and waits for Serve to return nil.
func (p *pipe) eof() []string {
	p.tb.Helper()
	p.in.Close()
	var rest []string
	for line := range p.lines {
		rest = append(rest, line)
	}
	if err := <-p.done; err != nil {
		p.tb.Errorf("Serve = %v, want nil", err)
	}
	p.done <- nil
	return rest
}

// msg is a decoded output line.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decode(tb testing.TB, line string) msg {
	tb.Helper()
	var m msg
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		tb.Fatalf("output %q is not JSON: %v", line, err)
	}
	return m
}

// wantError checks that line is an error response with id and code.
func wantError(tb testing.TB, line string, id string, code int64) msg {
	tb.Helper()
	m := decode(tb, line)
	if m.Error == nil || m.Error.Code != code || string(m.ID) != id {
		tb.Fatalf("got %s, want error %d for id %s", line, code, id)
	}
	return m
}

// wantResult checks that line is a result for id and returns the result.
func wantResult(tb testing.TB, line string, id string) json.RawMessage {
	tb.Helper()
	m := decode(tb, line)
	if m.Result == nil || m.Error != nil || string(m.ID) != id {
		tb.Fatalf("got %s, want a result for id %s", line, id)
	}
	return m.Result
}

// field returns result[key] as text, or "" when absent.
func field(raw json.RawMessage, path ...string) string {
	for _, key := range path {
		v, ok := rawjson.Member(raw, key)
		if !ok {
			return ""
		}
		raw = v
	}
	return string(raw)
}

// request builds a request line.
func request(id any, method, params string) string {
	idText, _ := json.Marshal(id)
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, idText, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idText, method, params)
}

// initialize runs the legacy handshake at version.
func (p *pipe) initialize(version, caps string) json.RawMessage {
	p.tb.Helper()
	res := wantResult(p.tb, p.call(request(0, "initialize",
		`{"protocolVersion":"`+version+`","capabilities":`+caps+`,"clientInfo":{"name":"legacy","version":"1"}}`)), "0")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

// newTestServer builds the fixture server of the tests: a small copy of
// the conformance fixtures, enough to exercise every path of the runtime.
func newTestServer(tb testing.TB, cfg mcp.Config) *mcp.Server {
	srv := newServer(tb, "test-server", cfg)
	addFixtures(srv)
	return srv
}

// newServer is mcp.NewServer for a valid configuration, named name.
func newServer(tb testing.TB, name string, cfg mcp.Config) *mcp.Server {
	srv, err := mcp.NewServer(mcp.Implementation{Name: name, Version: "1.0.0"}, cfg)
	if err != nil {
		tb.Fatalf("NewServer: %v", err)
	}
	return srv
}

var errBoom = errors.New("the tool broke")

// fixtureEvents lets tests wait for what the park tool did.
var fixtureEvents = struct {
	started, cancelled chan string
}{started: make(chan string, 100), cancelled: make(chan string, 100)}

func addFixtures(srv *mcp.Server) {
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	srv.AddTool(mcp.Tool{Name: "echo", Description: "Echoes text", InputSchema: obj},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(a.Text), nil
		})
	srv.AddTool(mcp.Tool{Name: "fail", Description: "Fails"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) { return nil, errBoom })
	srv.AddTool(mcp.Tool{Name: "structured", Description: "Structured output",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return &mcp.ToolResult{Content: []mcp.Content{mcp.Text(`{"n":1}`)}, StructuredContent: json.RawMessage(`{"n":1}`)}, nil
		})
	srv.AddTool(mcp.Tool{Name: "progress", Description: "Reports progress 0, 50, 100 of 100"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			for _, p := range []float64{0, 50, 100} {
				if err := req.ReportProgress(ctx, mcp.Progress{Progress: p, Total: 100}); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult("done"), nil
		})
	srv.AddTool(mcp.Tool{Name: "log", Description: "Logs three messages"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			_ = req.Log(ctx, mcp.LevelDebug, "fixture", "debug detail")
			_ = req.Log(ctx, mcp.LevelInfo, "fixture", "started")
			req.Logger().WarnContext(ctx, "halfway", "step", 2)
			_ = req.Log(ctx, mcp.LevelError, "", map[string]int{"done": 3})
			return mcp.TextResult("logged"), nil
		})
	srv.AddTool(mcp.Tool{Name: "park", Description: "Waits for cancellation"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			fixtureEvents.started <- string(req.Params())
			<-ctx.Done()
			fixtureEvents.cancelled <- string(req.Params())
			return nil, ctx.Err()
		})
	srv.AddTool(mcp.Tool{Name: "elicit", Description: "Asks the user's name"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.Elicit(ctx, "user_name", mcp.ElicitParams{
				Message:         "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return nil, err
			}
			var c struct{ Name string }
			_ = json.Unmarshal(res.Content, &c)
			return mcp.TextResult(fmt.Sprintf("Hello, %s! (%s)", c.Name, res.Action)), nil
		})
	srv.AddTool(mcp.Tool{Name: "multi", Description: "Asks three questions at once"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			answers, err := req.Ask(ctx, map[string]mcp.InputRequest{
				"user_name": mcp.ElicitInput(mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}),
				"greeting": mcp.SamplingInput(mcp.CreateMessageParams{MaxTokens: 50, Messages: []mcp.SamplingMessage{
					{Role: mcp.RoleUser, Content: json.RawMessage(`{"type":"text","text":"Generate a greeting"}`)}}}),
				"client_roots": mcp.RootsInput(),
			})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%d answers", len(answers))), nil
		})
	srv.AddTool(mcp.Tool{Name: "rounds", Description: "Two rounds of questions"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			a, err := req.Elicit(ctx, "step1", mcp.ElicitParams{Message: "Step 1: name?"})
			if err != nil {
				return nil, err
			}
			b, err := req.Elicit(ctx, "step2", mcp.ElicitParams{Message: "Step 2: colour?"})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(string(a.Content) + " " + string(b.Content)), nil
		})
	srv.AddTool(mcp.Tool{Name: "stateful", Description: "Carries state between rounds"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			prev := req.State()
			req.SetState(json.RawMessage(`{"asked":true}`))
			if _, err := req.Elicit(ctx, "confirm", mcp.ElicitParams{Message: "Please confirm"}); err != nil {
				return nil, err
			}
			if string(prev) == `{"asked":true}` {
				return mcp.TextResult("state-ok"), nil
			}
			return mcp.TextResult("no state"), nil
		})
	srv.AddTool(mcp.Tool{Name: "need_sampling", Description: "Needs the sampling capability"},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			if req.ClientCapabilities().Sampling == nil {
				return nil, &mcp.MissingCapabilityError{Required: mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}}
			}
			return mcp.TextResult("sampling declared"), nil
		})
	srv.AddTool(mcp.Tool{Name: "add_tool", Description: "Adds a tool"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			srv.AddTool(mcp.Tool{Name: "zz_added"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
				return mcp.TextResult("added"), nil
			})
			return mcp.TextResult("tool added"), nil
		})
	srv.AddTool(mcp.Tool{Name: "content", Description: "Every kind of content block"},
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return &mcp.ToolResult{Content: []mcp.Content{
				mcp.Text("hi"),
				&mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte{4}, MIMEType: "audio/wav"},
				&mcp.ResourceLink{Resource: mcp.Resource{URI: "test://static-text", Name: "static"}},
				&mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "test://x", MIMEType: "text/plain", Text: "embedded"}},
			}}, nil
		})

	srv.AddResource(mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"},
		mcp.TextResource("This is the content of the static text resource."))
	srv.AddResource(mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png"},
		mcp.BlobResource([]byte{0x89, 'P', 'N', 'G'}))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if req.Vars["id"] == "missing" {
				return nil, mcp.ErrResourceNotFound
			}
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType,
				Text: fmt.Sprintf(`{"id":%q}`, req.Vars["id"])}}}, nil
		})

	srv.AddPrompt(mcp.Prompt{Name: "simple", Description: "A simple prompt"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("Say hi")}}}, nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "with_args", Arguments: []mcp.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser,
				Content: mcp.Text("arg1=" + req.Arguments["arg1"] + " arg2=" + req.Arguments["arg2"])}}}, nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "asking", Description: "Needs context from the user"},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			res, err := req.Elicit(ctx, "user_context", mcp.ElicitParams{Message: "What context?"})
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text(string(res.Content))}}}, nil
		})
	srv.AddCompletion(mcp.PromptReference("with_args"),
		func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
			var out []string
			for _, v := range []string{"paris", "park", "party", "rome"} {
				if strings.HasPrefix(v, req.Value) {
					out = append(out, v)
				}
			}
			return &mcp.Completion{Values: out}, nil
		})
}
