//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// A private session is the host's own (issue 35): the progress token a
// host's SDK picks, the ids of its requests and the reason it gives when it
// cancels reach the server as the host sent them, whether the host launched
// the server itself, launched `mcpbridge connect` on a bridge that fronts
// it, or reached that bridge's /mcp/{server} with the SDK's Streamable HTTP
// client. The server is the "fidelity" fixture below, which tells what it
// received; each host (the Go SDK client, and the TypeScript SDK client in
// testdata/peers/fidelity-host.mjs) compares that with what it wrote on
// each transport, and the three transports must give the same answers.

// fidelityFixtureName is the FixtureEnv value that makes the test binary
// the fidelity fixture.
const fidelityFixtureName = "fidelity"

func init() {
	if os.Getenv(testkit.FixtureEnv) == fidelityFixtureName {
		os.Exit(runFidelityFixture(os.Stdin, os.Stdout))
	}
}

// fidelityFixtureWait bounds the fixture's own waits (for the host's answer
// to its roots/list, and last_cancel's for a cancellation): shorter than
// waitLimit, so that the host sees the fixture's answer rather than its
// own timeout.
const fidelityFixtureWait = 20 * time.Second

// rpcMessage is a JSON-RPC message with every value kept as it was
// written.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// fidelityWaitCall is what the fixture received of the latest call of
// wait: its id and progress token as written, and every
// notifications/cancelled received since it came (params with their values
// as written, keys sorted).
type fidelityWaitCall struct {
	ID            json.RawMessage              `json:"id"`
	ProgressToken json.RawMessage              `json:"progressToken"` // null when there was none
	Cancelled     []map[string]json.RawMessage `json:"cancelled"`
}

// fidelityFixture is a stdio MCP server, 2025-11-25, written as a raw
// JSON-RPC loop so that it sees exactly what reaches it. Its tools:
//
//   - token: sends one notifications/progress with the request's progress
//     token, then roots/list to the host, and once the host has answered it
//     (so that the host has handled the report: the TypeScript SDK runs
//     notification handlers a microtask after it reads them, and drops a
//     report handled after its call's result, which through connect may
//     come in the same read), answers with the token's JSON as received, or
//     "(no progress token)". (Not ping: the bridge answers a child's ping
//     itself, docs/architecture.md.)
//   - wait: sends one notifications/progress with its token, if it has
//     one, and never answers: it waits for notifications/cancelled.
//   - last_cancel: answers with the latest wait's fidelityWaitCall as
//     JSON, once a cancellation has arrived for it (or after
//     fidelityFixtureWait), or "null" when wait was never called.
type fidelityFixture struct {
	wmu sync.Mutex // serialises writes
	out io.Writer

	mu      sync.Mutex
	nextID  int
	asks    map[string]chan struct{} // by the id of the fixture's request
	wait    *fidelityWaitCall
	arrived chan struct{} // closed, and replaced, when a cancellation arrives
}

func runFidelityFixture(in io.Reader, out io.Writer) int {
	f := &fidelityFixture{out: out, asks: map[string]chan struct{}{}, arrived: make(chan struct{})}
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			f.handle(line)
		}
		if err != nil {
			return 0
		}
	}
}

func (f *fidelityFixture) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fidelity fixture: "+format+"\n", args...)
}

func (f *fidelityFixture) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.logf("marshal: %v", err)
		return
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if _, err := f.out.Write(append(b, '\n')); err != nil {
		f.logf("write: %v", err)
	}
}

