// Package aggsession is a client's session with an aggregated server
// (docs/aggregation.md, "Sessions"): one session of the client's with each
// member, opened with the client's own first message, and a Router that
// moves JSON-RPC messages between the client and them. A request about a
// tool, prompt or resource goes to its member under the member's own name
// and the client's own id; a list, initialize, server/discover or
// logging/setLevel goes to every member, and the answers are merged; a
// member's request to the client (elicitation, sampling, roots) reaches
// the client under an id of the aggregate's, and the answer returns to
// the member. Every member session is a session of the bridge's, so each
// request passes the door as the member's.
//
// A Router handles one message at a time, under its lock: the client's in
// Serve's goroutine, each member's in the goroutine that delivers it (the
// member session's own writer, through the Sink the router gave it), so
// that a member's answer goes to the client with no goroutine between.
package aggsession

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Member is the client's session with one member (package bridge's
// Session). Its messages come through the Sink it was opened with.
type Member interface {
	// TrySend hands msg over if the session takes it at once.
	TrySend(msg []byte) bool
	Send(msg []byte) error
	CloseSend()
	Close() error
	Done() <-chan struct{}
	// Err is why the session ended, once Done is closed (io.EOF: it
	// ended as the client asked).
	Err() error
}

// Sink takes a member session's messages to the client, one at a time,
// in order; it gives up when stop (the member session's Close) closes.
type Sink func(msg []byte, stop <-chan struct{}) error

// Opener opens the client's session with member, for a client whose
// first message is first; the session hands its messages to sink.
type Opener func(ctx context.Context, member string, first []byte, sink Sink) (Member, error)

// fromMember is the end of a member's session (err set), or of an attempt
// to open one (opened set), for Serve.
type fromMember struct {
	m      *member
	l      *link  // with opened: the new session's link
	s      Member // the session
	err    error
	opened bool // the end of an attempt to open the member's session again (err: why it failed)
}

// link is one of a member's sessions, from before it is opened: its
// messages come through it once the router has attached it.
type link struct {
	m     *member
	s     Member
	ready chan struct{} // closed when attached: s is set
}

// maxMemberPages bounds the pages read of one member's list.
const maxMemberPages = 64

// internalPrefix starts the ids of the aggregate's own requests to its
// members (the pieces of a fan-out); a client request with such an id is
// refused.
const internalPrefix = "mcpbridge-aggregate-"

// Router moves one client's messages between it and the members.
type Router struct {
	ctx     context.Context
	name    string
	current func() *aggregate.Server // the aggregate in force: a reload replaces it
	open    Opener
	deliver func(msg []byte, quit <-chan struct{}) error
	log     *slog.Logger

	first   []byte // the client's first message, which opens a member's session
	initMsg []byte // the client's initialize, sent again to a member opened later
	inited  bool   // the client sent notifications/initialized

	mu       chan struct{} // the lock of what follows: a channel, so that a member's Sink can give up waiting
	members  []*member
	incoming chan fromMember // members' session ends, for Serve
	wake     chan struct{}   // Serve looks at failed and finished again
	failed   error           // a member's message could not be delivered to the client
	quit     chan struct{}   // closed by Close: the watchers and Sinks stop
	quitOnce sync.Once

	seq     int64
	calls   map[string]*member // the client's requests in flight, by id, and their member
	fans    map[string]*part   // the aggregate's requests to members, by id
	asks    map[string]asked   // members' requests to the client, by the aggregate's id
	listens map[string]*listen // the client's subscriptions/listen, by id
	views   [4]*aggregate.View // the session's last view of each kind
	changed [4]bool            // a list_changed went to the client since its last list
	queued  []queuedRequest    // requests waiting for a view
	reading [4]bool            // a view being read for them
	meta    json.RawMessage    // the _meta of the client's last 2026 request
	ending  bool               // CloseSend: end when every member has
}

type member struct {
	name    string
	opening bool // a reconnect is on its way
	s       Member
	out     chan []byte  // what the router sends it, in order, for its sender
	pending atomic.Int32 // messages in out or being sent by the sender
	down    error        // why it has no session
}

// memberQueue bounds the messages waiting for a member session's Send.
// The router never waits for a member: a member session that does not
// take its messages (its own tunnel waiting for the client to read)
// would otherwise stop the router, and with it the member's answers.
const memberQueue = 128

