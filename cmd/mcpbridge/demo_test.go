package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/demo"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// waitLimit bounds every wait of these tests for an event that should come
// at once; it is not a delay.
const waitLimit = 30 * time.Second

// eras are the protocol versions the tests drive the demo at: the modern,
// stateless one and the newest legacy one.
var eras = []string{protocol.Version20260728, protocol.Version20251125}

// demoChild describes one `mcpbridge demo` child for connectDemo.
type demoChild struct {
	version  string   // the one protocol version Connect may settle on
	caps     string   // the client's capabilities (default {})
	args     []string // flags after `demo`
	cfg      stdio.ClientConfig
	wantExit int // the exit code the cleanup expects
}

// connectDemo runs `mcpbridge demo` as a child, connected with the
// project's stdio.Client at ch.version. The cleanup closes stdin, waits for
// the child to exit (it must, at EOF) and checks its exit code; the child's
// stderr is logged if the test failed.
func connectDemo(t *testing.T, ch demoChild) *stdio.Client {
	t.Helper()
	stderr := &testkit.SyncBuffer{}
	if ch.caps == "" {
		ch.caps = "{}"
	}
	start := func(ctx context.Context) (*stdio.Client, error) {
		cmd := exec.Command(mcpbridgeBin, append([]string{"demo"}, ch.args...)...)
		cmd.Stderr = stderr
		return stdio.Start(ctx, cmd, ch.cfg)
	}
	return stdiotest.Connect(t, start, stdio.ConnectConfig{Versions: []string{ch.version}, Capabilities: json.RawMessage(ch.caps)}, ch.wantExit, stderr)
}

// toolResult is the part of a CallToolResult the tests look at.
type toolResult struct {
	ResultType string `json:"resultType"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
	InputRequests     map[string]json.RawMessage `json:"inputRequests"`
	RequestState      string                     `json:"requestState"`
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

// text returns the text of a tool result's only text block.
func text(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	r := decode[toolResult](t, raw)
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("result %s: want one text block", raw)
	}
	return r.Content[0].Text
}

func TestDemoTools(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			c := connectDemo(t, demoChild{version: version, args: []string{"-tick", "0"}})
			if c.Protocol() != version {
				t.Fatalf("Protocol() = %s, want %s", c.Protocol(), version)
			}

			list := decode[struct {
				Tools []struct {
					Name        string          `json:"name"`
					Description string          `json:"description"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}](t, stdiotest.Call(t, c, "tools/list", `{}`, nil))
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				if tool.Description == "" || !rawjson.IsObject(tool.InputSchema) {
					t.Errorf("tool %s: description %q, inputSchema %s", tool.Name, tool.Description, tool.InputSchema)
				}
			}
			if diff := cmp.Diff([]string{"ask", "build", "echo", "exit", "fail", "large_result", "progress", "whoami"}, names); diff != "" {
				t.Errorf("tools/list names (-want +got):\n%s", diff)
			}

			for _, tt := range []struct{ params, want string }{
				{`{"name":"echo"}`, "hello"},
				{`{"name":"echo","arguments":{}}`, "hello"},
				{`{"name":"echo","arguments":{"message":"héllo, 世界\n"}}`, "héllo, 世界\n"},
			} {
				res := stdiotest.Call(t, c, "tools/call", tt.params, nil)
				if got := text(t, res); got != tt.want {
					t.Errorf("tools/call %s: text %q, want %q", tt.params, got, tt.want)
				}
				want, _ := json.Marshal(map[string]string{"message": tt.want})
				if got := decode[toolResult](t, res).StructuredContent; string(got) != string(want) {
					t.Errorf("tools/call %s: structuredContent %s, want %s", tt.params, got, want)
				}
			}
			if r := decode[toolResult](t, stdiotest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":3}}`, nil)); !r.IsError {
				t.Errorf("echo with a number: %+v, want an isError result", r)
			}

			r := decode[toolResult](t, stdiotest.Call(t, c, "tools/call", `{"name":"fail"}`, nil))
			if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != "this tool always fails" {
				t.Errorf("fail = %+v, want isError with the default message", r)
			}

			big := text(t, stdiotest.Call(t, c, "tools/call", `{"name":"large_result","arguments":{"bytes":300000}}`, nil))
			if len(big) != 300000 {
				t.Errorf("large_result of 300000 bytes: got %d", len(big))
			}
			if got := text(t, stdiotest.Call(t, c, "tools/call", `{"name":"large_result"}`, nil)); len(got) != 100000 {
				t.Errorf("large_result by default: got %d bytes, want 100000", len(got))
			}

			// Every report reaches the callback before Call returns.
			var reports []stdio.Progress
			res := stdiotest.Call(t, c, "tools/call", `{"name":"progress","arguments":{"seconds":0.2,"steps":4}}`,
				&stdio.CallOptions{Progress: func(p stdio.Progress) { reports = append(reports, p) }})
			var got []string
			for _, p := range reports {
				total := -1.0
				if p.Total != nil {
					total = *p.Total
				}
				got = append(got, fmt.Sprintf("%v/%v %s", p.Progress, total, p.Message))
			}
			want := []string{"1/4 step 1 of 4", "2/4 step 2 of 4", "3/4 step 3 of 4", "4/4 step 4 of 4"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("progress reports before the result (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(text(t, res), "done: 4 steps") {
				t.Errorf("progress result %s", res)
			}

			stdiotest.CallErr(t, c, "tools/call", `{"name":"nope"}`, jsonrpc.CodeInvalidParams)
		})
	}
}

