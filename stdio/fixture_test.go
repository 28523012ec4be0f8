package stdio

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// The "mcp" fixture is a small hand-written stdio MCP server that shows, on
// demand, the behaviours no real server shows when asked: slowness, huge
// lines, garbage, crashes, closing stdin, server-to-client requests and
// listen streams. FIXTURE_* environment variables choose its era and
// quirks; its tools (tools/call names) choose the rest.
func init() { fixtures["mcp"] = runMCPFixture }

type fixtureServer struct {
	era       string // modern (default), legacy, strict-legacy, unsupported, silent-probe, garbage-probe, exit-probe, old, slow-modern, mute
	crlf      bool
	in        *os.File
	out       *os.File
	wmu       sync.Mutex // serialises writes
	mu        sync.Mutex // guards the fields below
	inflight  map[string]*fixtureTask
	cancelled []string
	answers   map[string][]chan json.RawMessage // server requests awaiting the client, by id, in order
	listens   map[string]bool
	unasked   int // responses to ids we never asked about
	answered  int // responses to our requests
	metaNotes int // notifications that carried _meta
	lastMeta  json.RawMessage
	lastLine  []byte
	sawOther  bool // strict-legacy: a request other than initialize arrived
	inits     int
	changed   chan struct{} // closed and replaced whenever cancelled grows
	workers   atomic.Int32
	closeIn   atomic.Bool
	parked    []string // ids of every park call
	badLines  int      // lines that were not JSON-RPC
	wg        sync.WaitGroup
	base      context.Context // cancelled at EOF: the fixture stops its tools
}