// errBusy is why a message was not sent to a member whose queue is full.
var errBusy = errors.New("too many messages are waiting for it")

// attach gives m the session s of l: its messages come to the router
// through l, a goroutine sends m's messages to it, and another tells Serve
// when it ends.
func (r *Router) attach(m *member, l *link, s Member) {
	m.s, m.down, m.out = s, nil, make(chan []byte, memberQueue)
	l.s = s
	close(l.ready)
	go r.watch(m, s)
	go func(out <-chan []byte, pending *atomic.Int32) {
		for msg := range out {
			if msg == nil { // the client's CloseSend, after what it sent
				s.CloseSend()
			} else if s.Send(msg) != nil {
				for range out { // the session ended: pump reports it
				}
				return
			}
			pending.Add(-1)
		}
	}(m.out, &m.pending)
}

// detach ends m's session: its sender stops once what is queued is
// given up.
func (m *member) detach() {
	close(m.out)
	m.s.Close()
	m.s = nil
}

// asked is a member's request to the client: its member and its own id.
type asked struct {
	m  *member
	id json.RawMessage
}

// listen is a client's subscriptions/listen, open on several members.
type listen struct {
	on     map[*member]bool
	acked  bool
	filter json.RawMessage // the client's notifications filter
}

type queuedRequest struct {
	msg     wire.Message
	fetched bool
}

// New opens the client's session with every member of agg, for a client
// whose first message is first; members that refuse are down, and the
// session goes on with the others unless every one refused. deliver hands
// a message to the client.
func New(ctx context.Context, agg *aggregate.Server, current func() *aggregate.Server, open Opener, first []byte,
	deliver func(msg []byte, quit <-chan struct{}) error, log *slog.Logger,
) (*Router, error) {
	r := &Router{ctx: ctx, name: agg.Name(), current: current, open: open, deliver: deliver, log: log,
		first: bytes.Clone(first), mu: make(chan struct{}, 1), incoming: make(chan fromMember), wake: make(chan struct{}, 1),
		quit:  make(chan struct{}),
		calls: map[string]*member{}, fans: map[string]*part{}, asks: map[string]asked{}, listens: map[string]*listen{},
	}
	var firstErr error
	r.mu <- struct{}{} // a member attached first may speak before the others are
	for _, name := range agg.Config().Members {
		m := r.connect(name)
		if m.down != nil && firstErr == nil {
			firstErr = m.down
		}
	}
	up := len(r.up())
	<-r.mu
	if firstErr != nil && up == 0 {
		r.Close()
		return nil, firstErr
	}
	return r, nil
}

// connect opens the client's session with member name and starts
// reading it.
func (r *Router) connect(name string) *member {
	m := &member{name: name}
	r.members = append(r.members, m)
	l := r.newLink(m)
	s, err := r.open(r.ctx, name, r.first, r.sink(l))
	if err != nil {
		m.down = err
		r.log.Debug("mcpbridge: an aggregate's member refused the session", "server", r.name, "member", name, "error", err)
		return m
	}
	r.attach(m, l, s)
	return m
}

func (r *Router) newLink(m *member) *link { return &link{m: m, ready: make(chan struct{})} }

// sink is the Sink of l's session: each message is handled at once, in
// the member session's goroutine, under the router's lock. A message that
// comes before the session is attached waits for it.
func (r *Router) sink(l *link) Sink {
	return func(msg []byte, stop <-chan struct{}) error {
		select {
		case <-l.ready:
		case <-stop:
			return errSinkClosed
		case <-r.quit:
			return errSinkClosed
		}
		select {
		case r.mu <- struct{}{}:
		case <-stop:
			return errSinkClosed
		case <-r.quit:
			return errSinkClosed
		}
		defer func() { <-r.mu }()
		if l.s != l.m.s {
			return nil // a session the member no longer has
		}
		if err := r.handleMember(l.m, msg); err != nil && r.failed == nil {
			r.failed = err
			select {
			case r.wake <- struct{}{}:
			default:
			}
		}
		return nil
	}
}

// errSinkClosed is a Sink's answer once its session or the router is
// closed.
var errSinkClosed = errors.New("aggsession: the session is closed")