// accept answers the ask tool's question.
const accept = `{"action":"accept","content":{"answer":"Ada"}}`

func TestDemoAskLegacy(t *testing.T) {
	asked := make(chan json.RawMessage, 1)
	c := connectDemo(t, demoChild{version: protocol.Version20251125, caps: `{"elicitation":{}}`, args: []string{"-tick", "0"},
		cfg: stdio.ClientConfig{OnServerRequest: func(_ context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
			if req.Method != "elicitation/create" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
			}
			asked <- req.Params
			return json.RawMessage(accept), nil
		}}})
	// The question is a real elicitation/create request, answered by
	// OnServerRequest within the one tools/call.
	if got := text(t, stdiotest.Call(t, c, "tools/call", `{"name":"ask","arguments":{"question":"Who?"}}`, nil)); got != "The user answered: Ada" {
		t.Errorf("ask = %q", got)
	}
	q := decode[struct {
		Mode    string          `json:"mode"`
		Message string          `json:"message"`
		Schema  json.RawMessage `json:"requestedSchema"`
	}](t, <-asked)
	if q.Message != "Who?" || !strings.Contains(string(q.Schema), `"answer"`) {
		t.Errorf("elicitation/create params %+v", q)
	}
}

func TestDemoAskModern(t *testing.T) {
	c := connectDemo(t, demoChild{version: protocol.Version20260728, caps: `{"elicitation":{}}`, args: []string{"-tick", "0"}})
	// The MRTR round trip: input_required with the question, then the
	// retry with the answer and the requestState, byte for byte.
	r := decode[toolResult](t, stdiotest.Call(t, c, "tools/call", `{"name":"ask"}`, nil))
	if r.ResultType != "input_required" || r.RequestState == "" || len(r.InputRequests) != 1 {
		t.Fatalf("ask = %+v, want input_required with one question and a requestState", r)
	}
	q := decode[struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	}](t, r.InputRequests["answer"])
	if q.Method != "elicitation/create" || q.Params.Message != "What is your name?" {
		t.Errorf("inputRequests.answer = %+v", q)
	}
	state, _ := json.Marshal(r.RequestState)
	for _, tt := range []struct{ answer, want string }{
		{accept, "The user answered: Ada"},
		{`{"action":"decline"}`, "The user declined to answer."},
	} {
		retry := `{"name":"ask","inputResponses":{"answer":` + tt.answer + `},"requestState":` + string(state) + `}`
		res := stdiotest.Call(t, c, "tools/call", retry, nil)
		if rt := decode[toolResult](t, res).ResultType; rt != "complete" || text(t, res) != tt.want {
			t.Errorf("retry with %s = %s, want complete %q", tt.answer, res, tt.want)
		}
	}
}

