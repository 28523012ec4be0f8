package mcphttp

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"time"
)

// The fixture is a scripted stdio MCP server that shows the adapter's
// effects from the child's side: which ids it sees, which cancellations
// reach it, what its requests get back. Its methods:
//
//   - initialize: a 2025-11-25 result.
//   - subscriptions/listen: the acknowledgement, then one
//     notifications/tools/list_changed, both tagged with the listen's id
//     (which the event also carries as "seen"); the stream stays open.
//   - test/wait: progress carrying the id it saw as message (when the
//     request has a token), then no answer: it waits to be cancelled.
//   - test/cancelled: waits for the first notifications/cancelled, then
//     returns {"cancelled":[requestId…]}.
//   - test/progress: two progress notifications and a log, then {}.
//   - test/ask: sends sampling/createMessage and returns {"answer": the
//     response it got}.
//   - test/notify: sends notifications/resources/updated, then returns {}.
//   - test/ask-later: returns {} at once, then after params.delayMs sends
//     sampling/createMessage of its own; test/late-answer returns
//     {"answer": the response it got} (waiting for it); test/hold returns
//     {} after params.ms.
//   - tools/list: one tool, mirror, whose argument region is mirrored
//     into the header Mcp-Param-Region (x-mcp-header).
//   - test/error: fails with params.code.
//   - anything else: {"method", "id" (as seen), "params", "pid"}.
//
// It exits at stdin EOF.
func runFixture() int {
	f := &fixture{
		out:       bufio.NewWriter(os.Stdout),
		answers:   map[string]chan json.RawMessage{},
		late:      make(chan json.RawMessage, 1),
		anyCancel: make(chan struct{}),
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	for in.Scan() {
		var m fixtureMessage
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "": // a response to test/ask
			f.mu.Lock()
			ch := f.answers[string(m.ID)]
			f.mu.Unlock()
			if ch != nil {
				ch <- append(json.RawMessage(nil), in.Bytes()...)
			}
		case m.ID == nil:
			if m.Method == "notifications/cancelled" {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				json.Unmarshal(m.Params, &p)
				f.mu.Lock()
				f.cancelled = append(f.cancelled, p.RequestID)
				if len(f.cancelled) == 1 {
					close(f.anyCancel)
				}
				f.mu.Unlock()
			}
		default:
			go f.handle(m)
		}
	}
	return 0
}

type fixtureMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type fixture struct {
	late      chan json.RawMessage // the answer to test/ask-later's request
	mu        sync.Mutex
	out       *bufio.Writer
	answers   map[string]chan json.RawMessage
	cancelled []json.RawMessage
	anyCancel chan struct{} // closed at the first cancellation
}

func (f *fixture) send(v any) {
	line, _ := json.Marshal(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Write(line)
	f.out.WriteByte('\n')
	f.out.Flush()
}

func (f *fixture) result(id json.RawMessage, v any) {
	f.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": v})
}

func (f *fixture) notify(method string, params any) {
	f.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (f *fixture) handle(m fixtureMessage) {
	var p struct {
		DelayMS       int             `json:"delayMs"`
		MS            int             `json:"ms"`
		Code          int64           `json:"code"`
		Notifications json.RawMessage `json:"notifications"`
		Meta          struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	token := p.Meta.ProgressToken
	switch m.Method {
	case "initialize":
		f.result(m.ID, map[string]any{
			"protocolVersion": "2025-11-25",
			"capabilities":    map[string]any{},
			"serverInfo":      map[string]any{"name": "mcphttp-fixture", "version": "0"},
		})
	case "subscriptions/listen":
		tag := map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}
		f.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": p.Notifications, "_meta": tag})
		f.notify("notifications/tools/list_changed", map[string]any{"seen": m.ID, "_meta": tag})
	case "test/wait":
		if token != nil {
			f.notify("notifications/progress", map[string]any{"progressToken": token, "progress": 1, "message": string(m.ID)})
		}
	case "test/cancelled":
		select {
		case <-f.anyCancel:
		case <-time.After(10 * time.Second):
		}
		f.mu.Lock()
		got := append([]json.RawMessage{}, f.cancelled...)
		f.mu.Unlock()
		f.result(m.ID, map[string]any{"cancelled": got})
	case "test/progress":
		for i := 1; i <= 2; i++ {
			f.notify("notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": 2})
		}
		f.notify("notifications/message", map[string]any{"level": "info", "data": "fixture log"})
		f.result(m.ID, map[string]any{})
	case "test/ask":
		id := json.RawMessage(strconv.Quote("ask-" + string(m.ID)))
		ch := make(chan json.RawMessage, 1)
		f.mu.Lock()
		f.answers[string(id)] = ch
		f.mu.Unlock()
		f.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "sampling/createMessage", "params": map[string]any{"maxTokens": 1}})
		f.result(m.ID, map[string]any{"answer": json.RawMessage(<-ch)})
	case "test/ask-later":
		f.result(m.ID, map[string]any{})
		time.Sleep(time.Duration(p.DelayMS) * time.Millisecond)
		id := json.RawMessage(`"later"`)
		f.mu.Lock()
		f.answers[string(id)] = f.late
		f.mu.Unlock()
		f.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "sampling/createMessage", "params": map[string]any{"maxTokens": 1}})
	case "test/late-answer":
		select {
		case a := <-f.late:
			f.result(m.ID, map[string]any{"answer": a})
		case <-time.After(10 * time.Second):
			f.result(m.ID, map[string]any{"answer": nil})
		}
	case "test/hold":
		time.Sleep(time.Duration(p.MS) * time.Millisecond)
		f.result(m.ID, map[string]any{})
	case "test/notify":
		f.notify("notifications/resources/updated", map[string]any{"uri": "test://x"})
		f.result(m.ID, map[string]any{})
	case "tools/list":
		f.result(m.ID, map[string]any{"tools": []any{map[string]any{
			"name": "mirror",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
			}},
		}}})
	case "test/error":
		f.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": p.Code, "message": "fixture error"}})
	default:
		f.result(m.ID, map[string]any{"method": m.Method, "id": m.ID, "params": m.Params, "pid": os.Getpid()})
	}
}