// fixtureTask is a running tools/call.
type fixtureTask struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func runMCPFixture() int {
	f := &fixtureServer{
		era:      os.Getenv("FIXTURE_ERA"),
		crlf:     os.Getenv("FIXTURE_CRLF") == "1",
		in:       os.Stdin,
		out:      os.Stdout,
		inflight: map[string]*fixtureTask{},
		answers:  map[string][]chan json.RawMessage{},
		listens:  map[string]bool{},
		changed:  make(chan struct{}),
	}
	if f.era == "" {
		f.era = "modern"
	}
	if d, err := time.ParseDuration(os.Getenv("FIXTURE_START_DELAY")); err == nil {
		time.Sleep(d) // a slow starter (go run compiling, npx downloading): stdin unread meanwhile
	}
	if os.Getenv("FIXTURE_BANNER") == "1" {
		f.write([]byte("Fixture server starting (this banner is not JSON)\n\n"))
	}
	if os.Getenv("FIXTURE_GRANDCHILD") == "1" {
		// A descendant in the same process group, for the group-signal test.
		cmd := exec.Command("sleep", "60")
		if os.Getenv("FIXTURE_GRANDCHILD_STDOUT") == "1" {
			cmd.Stdout = os.Stdout // holds the child's stdout, as a launcher's server does
		}
		if err := cmd.Start(); err == nil {
			fmt.Fprintf(os.Stderr, "grandchild %d\n", cmd.Process.Pid)
			f.write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"grandchild","params":{"pid":%d}}`+"\n", cmd.Process.Pid)))
		}
	}
	base, stop := context.WithCancel(context.Background())
	f.base = base
	limit := 64 << 20
	if n, err := strconv.Atoi(os.Getenv("FIXTURE_MAX_LINE")); err == nil {
		limit = n // a third-party server's line limit: over-long lines get a null id
	}
	lr := wire.NewReader(f.in, limit)
	for {
		line, err := lr.ReadLine()
		var tooLong *wire.LineTooLongError
		if errors.As(err, &tooLong) {
			f.mu.Lock()
			f.badLines++
			f.mu.Unlock()
			f.fail(json.RawMessage("null"), jsonrpc.CodeInvalidRequest, "Line too long", nil)
			continue
		}
		if err != nil {
			break
		}
		f.handle(line)
		if f.closeIn.Load() {
			// Close stdin from the reading goroutine itself (a close under a
			// blocked Read would wait for that Read), and stay alive while
			// tools still run.
			f.in.Close()
			f.wg.Wait()
			stop()
			return 0
		}
	}
	if os.Getenv("FIXTURE_IGNORE_EOF") == "1" {
		for { // a server that ignores EOF: only a signal ends it
			time.Sleep(time.Hour) // (a bare select{} would be a runtime deadlock)
		}
	}
	stop()
	f.wg.Wait()
	f.mu.Lock()
	fmt.Fprintf(os.Stderr, "fixture: at EOF: answered=%d unasked=%d\n", f.answered, f.unasked)
	fmt.Fprintf(os.Stderr, "fixture: cancelled before EOF: %s\n", strings.Join(f.cancelled, ","))
	f.mu.Unlock()
	return 0
}

// write emits one or more complete lines in one Write.
func (f *fixtureServer) write(b []byte) {
	if f.crlf {
		b = []byte(strings.ReplaceAll(string(b), "\n", "\r\n"))
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.out.Write(b)
}

func (f *fixtureServer) result(id json.RawMessage, result string) {
	f.write(wire.AppendResponse(nil, id, json.RawMessage(result)))
}

func (f *fixtureServer) fail(id json.RawMessage, code int64, msg string, data any) {
	e := &jsonrpc.Error{Code: code, Message: msg}
	if data != nil {
		e.Data, _ = rawjson.Marshal(data)
	}
	f.write(wire.AppendError(nil, id, (*wire.Error)(e)))
}

func (f *fixtureServer) handle(line []byte) {
	prev := f.lastLine
	f.lastLine = append([]byte(nil), line...)
	m, err := wire.Decode(line)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fixture: bad line %q: %v\n", line, err)
		f.mu.Lock()
		f.badLines++
		f.mu.Unlock()
		return
	}
	id := append(json.RawMessage(nil), m.ID...)
	params := append(json.RawMessage(nil), m.Params...)
	switch m.Kind {
	case wire.KindResponse:
		f.mu.Lock()
		var ch chan json.RawMessage
		if q := f.answers[string(id)]; len(q) > 0 {
			ch = q[0]
			f.answers[string(id)] = q[1:]
			f.answered++
		} else {
			f.unasked++
		}
		f.mu.Unlock()
		if ch != nil {
			ch <- append(json.RawMessage(nil), line...)
		}
		return
	case wire.KindNotification:
		if _, ok := rawjson.Member(params, "_meta"); ok {
			f.mu.Lock()
			f.metaNotes++
			f.mu.Unlock()
		}
		switch m.Method {
		case "notifications/cancelled":
			target, _ := rawjson.Member(params, "requestId")
			f.mu.Lock()
			t := f.inflight[string(target)]
			delete(f.listens, string(target))
			f.mu.Unlock()
			// Record the cancellation once the tool has stopped, so that
			// awaitcancel sees its effect too.
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				if t != nil {
					t.cancel()
					<-t.done
				}
				f.mu.Lock()
				f.cancelled = append(f.cancelled, string(target))
				close(f.changed)
				f.changed = make(chan struct{})
				f.mu.Unlock()
			}()
		case "notifications/initialized":
			if os.Getenv("FIXTURE_BURST") == "1" {
				var burst []byte
				for range 5 {
					burst = wire.AppendNotification(burst, "notifications/tools/list_changed", nil)
				}
				f.write(burst)
				f.askAsync(json.RawMessage(`0`), "roots/list", json.RawMessage(`{}`))
			}
		}
		return
	}
	f.request(id, m.Method, params, prev)
}

// request serves one request; slow tools run in goroutines of their own.
func (f *fixtureServer) request(id json.RawMessage, method string, params, prev json.RawMessage) {
	meta, hasMeta := rawjson.Member(params, "_meta")
	if hasMeta {
		f.mu.Lock()
		f.lastMeta = meta
		f.mu.Unlock()
	}
	switch method {
	case "server/discover":
		f.discover(id)
		return
	case "initialize":
		f.initialize(id, params)
		return
	case "ping":
		f.result(id, `{}`)
		return
	}
	f.mu.Lock()
	f.sawOther = true
	f.mu.Unlock()
	if f.era == "modern" {
		v, _ := rawjson.Member(meta, protocol.MetaProtocolVersion)
		caps, _ := rawjson.Member(meta, protocol.MetaClientCapabilities)
		info, _ := rawjson.Member(meta, protocol.MetaClientInfo)
		if string(v) != `"2026-07-28"` || !rawjson.IsObject(caps) || !rawjson.IsObject(info) {
			f.fail(id, jsonrpc.CodeInvalidParams, "Required request _meta is missing", nil)
			return
		}
	}
	switch method {
	case "tools/list":
		f.result(id, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
	case "subscriptions/listen":
		f.listen(id, params)
	case "tools/call":
		name, _ := rawjson.Member(params, "name")
		args, _ := rawjson.Member(params, "arguments")
		tok, _ := rawjson.Member(meta, "progressToken")
		if string(name) == `"closestdin"` {
			f.closeIn.Store(true)
		}
		if string(name) == `"stall"` { // stop reading stdin for a while
			var a struct{ Ms int }
			json.Unmarshal(args, &a)
			time.Sleep(time.Duration(a.Ms) * time.Millisecond)
			f.result(id, `{"stalled":true}`)
			return
		}
		ctx, cancel := context.WithCancel(f.base)
		t := &fixtureTask{cancel: cancel, done: make(chan struct{})}
		f.mu.Lock()
		f.inflight[string(id)] = t
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer close(t.done)
			defer cancel()
			f.tool(ctx, id, strings.Trim(string(name), `"`), args, tok, prev)
			f.mu.Lock()
			delete(f.inflight, string(id))
			f.mu.Unlock()
		}()
	default:
		f.fail(id, jsonrpc.CodeMethodNotFound, "Method not found", nil)
	}
}

