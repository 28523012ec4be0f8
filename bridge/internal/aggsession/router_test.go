package aggsession

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// member is a scripted member session: the test reads what the router
// sent it and writes what it says.
type scripted struct {
	name    string
	stuck   chan struct{} // when set, Send waits for it to close
	sent    chan []byte
	sink    Sink // where what it says goes
	done    chan struct{}
	err     error
	endOnce sync.Once
}

func newScripted(name string, sink Sink) *scripted {
	return &scripted{name: name, sent: make(chan []byte, 64), sink: sink, done: make(chan struct{})}
}

func (s *scripted) TrySend(msg []byte) bool {
	if s.stuck != nil {
		return false
	}
	return s.Send(msg) == nil
}

func (s *scripted) Send(msg []byte) error {
	if s.stuck != nil {
		select {
		case <-s.stuck:
		case <-s.done:
		}
	}
	select {
	case <-s.done:
		return errors.New("closed")
	case s.sent <- append([]byte(nil), msg...):
		return nil
	}
}

// end ends the session with err.
func (s *scripted) end(err error) { s.endOnce.Do(func() { s.err = err; close(s.done) }) }

func (s *scripted) CloseSend()            { s.end(io.EOF) } // it has nothing more to say
func (s *scripted) Close() error          { s.end(errors.New("closed")); return nil }
func (s *scripted) Done() <-chan struct{} { return s.done }
func (s *scripted) Err() error            { return s.err }

// harness is a router over scripted members, driven by the test.
type harness struct {
	mu      sync.Mutex // members and refuse: the router opens sessions in the background
	t       *testing.T
	r       *Router
	members map[string]*scripted
	client  []wire.Message
	agg     *aggregate.Server
	refuse  map[string]error
}

func newHarness(t *testing.T, cfg aggregate.Config, first string) *harness {
	t.Helper()
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, members: map[string]*scripted{}, agg: aggregate.NewServer(cfg), refuse: map[string]error{}}
	open := func(_ context.Context, name string, _ []byte, sink Sink) (Member, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if err := h.refuse[name]; err != nil {
			return nil, err
		}
		m := newScripted(name, sink)
		h.members[name] = m
		return m, nil
	}
	deliver := func(msg []byte, _ <-chan struct{}) error {
		m, err := wire.Decode(msg)
		if err != nil {
			t.Errorf("the client got %q: %v", msg, err)
		}
		h.client = append(h.client, m)
		return nil
	}
	r, err := New(t.Context(), h.agg, func() *aggregate.Server { return h.agg }, open, []byte(first), deliver, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	t.Cleanup(r.Close)
	return h
}

// member is the scripted session of member name, the last opened.
func (h *harness) member(name string) *scripted {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.members[name]
}

// handle hands the router one message of the client.
func (h *harness) handle(msg string) {
	h.t.Helper()
	if err := h.r.handle([]byte(msg)); err != nil {
		h.t.Fatal(err)
	}
}

// sent is the next message the router sent member name.
func (h *harness) sent(name string) wire.Message {
	h.t.Helper()
	select {
	case raw := <-h.member(name).sent:
		m, err := wire.Decode(raw)
		if err != nil {
			h.t.Fatalf("%s got %q: %v", name, raw, err)
		}
		return m
	case <-time.After(10 * time.Second):
		h.t.Fatalf("%s got nothing within 10 s", name)
		return wire.Message{}
	}
}

// say makes member name say msg, which the router takes at once.
func (h *harness) say(name, msg string) {
	h.t.Helper()
	if err := h.member(name).sink([]byte(msg), nil); err != nil || h.r.failed != nil {
		h.t.Fatal(err, h.r.failed)
	}
}

// step has the router take the end of a member's session, or of an
// attempt to open one.
func (h *harness) step() {
	h.t.Helper()
	select {
	case in := <-h.r.incoming:
		h.r.ended(in)
	case <-time.After(10 * time.Second):
		h.t.Fatal("no member message within 10 s")
	}
}