// watch tells Serve when m's session s ends.
func (r *Router) watch(m *member, s Member) {
	select {
	case <-s.Done():
	case <-r.quit:
		return
	}
	select {
	case r.incoming <- fromMember{m: m, s: s, err: s.Err()}:
	case <-r.quit:
	}
}

// up are the members with a session.
func (r *Router) up() []*member {
	var out []*member
	for _, m := range r.members {
		if m.s != nil {
			out = append(out, m)
		}
	}
	return out
}

func (r *Router) byName(name string) *member {
	for _, m := range r.members {
		if m.name == name {
			return m
		}
	}
	return nil
}

// Client is the client's side of a session, as its owner (package bridge's
// Session) hands it to Serve.
type Client struct {
	In       <-chan []byte          // the client's messages
	Closed   <-chan struct{}        // closed at the client's CloseSend
	Stop     <-chan struct{}        // closed when the session is closed at once
	Reloaded func() <-chan struct{} // closed at the next reload of the bridge
}

// ErrStopped is Serve's outcome when Client.Stop closed.
var ErrStopped = errors.New("aggsession: the session was closed")

// Serve serves the session until the client has closed its side and every
// member session has ended (nil), Stop closes (ErrStopped), the session's
// context ends (its error), or the client cannot be delivered to. It ends
// every member session before it returns.
func (r *Router) Serve(c Client) error {
	defer r.Close()
	inClosed, reloads := c.Closed, c.Reloaded()
	for {
		var (
			msg []byte
			in  fromMember
		)
		step := 0
		select {
		case msg = <-c.In:
			step = 1
		case <-inClosed:
			inClosed, step = nil, 2
		case in = <-r.incoming:
			step = 3
		case <-reloads:
			reloads, step = c.Reloaded(), 4
		case <-r.wake:
		case <-c.Stop:
			return ErrStopped
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
		r.mu <- struct{}{}
		var err error
		switch step {
		case 1:
			err = r.handle(msg)
		case 2:
			for queued := true; queued && err == nil; { // what came before CloseSend first
				select {
				case msg := <-c.In:
					err = r.handle(msg)
				default:
					queued = false
				}
			}
			r.closeSend()
		case 3:
			r.ended(in)
		case 4:
			r.reconfigure()
		}
		err = cmp.Or(err, r.failed)
		finished := r.finished()
		<-r.mu
		if err != nil {
			return err
		}
		if finished {
			return nil
		}
	}
}

// Close ends every member session at once.
func (r *Router) Close() {
	closed := false
	r.quitOnce.Do(func() { close(r.quit); closed = true })
	if !closed {
		return
	}
	r.mu <- struct{}{} // a Sink holding it gives up its delivery at quit
	defer func() { <-r.mu }()
	for _, m := range r.members {
		if m.s != nil {
			m.detach()
		}
	}
}

// closeSend says the client sends nothing more: every member session is
// told so, and Done reports true once all have ended.
func (r *Router) closeSend() {
	r.ending = true
	for _, m := range r.up() {
		if m.pending.Load() == 0 || m.enqueue(nil) != nil { // after what is queued
			m.s.CloseSend()
		}
	}
}

// finished reports whether the session is over: the client closed its side
// and every member session has ended.
func (r *Router) finished() bool { return r.ending && len(r.up()) == 0 }

// send hands msg (a frame with its newline) to the client.
func (r *Router) send(frame []byte) error {
	return r.deliver(bytes.TrimSuffix(frame, []byte("\n")), r.quit)
}

func (r *Router) respond(id, result json.RawMessage) error {
	return r.send(wire.AppendResponse(nil, id, result))
}

func (r *Router) fail(id json.RawMessage, e *jsonrpc.Error) error {
	we := &wire.Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		we.Data, _ = json.Marshal(e.Data)
	}
	return r.send(wire.AppendError(nil, id, we))
}

// toMember sends one message to a member; a member whose session has
// ended is down.
func (r *Router) toMember(m *member, frame []byte) error {
	if m.s == nil {
		return m.down
	}
	msg := bytes.TrimSuffix(frame, []byte("\n"))
	// At once when nothing waits before it (the common case: no goroutine
	// between the router and the member), else after what waits.
	if m.pending.Load() == 0 && m.s.TrySend(msg) {
		return nil
	}
	return m.enqueue(msg)
}

