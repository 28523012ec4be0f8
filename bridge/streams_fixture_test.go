package bridge

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// The "streams" fixture is a small hand-written stdio MCP server for what
// real servers do not show on demand: notifications and server requests
// when asked, counted resources/subscribe calls, listens that the server
// ends, calls that only a cancellation ends, floods, and exits.
// STREAMS_FIXTURE_ERA is "legacy" (default: initialize, 2025-11-25) or
// "modern" (2026-07-28: server/discover, subscriptions/listen).
//
// Tools (tools/call name, arguments):
//
//   - echo {text}: the text.
//   - notify {method, params}: writes that notification; on a modern
//     server to every open listen, with its subscription id.
//   - flood {n, uri}: n notifications/resources/updated for uri, each
//     with _meta.seq, then notifications/tools/list_changed; on a modern
//     server on every open listen, one after the other.
//   - ask {method, params}: sends that request to the client under a
//     string id and returns the client's response object as text.
//   - cancelasks: cancels every pending ask (notifications/cancelled),
//     which then returns {"result":{"cancelled":true}}.
//   - counts: resources/subscribe and unsubscribe calls per URI, as text.
//   - progress {steps}: steps notifications/progress on the request's
//     token, then the result.
//   - block: logs "blocked <id>" and answers nothing; a
//     notifications/cancelled for it makes the server log "cancelled <id>
//     reason <the notification's reason member, as JSON, or none>".
//   - waitlistens {n}: answers once exactly n listens are open (modern).
//   - endlisten: answers every open listen with a complete result.
//   - exit: the process exits with status 3.
//
// Legacy resources/subscribe and resources/unsubscribe log
// "subscribe <uri>" and "unsubscribe <uri>" at info.
func init() { fixtures["streams"] = runStreamsFixture }

type streamsFixture struct {
	modern bool
	wmu    sync.Mutex

	mu      sync.Mutex
	subs    map[string]int
	unsubs  map[string]int
	blocked map[string]bool
	listens map[string]bool // open listen ids, raw
	changed *sync.Cond
	asked   map[string]chan json.RawMessage
	nextAsk int
}

func runStreamsFixture() int {
	f := &streamsFixture{
		modern: os.Getenv("STREAMS_FIXTURE_ERA") == "modern",
		subs:   map[string]int{}, unsubs: map[string]int{}, blocked: map[string]bool{},
		listens: map[string]bool{}, asked: map[string]chan json.RawMessage{},
	}
	f.changed = sync.NewCond(&f.mu)
	lr := wire.NewReader(os.Stdin, 64<<20)
	for {
		line, err := lr.ReadLine()
		if err != nil {
			break
		}
		m, err := wire.Decode(line)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fixture: malformed line %q: %v\n", line, err)
			return 1 // as the Go SDK's server does
		}
		switch m.Kind {
		case wire.KindRequest:
			f.request(clone(m.ID), m.Method, clone(m.Params))
		case wire.KindNotification:
			f.notification(m.Method, clone(m.Params))
		case wire.KindResponse:
			id, _ := rawjson.StringValue(m.ID)
			f.mu.Lock()
			ch := f.asked[id]
			delete(f.asked, id)
			f.mu.Unlock()
			if ch != nil {
				ch <- clone(line)
			}
		}
	}
	return 0
}

func clone(b []byte) json.RawMessage { return append(json.RawMessage(nil), b...) }

func (f *streamsFixture) write(frame []byte) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	os.Stdout.Write(frame)
}

func (f *streamsFixture) result(id json.RawMessage, body string) {
	if f.modern {
		body = `{"resultType":"complete",` + body[1:]
		if body[len(body)-2] == ',' { // body was {}
			body = body[:len(body)-2] + "}"
		}
	}
	f.write(wire.AppendResponse(nil, id, json.RawMessage(body)))
}