// last is the client's last message.
func (h *harness) last() wire.Message {
	h.t.Helper()
	if len(h.client) == 0 {
		h.t.Fatal("the client got nothing")
	}
	return h.client[len(h.client)-1]
}

func respond(id json.RawMessage, result string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`

func TestInitializeAndListsMerge(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, initialize)
	h.handle(initialize)
	ia, ib := h.sent("a"), h.sent("b")
	if ia.Method != "initialize" || !strings.HasPrefix(string(ia.ID), `"`+internalPrefix) {
		t.Fatalf("a got %s %s; want initialize under an id of the aggregate's", ia.Method, ia.ID)
	}
	h.say("a", respond(ia.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"tasks":{}},"serverInfo":{"name":"a"},"instructions":"A."}`))
	if len(h.client) != 0 {
		t.Fatal("the client was answered before every member")
	}
	h.say("b", respond(ib.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"b"},"instructions":"B."}`))
	got := string(h.last().Result)
	for _, want := range []string{`"protocolVersion":"2025-11-25"`, `"tools":{"listChanged":true}`, `"resources":{"subscribe":true}`, `"instructions":"A.\n\nB."`, `"serverInfo":{"name":"all"`} {
		if !strings.Contains(got, want) {
			t.Errorf("initialize result %s lacks %s", got, want)
		}
	}
	if strings.Contains(got, "tasks") {
		t.Errorf("initialize result %s declares tasks, which the aggregate does not route", got)
	}

	h.handle(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if h.sent("a").Method != "notifications/initialized" || h.sent("b").Method != "notifications/initialized" {
		t.Fatal("notifications/initialized did not reach every member")
	}

	// tools/list: a's two pages and b's one, prefixed.
	h.handle(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	la, lb := h.sent("a"), h.sent("b")
	h.say("a", respond(la.ID, `{"tools":[{"name":"echo"}],"nextCursor":"p2"}`))
	la2 := h.sent("a")
	if !strings.Contains(string(la2.Params), `"cursor":"p2"`) {
		t.Fatalf("a's second page was asked with %s", la2.Params)
	}
	h.say("b", respond(lb.ID, `{"tools":[{"name":"echo"}]}`))
	h.say("a", respond(la2.ID, `{"tools":[{"name":"add"}]}`))
	res := h.last()
	if string(res.ID) != "1" || string(res.Result) != `{"tools":[{"name":"a_echo"},{"name":"a_add"},{"name":"b_echo"}]}` {
		t.Fatalf("tools/list = %s %s", res.ID, res.Result)
	}
}

func TestRequestsGoToTheirMember(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, initialize)
	h.handle(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"b_echo","arguments":{"x":1},"_meta":{"progressToken":7}}}`)
	m := h.sent("b")
	if string(m.ID) != `"c1"` || string(m.Params) != `{"name":"echo","arguments":{"x":1},"_meta":{"progressToken":7}}` {
		t.Fatalf("b got %s %s", m.ID, m.Params)
	}
	// Progress passes as it is; the cancellation reaches b alone.
	h.say("b", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`)
	if n := h.last(); n.Method != "notifications/progress" || !strings.Contains(string(n.Params), `"progressToken":7`) {
		t.Fatalf("the client got %s %s", n.Method, n.Params)
	}
	h.handle(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"mine"}}`)
	if c := h.sent("b"); c.Method != "notifications/cancelled" || !strings.Contains(string(c.Params), `"reason":"mine"`) {
		t.Fatalf("b got %s %s", c.Method, c.Params)
	}
	if len(h.member("a").sent) != 0 {
		t.Error("a got a message of a call that is b's")
	}
	h.say("b", `{"jsonrpc":"2.0","id":"c1","error":{"code":-32800,"message":"cancelled"}}`)
	if e := h.last(); string(e.ID) != `"c1"` || !strings.Contains(string(e.Error), "-32800") {
		t.Fatalf("the client got %s %s", e.ID, e.Error)
	}

	// A member's request reaches the client under the aggregate's id,
	// and the answer returns under the member's.
	h.say("a", `{"jsonrpc":"2.0","id":41,"method":"elicitation/create","params":{"message":"?"}}`)
	ask := h.last()
	if ask.Method != "elicitation/create" || string(ask.ID) == "41" {
		t.Fatalf("the client was asked %s under id %s", ask.Method, ask.ID)
	}
	h.handle(respond(ask.ID, `{"action":"accept"}`))
	if ans := h.sent("a"); string(ans.ID) != "41" || string(ans.Result) != `{"action":"accept"}` {
		t.Fatalf("a got %s %s", ans.ID, ans.Result)
	}
	h.say("b", `{"jsonrpc":"2.0","id":42,"method":"roots/list"}`)
	ask = h.last()
	h.handle(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"error":{"code":-1,"message":"no"}}`)
	if ans := h.sent("b"); string(ans.ID) != "42" || !strings.Contains(string(ans.Error), `"no"`) {
		t.Fatalf("b got %s %s", ans.ID, ans.Error)
	}

	// Unknown names, ids of the aggregate's own, ping, bad JSON.
	h.handle(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zz_echo"}}`)
	if e := h.last(); !strings.Contains(string(e.Error), "Unknown tool: zz_echo") {
		t.Errorf("an unknown tool: %s", e.Error)
	}
	h.handle(`{"jsonrpc":"2.0","id":"` + internalPrefix + `1","method":"ping"}`)
	if e := h.last(); !strings.Contains(string(e.Error), "-32600") {
		t.Errorf("a request with an id of the aggregate's: %s", e.Error)
	}
	h.handle(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if p := h.sent("a"); p.Method != "ping" || string(p.ID) != "3" {
		t.Errorf("ping went to a as %s %s; want the first member", p.Method, p.ID)
	}
	h.handle(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if e := h.last(); !strings.Contains(string(e.Error), "already in use") {
		t.Errorf("an id in use: %s", e.Error)
	}
	h.handle(`{not json`)
	if e := h.last(); !strings.Contains(string(e.Error), "-32700") {
		t.Errorf("bad JSON: %s", e.Error)
	}
}

// Under priority a name routes by the members' lists, read when needed;
// a name no member lists goes to the first member.
func TestPriorityReadsTheLists(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}, Conflicts: aggregate.Priority}, initialize)
	h.handle(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"only_b"}}`)
	la, lb := h.sent("a"), h.sent("b")
	if la.Method != "tools/list" || lb.Method != "tools/list" {
		t.Fatalf("the members were sent %s and %s; want their lists read", la.Method, lb.Method)
	}
	h.say("a", respond(la.ID, `{"tools":[{"name":"echo"}]}`))
	h.say("b", respond(lb.ID, `{"tools":[{"name":"echo"},{"name":"only_b"}]}`))
	if m := h.sent("b"); string(m.ID) != "1" || !strings.Contains(string(m.Params), `"name":"only_b"`) {
		t.Fatalf("b got %s %s", m.ID, m.Params)
	}
	h.handle(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`)
	if m := h.sent("a"); string(m.ID) != "2" {
		t.Fatalf("echo went to a as %s; want the first member's", m.ID)
	}
	h.handle(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nobody"}}`)
	if m := h.sent("a"); string(m.ID) != "3" || !strings.Contains(string(m.Params), `"nobody"`) {
		t.Fatalf("an unlisted name went to a as %s %s; want it as it is", m.ID, m.Params)
	}
	// A resource URI two members list: the first member's under
	// priority; resources/read routes by the resources and templates.
	h.handle(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"t://x/1"}}`)
	for _, name := range []string{"a", "b"} {
		for range 2 {
			m := h.sent(name)
			switch m.Method {
			case "resources/list":
				h.say(name, respond(m.ID, `{"resources":[]}`))
			case "resources/templates/list":
				h.say(name, respond(m.ID, `{"resourceTemplates":[{"uriTemplate":"t://`+map[string]string{"a": "y", "b": "x"}[name]+`/{id}"}]}`))
			}
		}
	}
	if m := h.sent("b"); string(m.ID) != "4" {
		t.Fatalf("t://x/1 went to b as %s; want b, whose template expands it", m.ID)
	}
}

// A member whose session ends fails its calls, naming it, and the client
// hears that the lists changed; the others answer; the member comes back
// at the next request, its session given the client's initialize again.
func TestAMemberLost(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, initialize)
	h.handle(initialize)
	ia, ib := h.sent("a"), h.sent("b")
	h.say("a", respond(ia.ID, `{"protocolVersion":"2025-11-25","capabilities":{}}`))
	h.say("b", respond(ib.ID, `{"protocolVersion":"2025-11-25","capabilities":{}}`))
	h.handle(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.sent("a")
	h.sent("b")
	h.handle(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a_slow"}}`)
	h.sent("a")
	old := h.member("a")
	old.end(io.EOF)
	h.step()
	var failed, changed bool
	for _, m := range h.client {
		failed = failed || string(m.ID) == "5" && strings.Contains(string(m.Error), `"member":"a"`)
		changed = changed || m.Method == "notifications/tools/list_changed"
	}
	if !failed || !changed {
		t.Fatalf("after a's session ended: the call failed naming a %v, list_changed %v; the client got %d messages", failed, changed, len(h.client))
	}
	h.handle(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"b_echo"}}`)
	if m := h.sent("b"); string(m.ID) != "6" {
		t.Fatal("b did not get its call")
	}
	// A request for a: refused at once, retryable, while a's session
	// opens again in the background; then a request goes through.
	h.handle(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a_echo"}}`)
	if e := h.last(); string(e.ID) != "7" || !strings.Contains(string(e.Error), `"retryable":true`) {
		t.Fatalf("a call while a reopens = %s %s; want a retryable refusal at once", e.ID, e.Error)
	}
	h.step() // the reopened session
	if h.member("a") == old {
		t.Fatal("a's session was not opened again")
	}
	if m := h.sent("a"); m.Method != "initialize" {
		t.Fatalf("a's new session got %s first; want the client's initialize", m.Method)
	}
	if h.sent("a").Method != "notifications/initialized" {
		t.Fatal("a's new session did not get initialized")
	}
	h.handle(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a_echo"}}`)
	if string(h.sent("a").ID) != "8" {
		t.Fatal("a's new session did not get the call")
	}

	// A member that refuses a new session: the next call says why.
	h.member("a").end(io.EOF)
	h.step()
	h.mu.Lock()
	h.refuse["a"] = errors.New("a is down")
	h.mu.Unlock()
	h.handle(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a_echo"}}`)
	h.step() // the attempt's end
	h.handle(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"a_echo"}}`)
	if e := h.last(); string(e.ID) != "10" || !strings.Contains(string(e.Error), "a is down") {
		t.Fatalf("a call to a refused member = %s %s", e.ID, e.Error)
	}
}

// A reload adds and removes members; the client hears of it.
func TestReconfigure(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, initialize)
	next := aggregate.Config{Name: "all", Members: []string{"b", "c"}}
	if err := next.Normalize(); err != nil {
		t.Fatal(err)
	}
	a := h.member("a")
	h.agg = aggregate.NewServer(next)
	h.r.reconfigure()
	select {
	case <-a.Done():
	default:
		t.Error("the removed member's session is open")
	}
	if n := h.last(); !strings.HasSuffix(n.Method, "list_changed") {
		t.Errorf("the client got %s; want list_changed for the removed member", n.Method)
	}
	before := len(h.client)
	told := func() bool { return len(h.client) > before && strings.HasSuffix(h.last().Method, "list_changed") }
	for i := 0; i < 5 && !told(); i++ {
		h.step() // the removed member's end, the added one's session
	}
	if !told() || h.member("c") == nil {
		t.Fatal("the client was not told that the lists changed once the added member's session opened")
	}
	h.handle(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"c_x"}}`)
	if m := h.sent("c"); string(m.ID) != "1" {
		t.Fatal("c did not get its call")
	}
}