func (f *fixtureServer) discover(id json.RawMessage) {
	switch f.era {
	case "modern":
		f.result(id, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"instructions":"fixture","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixture","version":"1"}}}`)
	case "unsupported":
		f.fail(id, jsonrpc.CodeUnsupportedVersion, "Unsupported protocol version", map[string]any{"supported": []string{"2025-11-25"}, "requested": "2026-07-28"})
	case "silent-probe", "slow-modern", "mute":
	case "garbage-probe":
		f.write([]byte("this is not json\n"))
	case "exit-probe":
		os.Exit(0)
	default:
		f.mu.Lock()
		f.sawOther = true
		f.mu.Unlock()
		f.fail(id, jsonrpc.CodeMethodNotFound, "Method not found", nil)
	}
}

func (f *fixtureServer) initialize(id, params json.RawMessage) {
	f.mu.Lock()
	tainted := f.sawOther
	f.inits++
	f.mu.Unlock()
	switch {
	case f.era == "strict-legacy" && tainted:
		f.fail(id, 0, "Received a request before initialize", nil)
		return
	case f.era == "slow-modern": // a 2026-only server that missed the probe
		f.fail(id, jsonrpc.CodeUnsupportedVersion, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-11-25"})
		return
	case f.era == "mute": // never completes a handshake
		return
	}
	v, _ := rawjson.Member(params, "protocolVersion")
	version, _ := rawjson.StringValue(v)
	if f.era == "old" || (version != "2025-11-25" && version != "2025-06-18") {
		version = "2025-11-25"
		if f.era == "old" {
			version = "2025-06-18"
		}
	}
	f.result(id, `{"protocolVersion":"`+version+`","capabilities":{"tools":{}},"serverInfo":{"name":"legacy-fixture","version":"1"},"instructions":"be nice"}`)
}

// send writes a request to the client and returns where its response
// line will arrive.
func (f *fixtureServer) send(id json.RawMessage, method string, params json.RawMessage) chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	f.mu.Lock()
	f.answers[string(id)] = append(f.answers[string(id)], ch)
	f.write(wire.AppendRequest(nil, id, method, params))
	f.mu.Unlock()
	return ch
}

// ask sends a request to the client and waits for the whole response line.
func (f *fixtureServer) ask(ctx context.Context, id json.RawMessage, method string, params json.RawMessage) json.RawMessage {
	select {
	case r := <-f.send(id, method, params):
		return r
	case <-ctx.Done():
		return nil
	}
}

func (f *fixtureServer) askAsync(id json.RawMessage, method string, params json.RawMessage) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f.ask(ctx, id, method, params)
	}()
}

// listen serves subscriptions/listen: filter keys starting with x- are
// fixture commands.
func (f *fixtureServer) listen(id, params json.RawMessage) {
	filter, _ := rawjson.Member(params, "notifications")
	var fl map[string]any
	json.Unmarshal(filter, &fl)
	for k, v := range fl {
		if _, ok := v.(bool); !ok && !strings.HasPrefix(k, "x-") && k != "resourceSubscriptions" {
			f.fail(id, jsonrpc.CodeInvalidParams, "Invalid filter: "+k, nil)
			return
		}
	}
	sub := func(method, extra string) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":{` + extra + `"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(id) + `}}}` + "\n")
	}
	if fl["x-noack"] == true {
		f.mu.Lock()
		f.listens[string(id)] = true
		f.mu.Unlock()
		return
	}
	if fl["x-early"] == true {
		f.write(sub("notifications/tools/list_changed", `"seq":0,`))
	}
	accepted := map[string]any{}
	for k, v := range fl {
		if k == "toolsListChanged" || k == "resourceSubscriptions" || k == "resourcesListChanged" {
			accepted[k] = v // prompts are not advertised, so promptsListChanged is left out
		}
	}
	acc, _ := json.Marshal(accepted)
	if fl["x-badack"] == true {
		acc = []byte(`"yes"`)
	}
	f.mu.Lock()
	f.listens[string(id)] = true
	f.mu.Unlock()
	f.write(sub("notifications/subscriptions/acknowledged", `"notifications":`+string(acc)+`,`))
}

// tool runs one tools/call.
func (f *fixtureServer) tool(ctx context.Context, id json.RawMessage, name string, args, token, prev json.RawMessage) {
	var a struct {
		Message      json.RawMessage   `json:"message"`
		Ms           int               `json:"ms"`
		Bytes        int               `json:"bytes"`
		IDLast       bool              `json:"idLast"`
		Count        int               `json:"count"`
		IntervalMs   int               `json:"intervalMs"`
		Code         int               `json:"code"`
		IgnoreCancel bool              `json:"ignoreCancel"`
		Requests     []json.RawMessage `json:"requests"`
		Events       []json.RawMessage `json:"events"`
		End          string            `json:"end"`
	}
	json.Unmarshal(args, &a)
	progress := func(i int, total int) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":%d,"message":"tick %d"}}`+"\n", token, i, total, i))
	}
	switch name {
	case "echo":
		if a.Message == nil {
			a.Message = json.RawMessage(`""`)
		}
		f.result(id, `{"content":[{"type":"text","text":`+string(a.Message)+`}]}`)
	case "lastline": // the previous line we read, byte for byte
		f.result(id, `{"line":"`+base64.StdEncoding.EncodeToString(prev)+`"}`)
	case "lastmeta":
		f.mu.Lock()
		meta := f.lastMeta
		f.mu.Unlock()
		f.result(id, `{"meta":`+string(meta)+`}`)
	case "sleep":
		select {
		case <-time.After(time.Duration(a.Ms) * time.Millisecond):
			f.result(id, fmt.Sprintf(`{"slept":%d}`, a.Ms))
		case <-ctx.Done():
		}
	case "park":
		f.mu.Lock()
		f.parked = append(f.parked, string(id))
		f.mu.Unlock()
		f.workers.Add(1)
		<-ctx.Done()
		f.workers.Add(-1)
	case "stats":
		f.mu.Lock()
		s, _ := json.Marshal(map[string]any{"workers": f.workers.Load(), "cancelled": f.cancelled,
			"listens": len(f.listens), "unasked": f.unasked, "answered": f.answered, "metaNotes": f.metaNotes, "inits": f.inits, "parked": f.parked, "badLines": f.badLines})
		f.mu.Unlock()
		f.result(id, string(s))
	case "awaitcancel": // wait until the cancellation of a.Message (an id) arrived
		deadline := time.After(10 * time.Second)
		for {
			f.mu.Lock()
			seen := false
			for _, c := range f.cancelled {
				seen = seen || c == string(a.Message)
			}
			changed := f.changed
			f.mu.Unlock()
			if seen {
				f.result(id, fmt.Sprintf(`{"seen":true,"workers":%d}`, f.workers.Load()))
				return
			}
			select {
			case <-changed:
			case <-deadline:
				f.result(id, `{"seen":false}`)
				return
			}
		}
	case "big":
		result := `{"content":[{"type":"text","text":"` + strings.Repeat("x", a.Bytes) + `"}]}`
		if a.IDLast { // the TypeScript SDK's order
			f.write([]byte(`{"result":` + result + `,"jsonrpc":"2.0","id":` + string(id) + "}\n"))
			break
		}
		f.result(id, result)
	case "progress":
		for i := 1; i <= a.Count; i++ {
			select {
			case <-time.After(time.Duration(a.IntervalMs) * time.Millisecond):
			case <-ctx.Done():
				if !a.IgnoreCancel {
					return
				}
			}
			f.write(progress(i, a.Count))
		}
		f.result(id, fmt.Sprintf(`{"ticks":%d}`, a.Count))
	case "logs": // progress and log messages interleaved, in one Write
		var b []byte
		for i := 1; i <= 2; i++ {
			b = append(b, progress(i, 2)...)
			b = wire.AppendNotification(b, "notifications/message", json.RawMessage(fmt.Sprintf(`{"level":"info","data":"log %d"}`, i)))
		}
		if a.Ms > 0 { // let a concurrent call start first
			time.Sleep(time.Duration(a.Ms) * time.Millisecond)
		}
		f.write(wire.AppendResponse(b, id, json.RawMessage(`{"ticks":2}`)))
	case "burst": // three progress frames and the result in one Write
		var b []byte
		for i := 1; i <= 3; i++ {
			b = append(b, progress(i, 3)...)
		}
		f.write(wire.AppendResponse(b, id, json.RawMessage(`{"ticks":3}`)))
	case "exit":
		os.Exit(a.Code)
	case "respondexit":
		f.result(id, `{"bye":true}`)
		os.Exit(0)
	case "closestdin": // the main loop closes stdin after this line
		f.result(id, `{"closed":true}`)
	case "stderr":
		os.Stderr.Write([]byte(strings.Repeat("e", a.Bytes-5) + "TAIL\n"))
		f.result(id, `{"wrote":true}`)
	case "env":
		cwd, _ := os.Getwd()
		_, hasFoo := os.LookupEnv("FOO")
		s, _ := json.Marshal(map[string]any{"hasFoo": hasFoo, "bar": os.Getenv("BAR"), "cwd": cwd})
		f.result(id, string(s))
	case "weird": // an unknown id, then both result and error for ours
		f.write([]byte(`{"jsonrpc":"2.0","id":9999,"result":{}}` + "\n"))
		f.write([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{},"error":{"code":1,"message":"both"}}` + "\n"))
	case "garbage":
		f.write([]byte("not json at all\n{\"json\":\"but not json-rpc\"}\n"))
		f.result(id, `{"ok":true}`)
	case "ask": // server requests, in order, answered by the client concurrently
		chans := make([]chan json.RawMessage, len(a.Requests))
		for i, r := range a.Requests {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			json.Unmarshal(r, &req)
			chans[i] = f.send(req.ID, req.Method, req.Params)
			if a.IntervalMs > 0 {
				time.Sleep(time.Duration(a.IntervalMs) * time.Millisecond)
			}
		}
		f.write(wire.AppendNotification(nil, "notifications/asked", nil))
		answers := make([]json.RawMessage, len(chans))
		timeout := time.After(10 * time.Second)
		for i, ch := range chans {
			select {
			case answers[i] = <-ch:
			case <-ctx.Done():
			case <-timeout:
			}
		}
		out, _ := json.Marshal(answers)
		f.result(id, `{"answers":`+string(out)+`}`)
	case "askcancel": // ask, then cancel our own request
		f.send(json.RawMessage(`"c1"`), "elicitation/create", json.RawMessage(`{"message":"?"}`))
		time.Sleep(time.Duration(a.Ms) * time.Millisecond)
		// No longer waited for: an answer to c1 from now on counts as
		// unasked.
		f.mu.Lock()
		delete(f.answers, `"c1"`)
		f.mu.Unlock()
		f.write(wire.AppendNotification(nil, "notifications/cancelled", json.RawMessage(`{"requestId":"c1"}`)))
		f.result(id, `{"cancelled":true}`)
	case "emit": // events on every open listen, then an optional end
		f.mu.Lock()
		var ids []string
		for l := range f.listens {
			ids = append(ids, l)
		}
		f.mu.Unlock()
		var b []byte
		for _, l := range ids {
			for _, ev := range a.Events {
				var e struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				}
				json.Unmarshal(ev, &e)
				p := strings.TrimSuffix(string(e.Params), "}")
				if p != "{" {
					p += ","
				}
				p += `"_meta":{"io.modelcontextprotocol/subscriptionId":` + l + `}}`
				b = wire.AppendNotification(b, e.Method, json.RawMessage(p))
			}
			switch a.End {
			case "complete":
				b = wire.AppendResponse(b, json.RawMessage(l), json.RawMessage(`{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":`+l+`}}`))
			case "cancelled":
				b = wire.AppendNotification(b, "notifications/cancelled", json.RawMessage(`{"requestId":`+l+`}`))
			case "error":
				b = wire.AppendError(b, json.RawMessage(l), &wire.Error{Code: jsonrpc.CodeInternalError, Message: "Subscription source failed"})
			}
			if a.End != "" {
				f.mu.Lock()
				delete(f.listens, l)
				f.mu.Unlock()
			}
		}
		b = wire.AppendResponse(b, id, json.RawMessage(`{"emitted":true}`))
		f.write(b)
	default:
		f.fail(id, jsonrpc.CodeInvalidParams, "Unknown tool: "+name, nil)
	}
}