func TestDemoAskWithoutCapability(t *testing.T) {
	// The runtime refuses a question the client cannot take: -32021 on
	// 2026-07-28, -32602 on a 2025 connection.
	for version, code := range map[string]int64{protocol.Version20260728: jsonrpc.CodeMissingCapability, protocol.Version20251125: jsonrpc.CodeInvalidParams} {
		t.Run(version, func(t *testing.T) {
			c := connectDemo(t, demoChild{version: version, args: []string{"-tick", "0"}})
			stdiotest.CallErr(t, c, "tools/call", `{"name":"ask"}`, code)
		})
	}
}

func TestDemoResources(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			c := connectDemo(t, demoChild{version: version, args: []string{"-tick", "0"}})
			list := decode[struct {
				Resources []struct{ URI string } `json:"resources"`
			}](t, stdiotest.Call(t, c, "resources/list", `{}`, nil))
			var uris []string
			for _, r := range list.Resources {
				uris = append(uris, r.URI)
			}
			if diff := cmp.Diff([]string{demo.AboutURI, demo.CounterURI, demo.PixelURI}, uris); diff != "" {
				t.Errorf("resources/list (-want +got):\n%s", diff)
			}
			if got := string(stdiotest.Call(t, c, "resources/templates/list", `{}`, nil)); !strings.Contains(got, `"uriTemplate":"demo://greeting/{name}"`) {
				t.Errorf("resources/templates/list = %s", got)
			}

			type contents struct {
				Contents []struct {
					URI, MIMEType, Text, Blob string
				} `json:"contents"`
			}
			read := func(uri string) contents {
				return decode[contents](t, stdiotest.Call(t, c, "resources/read", `{"uri":"`+uri+`"}`, nil))
			}
			if got := read("demo://greeting/Grace%20Hopper").Contents; len(got) != 1 || got[0].Text != "Hello, Grace Hopper!" {
				t.Errorf("read greeting = %+v", got)
			}
			if got := read(demo.CounterURI).Contents; len(got) != 1 || got[0].Text != "tick 0" {
				t.Errorf("read counter = %+v", got)
			}
			png := read(demo.PixelURI).Contents
			if data, err := base64.StdEncoding.DecodeString(png[0].Blob); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || png[0].MIMEType != "image/png" {
				t.Errorf("read pixel = %+v, %v", png, err)
			}
			if !strings.Contains(read(demo.AboutURI).Contents[0].Text, "large_result") {
				t.Errorf("demo://about does not describe the tools")
			}
			// A missing resource: -32002 on 2025 connections, -32602 on
			// 2026-07-28 (docs/protocol.md, "Removed methods").
			code := int64(jsonrpc.CodeResourceNotFound)
			if version == protocol.Version20260728 {
				code = jsonrpc.CodeInvalidParams
			}
			stdiotest.CallErr(t, c, "resources/read", `{"uri":"demo://nothing"}`, code)
		})
	}
}