// A 2026 listen goes to every member with the URIs that are its own; the
// client gets one acknowledgement, every event, and one end.
func TestListen(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, `{}`)
	h.handle(`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a://r"]}}}`)
	for _, name := range []string{"a", "b"} {
		for range 2 {
			m := h.sent(name)
			list := `{"resourceTemplates":[]}`
			if m.Method == "resources/list" {
				list = map[string]string{"a": `{"resources":[{"uri":"a://r"}]}`, "b": `{"resources":[]}`}[name]
			}
			h.say(name, respond(m.ID, list))
		}
	}
	la, lb := h.sent("a"), h.sent("b")
	if !strings.Contains(string(la.Params), `"resourceSubscriptions":["a://r"]`) || !strings.Contains(string(lb.Params), `"resourceSubscriptions":[]`) {
		t.Fatalf("the listens: a %s, b %s", la.Params, lb.Params)
	}
	ack := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9},"notifications":{}}}`
	h.say("a", ack)
	h.say("b", ack)
	acks := 0
	for _, m := range h.client {
		if m.Method == "notifications/subscriptions/acknowledged" {
			acks++
		}
	}
	if acks != 1 {
		t.Errorf("%d acknowledgements, want 1", acks)
	}
	h.say("b", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9}}}`)
	h.say("b", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9}}}`)
	if n := 0; true {
		for _, m := range h.client {
			if m.Method == "notifications/tools/list_changed" {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d list_changed events of the listen, want both", n)
		}
	}
	h.handle(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	if h.sent("a").Method != "notifications/cancelled" || h.sent("b").Method != "notifications/cancelled" {
		t.Fatal("the listen's cancellation did not reach every member")
	}
	before := len(h.client)
	h.say("a", respond(json.RawMessage("9"), `{"resultType":"complete"}`))
	if len(h.client) != before {
		t.Fatal("the listen ended for the client while b still listened")
	}
	h.say("b", respond(json.RawMessage("9"), `{"resultType":"complete"}`))
	if e := h.last(); string(e.ID) != "9" {
		t.Fatalf("the listen's end: %s %s", e.ID, e.Result)
	}

	// 2026 lists are stamped; a member's list_changed outside a listen is
	// told once until the client lists again.
	h.handle(`{"jsonrpc":"2.0","id":10,"method":"prompts/list","params":{` + meta + `}}`)
	pa, pb := h.sent("a"), h.sent("b")
	h.say("a", respond(pa.ID, `{"prompts":[{"name":"p"}]}`))
	h.say("b", `{"jsonrpc":"2.0","id":`+string(pb.ID)+`,"error":{"code":-32601,"message":"no prompts"}}`)
	if r := string(h.last().Result); !strings.Contains(r, `"resultType":"complete"`) || !strings.Contains(r, `"a_p"`) {
		t.Fatalf("a 2026 prompts/list = %s", r)
	}
}

// CloseSend ends the session once every member's has ended.
func TestCloseSend(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, initialize)
	h.r.closeSend()
	if h.r.finished() {
		t.Fatal("done before the members ended")
	}
	h.step()
	h.step()
	if !h.r.finished() {
		t.Fatal("not done after every member ended")
	}
}

// New fails when no member opens a session, and goes on without one that
// refuses.
func TestNewWithRefusals(t *testing.T) {
	cfg := aggregate.Config{Name: "all", Members: []string{"a", "b"}}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	agg := aggregate.NewServer(cfg)
	refuseAll := func(context.Context, string, []byte, Sink) (Member, error) { return nil, errors.New("refused") }
	discard := func([]byte, <-chan struct{}) error { return nil }
	if _, err := New(t.Context(), agg, func() *aggregate.Server { return agg }, refuseAll, nil, discard, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("New with every member refusing: no error")
	}
	var opened []*scripted
	some := func(_ context.Context, name string, _ []byte, sink Sink) (Member, error) {
		if name == "a" {
			return nil, errors.New("refused")
		}
		m := newScripted(name, sink)
		opened = append(opened, m)
		return m, nil
	}
	r, err := New(t.Context(), agg, func() *aggregate.Server { return agg }, some, nil, discard, slog.New(slog.DiscardHandler))
	if err != nil || len(opened) != 1 {
		t.Fatalf("New with a refusing = %v, %d sessions", err, len(opened))
	}
	r.Close()
	r.Close()
}

// A member session that takes no message does not stop the router: the
// client's requests to it are refused, retryable, once its queue is full,
// and the other member still gets its own.
func TestAStuckMemberDoesNotStopTheRouter(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a", "b"}}, initialize)
	h.member("a").stuck = make(chan struct{})
	defer close(h.member("a").stuck)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range memberQueue + 10 {
			h.r.handle([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"a_x"}}`))
		}
		h.r.handle([]byte(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"b_x"}}`))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the router waited for a member that takes nothing")
	}
	busy := 0
	for _, m := range h.client {
		if strings.Contains(string(m.Error), "too many messages are waiting") && strings.Contains(string(m.Error), `"retryable":true`) {
			busy++
		}
	}
	if busy < 9 {
		t.Errorf("%d requests refused as busy, want the ones beyond the queue", busy)
	}
	if m := h.sent("b"); string(m.ID) != `"b"` {
		t.Errorf("b got %s", m.ID)
	}
}

// Serve takes the client's messages and the members' until the client has
// closed its side and every member's session has ended; Stop ends it at
// once.
func TestServe(t *testing.T) {
	h := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a"}}, initialize)
	in, closed, stop := make(chan []byte, 1), make(chan struct{}), make(chan struct{})
	served := make(chan error, 1)
	client := Client{In: in, Closed: closed, Stop: stop, Reloaded: func() <-chan struct{} { return nil }}
	go func() { served <- h.r.Serve(client) }()
	in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a_x"}}`)
	if m := h.sent("a"); string(m.ID) != "1" {
		t.Fatalf("a got %s", m.ID)
	}
	close(closed) // the scripted member's session ends at its CloseSend
	if err := waitServe(t, served); err != nil {
		t.Fatalf("Serve after the client closed its side and the member's session ended = %v", err)
	}

	h2 := newHarness(t, aggregate.Config{Name: "all", Members: []string{"a"}}, initialize)
	stop2 := make(chan struct{})
	go func() {
		served <- h2.r.Serve(Client{In: make(chan []byte), Closed: make(chan struct{}), Stop: stop2, Reloaded: func() <-chan struct{} { return nil }})
	}()
	close(stop2)
	if err := waitServe(t, served); !errors.Is(err, ErrStopped) {
		t.Fatalf("Serve after Stop = %v, want ErrStopped", err)
	}
}