func (f *fidelityFixture) reply(id json.RawMessage, result any) {
	f.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (f *fidelityFixture) fail(id json.RawMessage, code int, message string) {
	f.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

func (f *fidelityFixture) text(id json.RawMessage, text string) {
	f.reply(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
}

func (f *fidelityFixture) progress(token json.RawMessage, progress int, message string) {
	f.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
		"params": map[string]any{"progressToken": token, "progress": progress, "total": 1, "message": message}})
}

func (f *fidelityFixture) handle(line []byte) {
	var m rpcMessage
	if err := json.Unmarshal(line, &m); err != nil {
		f.logf("not JSON-RPC: %q: %v", line, err)
		return
	}
	switch {
	case m.Method == "": // an answer to the fixture's roots/list
		f.mu.Lock()
		ch := f.asks[string(m.ID)]
		delete(f.asks, string(m.ID))
		f.mu.Unlock()
		if ch == nil {
			f.logf("an answer to no request: %s", line)
			return
		}
		f.logf("the host answered: %s", line)
		close(ch)
	case m.ID == nil:
		f.notification(m)
	default:
		f.request(m)
	}
}

func (f *fidelityFixture) notification(m rpcMessage) {
	if m.Method != "notifications/cancelled" {
		return
	}
	f.logf("received %s %s", m.Method, m.Params)
	var params map[string]json.RawMessage
	if err := json.Unmarshal(m.Params, &params); err != nil {
		params = map[string]json.RawMessage{"(params)": m.Params}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.wait == nil {
		f.logf("a cancellation before any wait")
		return
	}
	f.wait.Cancelled = append(f.wait.Cancelled, params)
	close(f.arrived)
	f.arrived = make(chan struct{})
}

var fidelityTools = []map[string]any{
	{"name": "token", "description": "Reports the JSON of the request's progress token, after one progress report with it.",
		"inputSchema": map[string]any{"type": "object"}},
	{"name": "wait", "description": "Waits to be cancelled; never answers.",
		"inputSchema": map[string]any{"type": "object"}},
	{"name": "last_cancel", "description": "The latest wait's id, progress token and the cancellations received for it.",
		"inputSchema": map[string]any{"type": "object"}},
}

func (f *fidelityFixture) request(m rpcMessage) {
	switch m.Method {
	case "initialize":
		f.reply(m.ID, map[string]any{
			"protocolVersion": "2025-11-25",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "fidelity-fixture", "version": "1.0.0"},
		})
	case "ping":
		f.reply(m.ID, map[string]any{})
	case "tools/list":
		f.reply(m.ID, map[string]any{"tools": fidelityTools})
	case "tools/call":
		f.call(m)
	default:
		f.fail(m.ID, -32601, "Method not found: "+m.Method)
	}
}

func (f *fidelityFixture) call(m rpcMessage) {
	var p struct {
		Name string `json:"name"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		f.fail(m.ID, -32602, err.Error())
		return
	}
	token := p.Meta.ProgressToken
	f.logf("received tools/call %s, id %s, progress token %s", p.Name, m.ID, token)
	switch p.Name {
	case "token":
		go func() {
			if token == nil {
				f.text(m.ID, "(no progress token)")
				return
			}
			f.progress(token, 1, "token")
			f.askHost("roots/list")
			f.text(m.ID, string(token))
		}()
	case "wait":
		f.mu.Lock()
		f.wait = &fidelityWaitCall{ID: m.ID, ProgressToken: token, Cancelled: []map[string]json.RawMessage{}}
		f.mu.Unlock()
		if token != nil {
			f.progress(token, 0, "waiting for notifications/cancelled")
		}
	case "last_cancel":
		go f.lastCancel(m.ID)
	default:
		f.fail(m.ID, -32602, "Unknown tool: "+p.Name)
	}
}

// askHost sends the host a request and waits, bounded, for its answer.
func (f *fidelityFixture) askHost(method string) {
	f.mu.Lock()
	f.nextID++
	id := strconv.Itoa(f.nextID)
	ch := make(chan struct{})
	f.asks[id] = ch
	f.mu.Unlock()
	f.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method})
	select {
	case <-ch:
	case <-time.After(fidelityFixtureWait):
		f.logf("no answer to %s %s within %v", method, id, fidelityFixtureWait)
	}
}

func (f *fidelityFixture) lastCancel(id json.RawMessage) {
	deadline := time.After(fidelityFixtureWait)
	for {
		f.mu.Lock()
		w, arrived := f.wait, f.arrived
		got, _ := json.Marshal(w)
		done := w == nil || len(w.Cancelled) > 0 // under the lock, as got: the two agree
		f.mu.Unlock()
		if done {
			f.text(id, string(got))
			return
		}
		select {
		case <-arrived:
		case <-deadline:
			f.text(id, string(got))
			return
		}
	}
}

// hostsSent collects every JSON-RPC message a host wrote, as it wrote it.
type hostsSent = inbox[rpcMessage]

// addWritten adds the message or batch in data to sent.
func addWritten(sent *hostsSent, data []byte) {
	data = bytes.TrimSpace(data)
	var batch []rpcMessage
	if len(data) > 0 && data[0] == '[' {
		if json.Unmarshal(data, &batch) != nil {
			return
		}
	} else {
		var m rpcMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		batch = []rpcMessage{m}
	}
	for _, m := range batch {
		sent.add(m)
	}
}

// recordingTransport records what a Go SDK client writes on a stdio
// transport.
type recordingTransport struct {
	sdk.Transport
	sent *hostsSent
}

func (t *recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, sent: t.sent}, nil
}

type recordingConn struct {
	sdk.Connection
	sent *hostsSent
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if data, err := jsonrpc.EncodeMessage(msg); err == nil {
		addWritten(c.sent, data)
	}
	return c.Connection.Write(ctx, msg)
}

// recordingRoundTripper records the bodies a Go SDK client POSTs over
// Streamable HTTP (wrapping its Connection would hide the hooks the SDK
// uses to open its GET stream), and sends the API key.
type recordingRoundTripper struct {
	base http.RoundTripper
	key  string
	sent *hostsSent
}

func (rt *recordingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header.Set("Authorization", "Bearer "+rt.key)
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		addWritten(rt.sent, body)
		out.Body = io.NopCloser(bytes.NewReader(body))
	}
	return rt.base.RoundTrip(out)
}

// fidelityBridge starts a bridge that fronts the fidelity fixture as the
// server "main", its 2025 era tunnels each on a child of their own, with an
// HTTP listener, admitting the API key it returns.
func fidelityBridge(t *testing.T) (*bridgeProcess, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	key := "fidelity-host-key-6a1f03c9b7e2"
	_, gorace, _ := strings.Cut(testkit.QuickRaceExit(), "=")
	env, _ := json.Marshal(map[string]string{testkit.FixtureEnv: fidelityFixtureName, "GORACE": gorace})
	config := writeConfig(t, "", fmt.Sprintf(`http_listen: 127.0.0.1:0
auth:
  api_keys:
    - {principal: host, sha256: %s}
servers:
  - name: main
    command: %s
    env: %s
    tunnel: private
`, access.HashKey(key), yamlList([]string{self}), env))
	return startBridge(t, nil, "--config", config), key
}

// fidelityRun is one host's run on one transport.
type fidelityRun struct {
	transport string
	ops       hostOps
}

// compareFidelityRuns compares each run with the first (the direct one),
// operation by operation, and logs what each run got.
func compareFidelityRuns(t *testing.T, runs []fidelityRun) {
	t.Helper()
	for _, r := range runs {
		for _, op := range r.ops {
			t.Logf("%-7s %s: %s", r.transport, op.name, op.got)
		}
	}
	direct := runs[0]
	for _, r := range runs[1:] {
		got := map[string]string{}
		for _, op := range r.ops {
			got[op.name] = op.got
		}
		seen := map[string]bool{}
		for _, op := range direct.ops {
			seen[op.name] = true
			switch b, ok := got[op.name]; {
			case !ok:
				t.Errorf("%s: the host over %s never got this far\n %-7s %s", op.name, r.transport, direct.transport, op.got)
			case b != op.got:
				t.Errorf("%s differs:\n %-7s %s\n %-7s %s", op.name, direct.transport, op.got, r.transport, b)
			}
		}
		for _, op := range r.ops {
			if !seen[op.name] {
				t.Errorf("%s: only the host over %s got this far\n %-7s %s", op.name, r.transport, r.transport, op.got)
			}
		}
	}
}

// rawJSON is v compacted, or what it is when it is not JSON.
func rawJSON(v json.RawMessage) string {
	if v == nil {
		return "(absent)"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return fmt.Sprintf("(not JSON: %q)", v)
	}
	return b.String()
}

// sortedJSON is the JSON object v with its keys sorted, its values as
// written.
func sortedJSON(v json.RawMessage) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return rawJSON(v)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// progressTokenOf is the progress token in a request's params, as
// written.
func progressTokenOf(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta.ProgressToken
}

// toolCallsOf matches the tools/call requests of the tool name.
func toolCallsOf(name string) func(rpcMessage) bool {
	return func(m rpcMessage) bool {
		if m.Method != "tools/call" {
			return false
		}
		var p struct{ Name string }
		_ = json.Unmarshal(m.Params, &p)
		return p.Name == name
	}
}

// runGoFidelityHost runs the scenario with the Go SDK client asking for
// version on transport, where sent receives what the client writes. Each
// operation checks what the server received against what the client
// wrote; the caller compares the transports.
func runGoFidelityHost(t *testing.T, name, version string, transport sdk.Transport, sent *hostsSent) hostOps {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	progress := newInbox[*sdk.ProgressNotificationParams]()
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpbridge-fidelity-host", Version: "1.0.0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			progress.add(req.Params)
		},
	})
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s: the Go SDK client: %v", name, err)
	}
	defer cs.Close()
	var ops hostOps
	initialized := cs.InitializeResult()
	ops.add("initialize", "%s %s", initialized.ProtocolVersion, hostJSON(initialized.ServerInfo))

	// token, with a string and with a number: the Go SDK sends the token
	// its caller puts in _meta, and routes the report to
	// ProgressNotificationHandler with it.
	for i, token := range []any{"progress-1", 7} {
		res, err := cs.CallTool(ctx, toolCall{name: "token"}.params(sdk.Meta{"progressToken": token}))
		calls, serr := sent.wait(ctx, i+1, toolCallsOf("token"))
		var wrote json.RawMessage
		if serr == nil {
			wrote = progressTokenOf(calls[i].Params)
		}
		reports, werr := progress.wait(ctx, 1, func(p *sdk.ProgressNotificationParams) bool {
			return hostJSON(p.ProgressToken) == hostJSON(token)
		})
		handled := "(none)"
		if werr == nil {
			handled = hostJSON(reports[0].ProgressToken)
		}
		saw := sdkText(res)
		if err != nil || serr != nil || saw != rawJSON(wrote) || handled != rawJSON(wrote) {
			t.Errorf("%s: token with %s: the host wrote %s (%v); the server saw %q (%v); the progress handler got %s (%v)",
				name, hostJSON(token), rawJSON(wrote), serr, saw, err, handled, werr)
		}
		ops.add("token "+hostJSON(token), "the host wrote %s; the server saw %s; the progress handler got %s",
			rawJSON(wrote), saw, handled)
	}

	// wait, cancelled once it has reported (so it has reached the
	// server): the Go SDK cancels a call when its context ends, with the
	// context's error as the reason, and sends notifications/cancelled on
	// a goroutine of its own; last_cancel waits for it to arrive.
	callCtx, cancelCall := context.WithCancel(ctx)
	defer cancelCall()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, toolCall{name: "wait"}.params(sdk.Meta{"progressToken": "wait-1"}))
		done <- err
	}()
	_, werr := progress.wait(ctx, 1, func(p *sdk.ProgressNotificationParams) bool { return p.ProgressToken == "wait-1" })
	cancelCall()
	var callErr error
	select {
	case callErr = <-done:
	case <-time.After(waitLimit):
		callErr = errors.New("(the cancelled call did not return)")
	}
	waits, serr := sent.wait(ctx, 1, toolCallsOf("wait"))
	cancels, cerr := sent.wait(ctx, 1, func(m rpcMessage) bool { return m.Method == "notifications/cancelled" })
	res, err := cs.CallTool(ctx, toolCall{name: "last_cancel"}.params(nil))
	var server fidelityWaitCall
	if err == nil {
		if jerr := json.Unmarshal([]byte(sdkText(res)), &server); jerr != nil {
			err = fmt.Errorf("last_cancel answered %q: %v", sdkText(res), jerr)
		}
	}
	wrote := struct{ id, token, cancelled string }{"(none)", "(none)", "(none)"}
	if serr == nil {
		wrote.id, wrote.token = rawJSON(waits[0].ID), rawJSON(progressTokenOf(waits[0].Params))
	}
	if cerr == nil {
		wrote.cancelled = sortedJSON(cancels[0].Params)
	}
	var saw []string
	for _, c := range server.Cancelled {
		b, _ := json.Marshal(c)
		saw = append(saw, string(b))
	}
	if werr != nil || !errors.Is(callErr, context.Canceled) || err != nil || serr != nil || cerr != nil ||
		rawJSON(server.ID) != wrote.id || rawJSON(server.ProgressToken) != wrote.token ||
		len(saw) != 1 || saw[0] != wrote.cancelled {
		t.Errorf("%s: wait, cancelled (its report: %v; the call returned %v): the host wrote id %s, token %s, cancellation %s (%v, %v); "+
			"the server saw id %s, token %s, cancellations %q (%v)",
			name, werr, callErr, wrote.id, wrote.token, wrote.cancelled, serr, cerr,
			rawJSON(server.ID), rawJSON(server.ProgressToken), saw, err)
	}
	ops.add("wait, cancelled", "the host wrote id %s, token %s, cancellation %s; the server saw id %s, token %s, cancellations %s; the call returned %v",
		wrote.id, wrote.token, wrote.cancelled, rawJSON(server.ID), rawJSON(server.ProgressToken), strings.Join(saw, " "), callErr)
	return ops
}

// TestHostsFidelityGoSDK: the Go SDK client on the fidelity fixture
// launched itself (CommandTransport), through `mcpbridge connect`
// (CommandTransport), and at the bridge's /mcp/main
// (StreamableClientTransport): on each, the server receives the progress
// tokens, the ids and the cancellation the client wrote, and the three give
// the same answers. The client asks for 2025-11-25, and for its latest
// (goHostVersions), where it probes server/discover first, which the
// fixture refuses as a 2025 era server does, and falls back to initialize:
// both open a private session.
func TestHostsFidelityGoSDK(t *testing.T) {
	b, key := fidelityBridge(t)
	for _, v := range goHostVersions {
		t.Run(v.name, func(t *testing.T) {
			var runs []fidelityRun

			sent := newInbox[rpcMessage]()
			cmd := testkit.FixtureCommand(t, fidelityFixtureName)
			stderr := &testkit.SyncBuffer{}
			cmd.Stderr = stderr
			runs = append(runs, fidelityRun{"direct", runGoFidelityHost(t, "direct", v.version,
				&recordingTransport{&sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, sent}, sent)})
			if t.Failed() {
				t.Logf("the fixture's stderr:\n%s", stderr)
			}

			sent = newInbox[rpcMessage]()
			cmd = exec.Command(mcpbridgeBin, "connect", "--addr", b.addr, "--server", "main")
			cmd.Env = append(os.Environ(), "MCPBRIDGE_TOKEN="+key)
			stderr = &testkit.SyncBuffer{}
			cmd.Stderr = stderr
			runs = append(runs, fidelityRun{"connect", runGoFidelityHost(t, "connect", v.version,
				&recordingTransport{&sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, sent}, sent)})
			if t.Failed() {
				t.Logf("connect's stderr:\n%s", stderr)
			}

			sent = newInbox[rpcMessage]()
			httpTransport := http.DefaultTransport.(*http.Transport).Clone()
			defer httpTransport.CloseIdleConnections()
			runs = append(runs, fidelityRun{"/mcp", runGoFidelityHost(t, "/mcp", v.version, &sdk.StreamableClientTransport{
				Endpoint:   "http://" + httpAddr(t, b) + "/mcp/main",
				HTTPClient: &http.Client{Transport: &recordingRoundTripper{base: httpTransport, key: key, sent: sent}},
			}, sent)})

			compareFidelityRuns(t, runs)
		})
	}
}

// TestHostsFidelityTypeScript: the TypeScript SDK client
// (testdata/peers/fidelity-host.mjs) on the fidelity fixture launched
// itself (StdioClientTransport), through `mcpbridge connect`
// (StdioClientTransport), and at the bridge's /mcp/main
// (StreamableHTTPClientTransport): the token the SDK picks for onprogress
// (the request's id) and a token of the host's own, the wait call's id and
// the reason given to its AbortController reach the server as the SDK wrote
// them (fidelity-host.mjs checks each), and the three give the same
// answers.
func TestHostsFidelityTypeScript(t *testing.T) {
	node := hostScript(t)[0]
	script := []string{node, filepath.Join(testkit.ModuleRoot(t), "testdata", "peers", "fidelity-host.mjs")}
	b, key := fidelityBridge(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runs := []fidelityRun{
		{"direct", runTypeScriptHost(t, script, "fidelity", []string{self},
			[]string{testkit.FixtureEnv + "=" + fidelityFixtureName, testkit.QuickRaceExit()}, true)},
		{"connect", runTypeScriptHost(t, script, "fidelity", []string{mcpbridgeBin, "connect", "--addr", b.addr, "--server", "main"},
			[]string{"MCPBRIDGE_TOKEN=" + key}, true)},
		{"/mcp", runTypeScriptHost(t, script, "fidelity", []string{"http://" + httpAddr(t, b) + "/mcp/main"},
			[]string{"MCPBRIDGE_HOST_TOKEN=" + key}, true)},
	}
	compareFidelityRuns(t, runs)
}