// spec is a child for a test to start: a fixture of this test binary (or
// a peer's command line) and the Client's configuration.
type spec struct {
	ClientConfig
	fixture string    // the fixture to run, when argv is nil
	argv    []string  // a command line instead of a fixture
	env     []string  // added to the environment, "KEY=value"
	Dir     string    // the working directory (default: ours)
	Stderr  io.Writer // the child's stderr (default: discarded)
}

// command is the child's command line.
func (s *spec) command(tb testing.TB) *exec.Cmd {
	tb.Helper()
	var cmd *exec.Cmd
	if s.argv != nil {
		cmd = exec.Command(s.argv[0], s.argv[1:]...)
		cmd.Env = append(os.Environ(), s.env...)
	} else {
		cmd = testkit.FixtureCommand(tb, s.fixture, s.env...)
	}
	cmd.Dir = s.Dir
	cmd.Stderr = s.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	return cmd
}

// start starts the child.
func (s *spec) start(ctx context.Context, tb testing.TB) (*Client, error) {
	tb.Helper()
	return Start(ctx, s.command(tb), s.ClientConfig)
}

// fixtureConfig runs the mcp fixture with env.
func fixtureConfig(env ...string) spec {
	return spec{fixture: "mcp", env: env}
}

// startClient starts cfg and makes sure the child is gone when the test
// ends: Close, a grace period, SIGTERM, then SIGKILL to the group.
func startClient(tb testing.TB, cfg spec) *Client {
	tb.Helper()
	c, err := cfg.start(context.Background(), tb)
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	tb.Cleanup(func() { testkit.StopChild(tb, c, 2*time.Second) })
	return c
}