// TestDemoSubscriptionModern watches demo://counter on a listen stream:
// the timer's updates arrive on it, and a read then sees the new value.
func TestDemoSubscriptionModern(t *testing.T) {
	c := connectDemo(t, demoChild{version: protocol.Version20260728, args: []string{"-tick", "20ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	sub, err := c.Listen(ctx, json.RawMessage(`{"resourceSubscriptions":["`+demo.CounterURI+`"],"toolsListChanged":true}`), nil)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	defer sub.Close()
	if got := string(sub.Accepted()); got != `{"toolsListChanged":true,"resourceSubscriptions":["demo://counter"]}` {
		t.Errorf("Accepted() = %s", got)
	}
	for range 2 {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		p := decode[struct {
			URI  string                     `json:"uri"`
			Meta map[string]json.RawMessage `json:"_meta"`
		}](t, ev.Params)
		if ev.Method != "notifications/resources/updated" || p.URI != demo.CounterURI || p.Meta[protocol.MetaSubscriptionID] == nil {
			t.Errorf("event %s %s, want resources/updated of %s with a subscription id", ev.Method, ev.Params, demo.CounterURI)
		}
	}
	text := decode[struct{ Contents []struct{ Text string } }](t, stdiotest.Call(t, c, "resources/read", `{"uri":"`+demo.CounterURI+`"}`, nil)).Contents[0].Text
	if text == "tick 0" {
		t.Errorf("counter after two updates = %q", text)
	}
}

// TestDemoSubscriptionLegacy subscribes with resources/subscribe and sees
// the timer's updates as unsolicited notifications, until it unsubscribes.
func TestDemoSubscriptionLegacy(t *testing.T) {
	notes := make(chan stdio.Notification, 64)
	c := connectDemo(t, demoChild{version: protocol.Version20251125, args: []string{"-tick", "20ms"},
		cfg: stdio.ClientConfig{OnNotification: func(n stdio.Notification) {
			select {
			case notes <- n:
			default: // the test has what it needs
			}
		}}})
	stdiotest.Call(t, c, "resources/subscribe", `{"uri":"`+demo.CounterURI+`"}`, nil)
	for range 2 {
		select {
		case n := <-notes:
			if n.Method != "notifications/resources/updated" || !strings.Contains(string(n.Params), `"uri":"demo://counter"`) {
				t.Errorf("notification %s %s, want resources/updated of %s", n.Method, n.Params, demo.CounterURI)
			}
		case <-time.After(waitLimit):
			t.Fatal("no notifications/resources/updated after resources/subscribe")
		}
	}
	stdiotest.Call(t, c, "resources/unsubscribe", `{"uri":"`+demo.CounterURI+`"}`, nil)
}

func TestDemoPrompts(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			c := connectDemo(t, demoChild{version: version, args: []string{"-tick", "0"}})
			if got := string(stdiotest.Call(t, c, "prompts/list", `{}`, nil)); !strings.Contains(got, `"name":"greet"`) {
				t.Errorf("prompts/list = %s", got)
			}
			p := decode[struct {
				Messages []struct {
					Role    string
					Content struct{ Type, Text string }
				}
			}](t, stdiotest.Call(t, c, "prompts/get", `{"name":"greet","arguments":{"name":"Ada","style":"pirate"}}`, nil))
			if len(p.Messages) != 1 || p.Messages[0].Role != "user" || p.Messages[0].Content.Text != "Please greet Ada in a pirate style, in one sentence." {
				t.Errorf("prompts/get greet = %+v", p)
			}
			stdiotest.CallErr(t, c, "prompts/get", `{"name":"greet"}`, jsonrpc.CodeInvalidParams)
			stdiotest.CallErr(t, c, "prompts/get", `{"name":"greet","arguments":{"name":"Ada","style":"rude"}}`, jsonrpc.CodeInvalidParams)

			for _, tt := range []struct {
				ref, arg, value string
				want            []string
			}{
				{`{"type":"ref/prompt","name":"greet"}`, "name", "a", []string{"Ada", "Alan"}},
				{`{"type":"ref/prompt","name":"greet"}`, "style", "P", []string{"pirate", "poetic"}},
				{`{"type":"ref/prompt","name":"greet"}`, "style", "x", []string{}},
				{`{"type":"ref/resource","uri":"demo://greeting/{name}"}`, "name", "k", []string{"Katherine", "Ken"}},
			} {
				params := fmt.Sprintf(`{"ref":%s,"argument":{"name":%q,"value":%q}}`, tt.ref, tt.arg, tt.value)
				got := decode[struct {
					Completion struct{ Values []string }
				}](t, stdiotest.Call(t, c, "completion/complete", params, nil)).Completion.Values
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("completion/complete %s (-want +got):\n%s", params, diff)
				}
			}
		})
	}
}