func (f *streamsFixture) text(id json.RawMessage, text string) {
	f.result(id, `{"content":[{"type":"text","text":`+string(rawjson.AppendString(nil, text))+`}]}`)
}

func (f *streamsFixture) log(data string) {
	if f.modern {
		return // 2026 servers log only per request
	}
	params := `{"level":"info","logger":"fixture","data":` + string(rawjson.AppendString(nil, data)) + `}`
	f.write(wire.AppendNotification(nil, "notifications/message", json.RawMessage(params)))
}

const fixtureCaps = `{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{}}`

func (f *streamsFixture) request(id json.RawMessage, method string, params json.RawMessage) {
	switch {
	case method == "initialize" && !f.modern:
		f.result(id, `{"protocolVersion":"2025-11-25","capabilities":`+fixtureCaps+`,"serverInfo":{"name":"streams-fixture","version":"1.0.0"},"instructions":"fixture"}`)
	case method == "server/discover" && f.modern:
		f.result(id, `{"supportedVersions":["2026-07-28"],"capabilities":`+fixtureCaps+`,"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"streams-fixture","version":"1.0.0"}}}`)
	case method == "ping" && !f.modern:
		f.result(id, `{}`)
	case (method == "resources/subscribe" || method == "resources/unsubscribe") && !f.modern:
		var p struct{ URI string }
		_ = json.Unmarshal(params, &p)
		f.mu.Lock()
		if method == "resources/subscribe" {
			f.subs[p.URI]++
		} else {
			f.unsubs[p.URI]++
		}
		f.mu.Unlock()
		f.log(method[len("resources/"):] + " " + p.URI)
		f.result(id, `{}`)
	case method == "subscriptions/listen" && f.modern:
		filter, _ := rawjson.Member(params, "notifications")
		f.mu.Lock()
		f.listens[string(id)] = true
		f.changed.Broadcast()
		f.mu.Unlock()
		ack := `{"notifications":` + string(filter) + `,"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(id) + `}}`
		f.write(wire.AppendNotification(nil, "notifications/subscriptions/acknowledged", json.RawMessage(ack)))
	case method == "tools/call":
		if name, _ := rawjson.Member(params, "name"); string(name) == `"block"` {
			f.tool(id, params) // marked before the next line is read
			return
		}
		go f.tool(id, params)
	default:
		f.write(wire.AppendError(nil, id, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method))))
	}
}

func (f *streamsFixture) notification(method string, params json.RawMessage) {
	if method != "notifications/cancelled" {
		return
	}
	target, _ := rawjson.Member(params, "requestId")
	f.mu.Lock()
	blocked := f.blocked[string(target)]
	delete(f.blocked, string(target))
	if f.listens[string(target)] {
		delete(f.listens, string(target))
		f.changed.Broadcast()
	}
	f.mu.Unlock()
	if blocked {
		reason, ok := rawjson.Member(params, "reason")
		if !ok {
			reason = json.RawMessage("none")
		}
		f.log("cancelled " + string(target) + " reason " + string(reason))
	}
}

func (f *streamsFixture) tool(id json.RawMessage, params json.RawMessage) {
	var p struct {
		Name      string
		Arguments struct {
			Text   string
			Method string
			Params json.RawMessage
			N      int
			URI    string
			Steps  int
		}
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		f.write(wire.AppendError(nil, id, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "bad params"))))
		return
	}
	a := p.Arguments
	switch p.Name {
	case "echo":
		f.text(id, a.Text)
	case "notify":
		if !f.modern {
			f.write(wire.AppendNotification(nil, a.Method, a.Params))
		} else {
			f.mu.Lock()
			for l := range f.listens {
				meta, _ := rawjson.Member(a.Params, "_meta")
				meta, _ = rawjson.SetMember(meta, "io.modelcontextprotocol/subscriptionId", json.RawMessage(l))
				out, _ := rawjson.SetMember(a.Params, "_meta", meta)
				f.write(wire.AppendNotification(nil, a.Method, out))
			}
			f.mu.Unlock()
		}
		f.text(id, "ok")
	case "flood":
		subs := []string{""} // legacy: unsolicited
		if f.modern {
			f.mu.Lock()
			subs = slices.Collect(maps.Keys(f.listens))
			f.mu.Unlock()
		}
		for _, sub := range subs {
			meta := func(m string) string {
				if sub == "" {
					return m
				}
				if m == `{}` {
					return `{"io.modelcontextprotocol/subscriptionId":` + sub + `}`
				}
				return `{"io.modelcontextprotocol/subscriptionId":` + sub + `,` + m[1:]
			}
			var buf []byte
			for i := range a.N {
				params := `{"uri":` + string(rawjson.AppendString(nil, a.URI)) + `,"_meta":` + meta(`{"seq":`+strconv.Itoa(i)+`}`) + `}`
				buf = wire.AppendNotification(buf, "notifications/resources/updated", json.RawMessage(params))
				if len(buf) > 64<<10 {
					f.write(buf)
					buf = buf[:0]
				}
			}
			var marker json.RawMessage
			if sub != "" {
				marker = json.RawMessage(`{"_meta":` + meta(`{}`) + `}`)
			}
			buf = wire.AppendNotification(buf, "notifications/tools/list_changed", marker)
			f.write(buf)
		}
		f.text(id, "ok")
	case "ask":
		f.mu.Lock()
		f.nextAsk++
		qid := "q-" + strconv.Itoa(f.nextAsk)
		ch := make(chan json.RawMessage, 1)
		f.asked[qid] = ch
		f.mu.Unlock()
		f.write(wire.AppendRequest(nil, rawjson.AppendString(nil, qid), a.Method, a.Params))
		resp := <-ch
		m, _ := wire.Decode(resp)
		if m.HasError() {
			f.text(id, `{"error":`+string(m.Error)+`}`)
		} else {
			f.text(id, `{"result":`+string(m.Result)+`}`)
		}
	case "cancelasks":
		f.mu.Lock()
		for qid, ch := range f.asked {
			raw := rawjson.AppendString(nil, qid)
			f.write(wire.AppendNotification(nil, "notifications/cancelled", json.RawMessage(`{"requestId":`+string(raw)+`}`)))
			ch <- wire.AppendResponse(nil, raw, json.RawMessage(`{"cancelled":true}`))
			delete(f.asked, qid)
		}
		f.mu.Unlock()
		f.text(id, "ok")
	case "counts":
		f.mu.Lock()
		out, _ := json.Marshal(map[string]map[string]int{"subscribe": f.subs, "unsubscribe": f.unsubs})
		f.mu.Unlock()
		f.text(id, string(out))
	case "progress":
		for i := 1; i <= a.Steps; i++ {
			params := `{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":` + strconv.Itoa(i) + `,"total":` + strconv.Itoa(a.Steps) + `}`
			f.write(wire.AppendNotification(nil, "notifications/progress", json.RawMessage(params)))
		}
		f.text(id, "done")
	case "block":
		f.mu.Lock()
		f.blocked[string(id)] = true
		f.mu.Unlock()
		f.log("blocked " + string(id))
	case "waitlistens":
		f.mu.Lock()
		for len(f.listens) != a.N {
			f.changed.Wait()
		}
		f.mu.Unlock()
		f.text(id, "ok")
	case "endlisten":
		f.mu.Lock()
		for l := range f.listens {
			f.write(wire.AppendResponse(nil, json.RawMessage(l), json.RawMessage(`{"resultType":"complete"}`)))
			delete(f.listens, l)
		}
		f.changed.Broadcast()
		f.mu.Unlock()
		f.text(id, "ok")
	case "exit":
		os.Exit(3)
	default:
		f.write(wire.AppendError(nil, id, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown tool: %s", p.Name))))
	}
}