// connectFixture negotiates with the fixture through Connect, counting
// starts.
func connectFixture(tb testing.TB, cc ConnectConfig, env ...string) (*Client, *atomic.Int32, error) {
	tb.Helper()
	var starts atomic.Int32
	cfg := fixtureConfig(env...)
	c, err := Connect(context.Background(), func(ctx context.Context) (*Client, error) {
		starts.Add(1)
		c, err := cfg.start(ctx, tb)
		if err == nil {
			tb.Cleanup(func() { testkit.StopChild(tb, c, 2*time.Second) })
		}
		return c, err
	}, cc)
	return c, &starts, err
}

// callTool calls the fixture's tools/call with args.
func callTool(ctx context.Context, c *Client, name string, args any, opts *CallOptions) (json.RawMessage, error) {
	return c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, opts)
}

// stats reads the fixture's counters.
type fixtureStats struct {
	Workers   int      `json:"workers"`
	Cancelled []string `json:"cancelled"`
	Listens   int      `json:"listens"`
	Unasked   int      `json:"unasked"`
	Answered  int      `json:"answered"`
	MetaNotes int      `json:"metaNotes"`
	Inits     int      `json:"inits"`
	Parked    []string `json:"parked"`
	BadLines  int      `json:"badLines"`
}

func getStats(tb testing.TB, c *Client) fixtureStats {
	tb.Helper()
	res, err := callTool(context.Background(), c, "stats", nil, nil)
	if err != nil {
		tb.Fatalf("stats: %v", err)
	}
	var s fixtureStats
	if err := json.Unmarshal(res, &s); err != nil {
		tb.Fatal(err)
	}
	return s
}