func waitServe(t *testing.T, served <-chan error) error {
	t.Helper()
	select {
	case err := <-served:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10 s")
		return nil
	}
}

// A member's message waits for a client that does not read, holding the
// router; Close still ends the session at once, and a member's message
// that waits for the router then is given up.
func TestCloseWhileASinkWaits(t *testing.T) {
	cfg := aggregate.Config{Name: "all", Members: []string{"a", "b"}}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	agg := aggregate.NewServer(cfg)
	sinks := map[string]Sink{}
	open := func(_ context.Context, name string, _ []byte, sink Sink) (Member, error) {
		sinks[name] = sink
		return newScripted(name, sink), nil
	}
	stuck := make(chan struct{})
	deliver := func(_ []byte, quit <-chan struct{}) error { // a client that does not read
		close(stuck)
		<-quit
		return errors.New("closed")
	}
	r, err := New(t.Context(), agg, func() *aggregate.Server { return agg }, open, nil, deliver, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	a := make(chan error, 1)
	go func() { a <- sinks["a"]([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`), nil) }()
	<-stuck
	b := make(chan error, 1)
	go func() { b <- sinks["b"]([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`), nil) }()
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the client")
	}
	if err := <-a; err != nil {
		t.Errorf("a's message, taken before Close: %v", err)
	}
	select {
	case err := <-b:
		if err != nil && !errors.Is(err, errSinkClosed) { // taken before Close took the lock, or given up
			t.Errorf("b's message after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b's message waited past Close")
	}
}