// enqueue queues msg (nil: CloseSend) for m's sender, or says it is busy.
func (m *member) enqueue(msg []byte) error {
	m.pending.Add(1)
	select {
	case m.out <- msg:
		return nil
	default:
		m.pending.Add(-1)
		return errBusy
	}
}

// nextID is a fresh id of the aggregate's.
func (r *Router) nextID() json.RawMessage {
	r.seq++
	return rawjson.AppendString(nil, internalPrefix+strconv.FormatInt(r.seq, 10))
}

// handle takes one message of the client.
func (r *Router) handle(raw []byte) error {
	m, err := wire.Decode(raw)
	if err != nil {
		return r.send(wire.AppendError(nil, nil, &wire.Error{Code: jsonrpc.CodeParseError, Message: "Parse error: " + err.Error()}))
	}
	if m.Dirty {
		if m.Params, err = rawjson.Compact(m.Params); err != nil && m.Params != nil {
			return r.fail(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params"))
		}
		m.Result, _ = rawjson.Compact(m.Result)
		m.Error, _ = rawjson.Compact(m.Error)
	}
	switch m.Kind {
	case wire.KindRequest:
		return r.request(m, false)
	case wire.KindNotification:
		return r.notification(m)
	case wire.KindResponse:
		return r.answer(m)
	}
	return nil
}

// request routes one request of the client.
func (r *Router) request(m wire.Message, fetched bool) error {
	id := string(m.ID)
	if strings.HasPrefix(id, `"`+internalPrefix) {
		return r.fail(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: ids starting %q are the aggregate's own", internalPrefix))
	}
	if _, busy := r.calls[id]; busy {
		return r.fail(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: id %s is already in use by a request in flight", m.ID))
	}
	isModern := modern(m.Params)
	if isModern {
		r.meta, _ = rawjson.Member(m.Params, "_meta")
	}
	switch m.Method {
	case "initialize":
		r.initMsg = wire.AppendRequest(nil, m.ID, m.Method, m.Params)
		return r.fanOut(m)
	case "server/discover", "logging/setLevel":
		return r.fanOut(m)
	case "subscriptions/listen":
		return r.listen(m, fetched)
	}
	if kind, ok := aggregate.KindOfList(m.Method); ok {
		return r.list(m, kind)
	}
	name, kind, ok := target(m.Method, m.Params)
	if !ok || isModern && (m.Method == "resources/subscribe" || m.Method == "resources/unsubscribe") {
		// Not one the aggregate routes (ping, a method of an extension,
		// one of the other era): the first member answers it as it is.
		return r.toFirst(m)
	}
	t, found, missing := r.route(kind, name)
	if !found {
		if !fetched && len(missing) > 0 {
			r.queued = append(r.queued, queuedRequest{msg: m, fetched: true})
			for _, k := range missing {
				if err := r.fetch(k); err != nil {
					return err
				}
			}
			return nil
		}
		if r.config().Conflicts == aggregate.Priority {
			return r.toFirst(m) // no member lists it: the first says so in its own words
		}
		return r.fail(m.ID, aggregate.Unknown(kind, name))
	}
	mem := r.byName(t.Member)
	if mem == nil || mem.s == nil {
		if mem == nil {
			return r.fail(m.ID, memberDown(t.Member, nil))
		}
		if !r.reconnect(mem) {
			return r.fail(m.ID, memberDown(t.Member, mem.down))
		}
	}
	params, err := aggregate.Rename(m.Method, m.Params, t.Name)
	if err != nil {
		return r.fail(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err))
	}
	r.calls[id] = mem
	if err := r.toMember(mem, wire.AppendRequest(nil, m.ID, m.Method, params)); err != nil {
		delete(r.calls, id)
		return r.fail(m.ID, memberDown(mem.name, err))
	}
	return nil
}

// toFirst forwards a request as it is to the first member with a session.
func (r *Router) toFirst(m wire.Message) error {
	for _, mem := range r.members {
		if mem.s == nil && !r.reconnect(mem) {
			continue
		}
		r.calls[string(m.ID)] = mem
		if r.toMember(mem, wire.AppendRequest(nil, m.ID, m.Method, m.Params)) == nil {
			return nil
		}
		delete(r.calls, string(m.ID))
	}
	return r.fail(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "No member of the aggregate %s is available", r.name))
}

// target is what a request names: a tool's or prompt's name, or a URI.
func target(method string, params json.RawMessage) (string, aggregate.Kind, bool) {
	member := func(obj json.RawMessage, key string) string {
		raw, _ := rawjson.Member(obj, key)
		s, _ := rawjson.StringValue(raw)
		return s
	}
	switch method {
	case "tools/call":
		return member(params, "name"), aggregate.Tools, true
	case "prompts/get":
		return member(params, "name"), aggregate.Prompts, true
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return member(params, "uri"), aggregate.Resources, true
	case "completion/complete":
		ref, _ := rawjson.Member(params, "ref")
		if member(ref, "type") == "ref/resource" {
			return member(ref, "uri"), aggregate.ResourceTemplates, true
		}
		return member(ref, "name"), aggregate.Prompts, true
	}
	return "", 0, false
}

// route is where a name of kind leads; missing are the kinds whose view
// the session has not read yet, which might know it.
func (r *Router) route(kind aggregate.Kind, name string) (t aggregate.Target, found bool, missing []aggregate.Kind) {
	t, found, kinds := r.config().Resolve(kind, name, func(k aggregate.Kind) *aggregate.View { return r.views[k] })
	for _, k := range kinds {
		if r.views[k] == nil {
			missing = append(missing, k)
		}
	}
	return t, found, missing
}

// memberDown is the error of a request whose member has no session (why:
// its reason, nil when it is not in the aggregate any more) or is busy.
func memberDown(name string, why error) *jsonrpc.Error {
	reason := "it is not in the aggregate any more"
	if why != nil {
		reason = why.Error()
	}
	return jsonrpc.WithData(jsonrpc.CodeInternalError, fmt.Sprintf("The member server %q is unavailable: %s", name, reason),
		map[string]any{"member": name, "retryable": true})
}

// config is the aggregate's configuration in force.
func (r *Router) config() *aggregate.Config {
	if agg := r.current(); agg != nil {
		return agg.Config()
	}
	return &aggregate.Config{Name: r.name}
}

// reconnect starts opening a session again with a member whose session
// ended, in the background: a member that restarts does not hold the
// router up. It reports whether the member has a session now (false: the
// request that needs it fails, retryable, with why it is down).
func (r *Router) reconnect(m *member) bool {
	if m.s != nil {
		return true
	}
	if m.opening {
		return false
	}
	m.opening = true
	go func() {
		l := r.newLink(m)
		s, err := r.open(r.ctx, m.name, r.first, r.sink(l))
		select {
		case r.incoming <- fromMember{m: m, l: l, s: s, err: err, opened: true}:
		case <-r.quit:
			if s != nil {
				s.Close()
			}
		}
	}()
	return false
}

// reopened takes the end of a member's reconnect: its new session, given
// the client's initialize again, or why it is still down.
func (r *Router) reopened(in fromMember) {
	m := in.m
	m.opening = false
	switch {
	case in.err != nil:
		m.down = in.err
	case m.s != nil || !contains(r.config().Members, m.name) || r.byName(m.name) != m:
		in.s.Close() // not wanted any more
	default:
		r.attach(m, in.l, in.s)
		r.reconnectInit(m)
		if !r.ending {
			r.listsChanged() // the member's items are back
		}
	}
}

// notification takes one notification of the client.
func (r *Router) notification(m wire.Message) error {
	switch m.Method {
	case "notifications/cancelled":
		raw, _ := rawjson.Member(m.Params, "requestId")
		if l, ok := r.listens[string(raw)]; ok {
			for mem := range l.on {
				r.toMember(mem, wire.AppendNotification(nil, m.Method, m.Params))
			}
			return nil
		}
		if mem, ok := r.calls[string(raw)]; ok {
			r.toMember(mem, wire.AppendNotification(nil, m.Method, m.Params))
		}
		return nil
	case "notifications/initialized":
		r.inited = true
	}
	for _, mem := range r.up() {
		r.toMember(mem, wire.AppendNotification(nil, m.Method, m.Params))
	}
	return nil
}

// answer takes the client's answer to a member's request.
func (r *Router) answer(m wire.Message) error {
	a, ok := r.asks[string(m.ID)]
	if !ok {
		return nil // not one the aggregate asked: nothing waits for it
	}
	delete(r.asks, string(m.ID))
	var frame []byte
	if m.HasError() {
		frame = append(append(append(append([]byte(`{"jsonrpc":"2.0","id":`), a.id...), `,"error":`...), m.Error...), '}')
	} else {
		frame = wire.AppendResponse(nil, a.id, m.Result)
	}
	r.toMember(a.m, frame)
	return nil
}

// ended takes the end of a member's session, or of an attempt to open one.
func (r *Router) ended(in fromMember) {
	if in.opened {
		r.reopened(in)
		return
	}
	if in.s != in.m.s {
		return // a session the member no longer has
	}
	err := in.err
	if err == nil || errors.Is(err, io.EOF) {
		err = errors.New("its session ended")
	}
	r.lost(in.m, err)
}

// handleMember takes one message of a member's.
func (r *Router) handleMember(mem *member, msg []byte) error {
	m, err := wire.Decode(msg)
	if err != nil {
		return nil // the bridge's own sessions send valid JSON-RPC
	}
	switch m.Kind {
	case wire.KindResponse:
		return r.memberResponse(mem, m, msg)
	case wire.KindRequest:
		id := rawjson.AppendString(nil, fmt.Sprintf("%s%d", internalPrefix, r.seq+1))
		r.seq++
		r.asks[string(id)] = asked{m: mem, id: m.ID}
		return r.send(wire.AppendRequest(nil, id, m.Method, m.Params))
	}
	return r.memberNotification(mem, m)
}

// lost marks a member down: its requests in flight fail, and the client
// hears that the lists changed.
func (r *Router) lost(m *member, err error) {
	if m.s == nil {
		return
	}
	m.detach()
	m.down = err
	r.log.Info("mcpbridge: an aggregate's member session ended", "server", r.name, "member", m.name, "error", err)
	for id, mem := range r.calls {
		if mem == m {
			delete(r.calls, id)
			r.fail(json.RawMessage(id), memberDown(m.name, m.down))
		}
	}
	for id, p := range r.fans {
		if p.m == m {
			delete(r.fans, id)
			p.fan.done(r, p.i, nil, m.down)
		}
	}
	for id, l := range r.listens {
		if l.on[m] {
			delete(l.on, m)
			if len(l.on) == 0 {
				delete(r.listens, id)
				r.respond(json.RawMessage(id), json.RawMessage(`{"resultType":"complete"}`))
			}
		}
	}
	for id, a := range r.asks {
		if a.m == m {
			delete(r.asks, id)
		}
	}
	if !r.ending {
		r.listsChanged()
	}
}

// listsChanged tells the client that every list changed: a member came
// or went. (A member's own list_changed goes to the client once until it
// lists again: memberNotification.)
func (r *Router) listsChanged() {
	for _, k := range []aggregate.Kind{aggregate.Tools, aggregate.Prompts, aggregate.Resources} {
		r.views[k] = nil
		if k == aggregate.Resources {
			r.views[aggregate.ResourceTemplates] = nil
		}
		r.changed[k] = true
		if r.meta == nil { // a 2025 client: unsolicited
			r.send(wire.AppendNotification(nil, listChanged[k], nil))
			continue
		}
		for id, l := range r.listens { // a 2026 client: on each listen that asked
			if l.wants(k) {
				params := append(append([]byte(`{"_meta":{"`+protocol.MetaSubscriptionID+`":`), id...), "}}"...)
				r.send(wire.AppendNotification(nil, listChanged[k], params))
			}
		}
	}
}

// listFilters are the members of a listen's filter that ask for each
// kind's list_changed.
var listFilters = map[aggregate.Kind]string{
	aggregate.Tools: "toolsListChanged", aggregate.Prompts: "promptsListChanged", aggregate.Resources: "resourcesListChanged",
}

// wants reports whether the listen asked for kind's list_changed.
func (l *listen) wants(k aggregate.Kind) bool {
	raw, _ := rawjson.Member(l.filter, listFilters[k])
	return string(raw) == "true"
}

var listChanged = map[aggregate.Kind]string{
	aggregate.Tools:     "notifications/tools/list_changed",
	aggregate.Prompts:   "notifications/prompts/list_changed",
	aggregate.Resources: "notifications/resources/list_changed",
}

// memberResponse takes a member's response (msg, decoded as m): to one of
// the aggregate's own requests, or to the client's, which goes to the
// client as it is.
func (r *Router) memberResponse(mem *member, m wire.Message, msg []byte) error {
	if p, ok := r.fans[string(m.ID)]; ok {
		delete(r.fans, string(m.ID))
		if p.discard {
			return nil
		}
		if m.HasError() {
			err := error(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"))
			if e, ok := wire.DecodeError(m.Error); ok {
				je := &jsonrpc.Error{Code: e.Code, Message: e.Message}
				if e.Data != nil {
					je.Data = e.Data
				}
				err = je
			}
			return p.fan.done(r, p.i, nil, err)
		}
		return p.fan.result(r, p, m.Result)
	}
	if l, ok := r.listens[string(m.ID)]; ok {
		delete(l.on, mem)
		if len(l.on) > 0 {
			return nil // the others still listen
		}
		delete(r.listens, string(m.ID))
	}
	delete(r.calls, string(m.ID))
	return r.send(msg) // under the client's own id: as it is
}

// memberNotification takes a member's notification.
func (r *Router) memberNotification(mem *member, m wire.Message) error {
	switch m.Method {
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		var kind aggregate.Kind
		for k, method := range listChanged {
			if method == m.Method {
				kind = k
			}
		}
		r.views[kind] = nil
		if kind == aggregate.Resources {
			r.views[aggregate.ResourceTemplates] = nil
		}
		if meta, ok := rawjson.Member(m.Params, "_meta"); ok {
			if _, onListen := rawjson.Member(meta, protocol.MetaSubscriptionID); onListen {
				break // an event of a listen: each is the listen's own
			}
		}
		if r.changed[kind] {
			return nil // one already told, and not listed since
		}
		r.changed[kind] = true
	case "notifications/subscriptions/acknowledged":
		meta, _ := rawjson.Member(m.Params, "_meta")
		id, _ := rawjson.Member(meta, protocol.MetaSubscriptionID)
		if l, ok := r.listens[string(id)]; ok {
			if l.acked {
				return nil
			}
			l.acked = true
		}
	case "notifications/resources/updated":
		raw, _ := rawjson.Member(m.Params, "uri")
		uri, _ := rawjson.StringValue(raw)
		if v := r.views[aggregate.Resources]; v != nil {
			if name, ok := v.NameOf(mem.name, uri); ok && name != uri {
				m.Params, _ = rawjson.SetMember(m.Params, "uri", rawjson.AppendString(nil, name))
			}
		}
	case "notifications/cancelled":
		// A member cancels its own request to the client: the client knows
		// it under the aggregate's id.
		raw, _ := rawjson.Member(m.Params, "requestId")
		for id, a := range r.asks {
			if a.m == mem && bytes.Equal(a.id, raw) {
				delete(r.asks, id)
				m.Params, _ = rawjson.SetMember(m.Params, "requestId", json.RawMessage(id))
				break
			}
		}
	}
	return r.send(wire.AppendNotification(nil, m.Method, m.Params))
}

// reconfigure follows a reload: members added to the aggregate open a
// session, members removed end theirs, and the client hears that the
// lists changed.
func (r *Router) reconfigure() {
	cfg := r.config()
	changed := false
	for _, m := range r.members {
		if m.s != nil && !contains(cfg.Members, m.name) {
			r.lost(m, errors.New("it was removed from the aggregate"))
			changed = true
		}
	}
	var kept []*member
	for _, m := range r.members {
		if contains(cfg.Members, m.name) {
			kept = append(kept, m)
		}
	}
	r.members = kept
	for _, name := range cfg.Members {
		if r.byName(name) == nil {
			// Opened in the background: the client hears that the lists
			// changed once its session is there (reopened).
			m := &member{name: name, down: errors.New("its session is opening")}
			r.members = append(r.members, m)
			r.reconnect(m)
		}
	}
	if changed {
		r.listsChanged()
	}
}

// reconnectInit replays the client's initialize on a member's new session.
func (r *Router) reconnectInit(m *member) {
	if r.initMsg == nil {
		return
	}
	init, _ := wire.Decode(bytes.TrimSuffix(r.initMsg, []byte("\n")))
	id := r.nextID()
	r.fans[string(id)] = &part{discard: true}
	r.toMember(m, wire.AppendRequest(nil, id, init.Method, init.Params))
	if r.inited {
		r.toMember(m, wire.AppendNotification(nil, "notifications/initialized", nil))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