func TestDemoExit(t *testing.T) {
	for _, tt := range []struct {
		version, args string
		want          int
	}{
		{protocol.Version20260728, `{"code":3}`, 3},
		{protocol.Version20251125, `{}`, 1},
		{protocol.Version20251125, `{"code":0}`, 0},
	} {
		t.Run(tt.version+tt.args, func(t *testing.T) {
			c := connectDemo(t, demoChild{version: tt.version, args: []string{"-tick", "0"}, wantExit: tt.want})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			// The process dies before it answers: the call fails with the
			// connection, whose cause is the exit.
			res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"exit","arguments":`+tt.args+`}`), nil)
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != jsonrpc.CodeConnectionClosed {
				t.Errorf("exit tool = %s, %v; want -32000", res, err)
			}
			select {
			case <-c.Done():
			case <-ctx.Done():
				t.Fatal("the demo is still running after the exit tool")
			}
		})
	}
}

// TestDemoStdoutHygiene drives the demo by hand through every era, with
// malformed lines and debug logging, and checks that every line it writes
// on stdout is a JSON-RPC message while its logs go to stderr.
func TestDemoStdoutHygiene(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"seconds":0},` + meta[:len(meta)-1] + `,"progressToken":"p"}}}`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"large_result","arguments":{"bytes":70000}}}`,
		`[{"jsonrpc":"2.0","id":6,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	}, "\n") + "\n"
	cmd := exec.Command(mcpbridgeBin, "demo", "-log-level", "debug", "-tick", "0")
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitLimit
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpbridge demo: %v\nstderr:\n%s", err, &stderr)
	}
	var ids []string
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m, err := wire.Decode(sc.Bytes())
		if err != nil {
			t.Errorf("stdout line is not JSON-RPC (%v): %.200s", err, sc.Bytes())
			continue
		}
		switch {
		case m.Kind == wire.KindResponse && m.ID == nil:
			ids = append(ids, "null")
		case m.Kind == wire.KindResponse:
			ids = append(ids, string(m.ID))
		case m.Kind != wire.KindNotification:
			t.Errorf("stdout line is neither a response nor a notification: %.200s", sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Every request is answered, the malformed lines with id null.
	slices.Sort(ids)
	if diff := cmp.Diff([]string{"1", "2", "3", "4", "5", "7", "null", "null"}, ids); diff != "" {
		t.Errorf("ids answered on stdout (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "serving MCP on stdin and stdout") {
		t.Errorf("stderr lacks the start-up log:\n%s", &stderr)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		wantCode int
		want     []string // on stderr
	}{
		{[]string{"-h"}, 0, []string{"usage: mcpbridge demo", "-conformance", "-tick", "-request-timeout", "-log-level",
			"echo(message)", "progress(seconds, steps)", "large_result(bytes)", "fail(message)", "ask(question)", "exit(code)", "build(steps, seconds, confirm)",
			"demo://counter", "demo://greeting/{name}", "greet(name, style)", "OTEL_EXPORTER_OTLP_ENDPOINT"}},
		{[]string{"-tick", "-1s"}, 2, []string{"mcpbridge demo: invalid value -1s for flag --tick: must not be negative\nRun 'mcpbridge demo -h' for usage.\n"}},
		{[]string{"-log-level", "loud"}, 2, []string{`mcpbridge demo: invalid value "loud" for flag --log-level`}},
		{[]string{"-versions", "2026-07-28,2024-01-01"}, 2, []string{`invalid value "2026-07-28,2024-01-01" for flag --versions`}},
		{[]string{"-nosuch"}, 2, []string{"mcpbridge demo: flag provided but not defined: --nosuch\nRun 'mcpbridge demo -h' for usage.\n"}},
		{[]string{"extra"}, 2, []string{"demo takes no arguments"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(mcpbridgeBin, append([]string{"demo"}, tt.args...)...)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := runExitCode(t, cmd)
			if code != tt.wantCode || stdout.Len() != 0 {
				t.Errorf("exit code %d, stdout %q; want %d and nothing", code, &stdout, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, &stderr)
				}
			}
		})
	}
}

// -cpuprofile writes a complete profile (gzipped protobuf) by the time the
// demo exits at stdin EOF; a path it cannot create fails at start.
func TestDemoCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	for _, tt := range []struct {
		path     string
		wantCode int
	}{
		{path, 0},
		{filepath.Join(path, "no", "such", "dir"), 1},
	} {
		cmd := exec.Command(mcpbridgeBin, "demo", "-tick", "0", "-cpuprofile", tt.path)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		code := runExitCode(t, cmd)
		if code != tt.wantCode {
			t.Errorf("demo -cpuprofile %s: exit code %d, want %d\nstderr:\n%s", tt.path, code, tt.wantCode, &stderr)
		}
	}
	prof, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(prof, []byte{0x1f, 0x8b}) {
		t.Errorf("profile %s: %d bytes, %v; want a gzipped profile", path, len(prof), err)
	}
}

// runExitCode runs cmd and returns its exit status; it fails t when cmd
// could not run at all.
func runExitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}
