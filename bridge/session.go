package bridge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/aggsession"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/tunnel"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the session core (docs/architecture.md, "Sessions"): the
// one in-process way for a client's JSON-RPC session to reach a fronted
// server, whichever door it came through. The Connect RPC and the HTTP
// door's MCP endpoint are adapters over Open: they move messages between
// their transport and a Session, and decide nothing about them. A Session
// is a tunnel (package internal/tunnel) on the child the server's policy
// gives it; each of its requests passes the door once.

// sessionMethod names a session for the door, the audit and the errors:
// the Connect RPC's, whose semantics every door's session has.
const sessionMethod = "Connect"

// sessionInbox bounds the client's messages a session has been handed
// and not yet taken: Send returns at once while there is room, so that
// callers that write at once do not wait on one another.
const sessionInbox = 64

// errSessionClosed is what Send and Recv return once Close ended the
// session.
var errSessionClosed = errors.New("bridge: the session is closed")

// Session is one client's JSON-RPC session with a fronted server, opened
// by Open: the client's messages go in with Send, the messages for the
// client come out of Recv, in order. It is safe for one goroutine sending
// and another receiving at once.
type Session struct {
	s      *Service
	name   string             // the server's or aggregate's name
	srv    *pool.Server       // nil on an aggregate
	router *aggsession.Router // on an aggregate: the member sessions
	ctx    context.Context    // the caller's, watched for revocation and drained by Shutdown
	end    func()             // releases ctx
	c      *pool.Process      // the child, once acquired
	probes bool               // leading server/discover requests are answered here (legacyProbe)

	in        chan []byte   // the client's messages, for run
	inClosed  chan struct{} // CloseSend
	out       chan []byte   // the messages for the client, handed to Recv one at a time
	stop      chan struct{} // Close
	done      chan struct{} // run returned; err is set
	err       error
	sink      aggsession.Sink // a member session's: its messages go to the router, not out
	closeSend sync.Once
	closeOnce sync.Once
}

// Open opens a session of the caller of ctx with the server named server
// ("" names the only one), for a client whose first message is first.
// ctx is the caller's: a gRPC handler's context, or one a door built for
// its request (httpCaller), carrying the caller's principal, its
// metadata (mcp-session, trace context, a session server's
// env_from_metadata) and its address; the session lasts until ctx ends,
// Close, or the end of its messages (CloseSend) and of their answers.
//
// Everything that refuses a session refuses it here, as a status with a
// JsonRpcError, before any message is sent: credentials revoked, an
// unknown server, the rules, the rate, the bridge shutting down, the
// server's session caps, a child that does not start. first is not sent:
// it tells which child the session gets (a 2025 initialize asks for a
// child of the client's own, where the server's tunnels are private), and
// the door sends it with Send like every other message.
func (s *Service) Open(ctx context.Context, server string, first []byte) (*Session, error) {
	return s.open(ctx, server, first, nil)
}

// open is Open; a member session of an aggregate's hands its messages to
// the aggregate's router through sink instead of Recv.
func (s *Service) open(ctx context.Context, server string, first []byte, sink aggsession.Sink) (*Session, error) {
	ctx, unwatch := s.door.Watch(ctx)
	ctx, release := s.longLived(ctx)
	end := func() { release(); unwatch() }
	fail := func(srvName string, err error) (*Session, error) {
		err = revoked(ctx, rpcerr.Drained(ctx, srvName, sessionMethod, err))
		end()
		return nil, err
	}
	if rpcerr.RefusedDraining(ctx) { // opened after Shutdown
		return fail(server, ctx.Err())
	}
	var srv *pool.Server
	if door.AggregateOf(ctx) != "" {
		// A member session of an aggregate's: named by the aggregate, not
		// by the caller's metadata (which names the aggregate).
		if srv = s.serverSet()[server]; srv == nil {
			return fail(server, rpcerr.ToStatus(server, sessionMethod, &rpcerr.CallError{
				RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", server), Reason: rpcerr.ReasonUnknownServer}))
		}
	} else {
		if name, err := serverName(ctx, server, sessionMethod); err == nil {
			if agg := s.aggregateSet()[name]; agg != nil {
				return s.openAggregate(ctx, agg, first, end)
			}
		}
		var err error
		if srv, err = s.lookup(ctx, server, sessionMethod); err != nil {
			return fail(server, err)
		}
	}
	// The session's opening passes the door (the server, and the rate),
	// and so does each request in it (tunnelServer.Admit).
	opening := &door.Request{Via: door.Via(ctx, door.ViaConnect), Server: srv.Door(), Method: sessionMethod, Long: true}
	if name := door.AggregateOf(ctx); name != "" {
		opening.Aggregate = &door.Aggregated{Server: name}
	}
	if err := s.door.AdmitOpening(ctx, opening); err != nil {
		return fail(srv.Name(), err)
	}
	ss := &Session{s: s, name: srv.Name(), srv: srv, ctx: ctx, end: end, sink: sink,
		in: make(chan []byte, sessionInbox), inClosed: make(chan struct{}), out: make(chan []byte),
		stop: make(chan struct{}), done: make(chan struct{})}
	probe, err := legacyProbe(ctx, srv, first)
	if err != nil {
		return fail(srv.Name(), err)
	}
	if probe {
		ss.probes = true
	} else if ss.c, err = srv.AcquireTunnel(ctx, sessionMethod, string(first)); err != nil {
		return fail(srv.Name(), err)
	}
	go ss.run()
	return ss, nil
}

// Send hands the session one message of the client. It waits while the
// session takes the previous one; it fails once the session has ended.
// The session keeps msg, which is not copied: the caller hands it over
// and does not touch it again.
func (ss *Session) Send(msg []byte) error { return ss.sendBy(msg, time.Time{}) }

// sendBy is Send, given up at deadline (zero: none) with
// os.ErrDeadlineExceeded, the message not sent.
func (ss *Session) sendBy(msg []byte, deadline time.Time) error {
	var expired <-chan time.Time
	if !deadline.IsZero() {
		select { // taken at once: no timer
		case ss.in <- msg:
			return nil
		default:
		}
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-expired:
		return os.ErrDeadlineExceeded
	case ss.in <- msg:
		return nil
	case <-ss.inClosed:
		return errors.New("bridge: Send after CloseSend")
	case <-ss.done:
		return ss.outcome()
	case <-ss.stop:
		return errSessionClosed
	}
}

// CloseSend says the client sends nothing more: the session answers what
// is in flight and ends, and Recv then returns io.EOF.
func (ss *Session) CloseSend() {
	ss.closeSend.Do(func() { close(ss.inClosed) })
}

// Recv returns the next message for the client (a JSON-RPC message
// without a newline), io.EOF once the session ended well, or the status
// that ended it. ctx bounds the wait alone.
func (ss *Session) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-ss.out:
		return m, nil
	case <-ss.done:
		return nil, ss.outcome()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// outcome is how the session ended, once done is closed: the status that
// ended it, or io.EOF when it ended well.
func (ss *Session) outcome() error {
	if ss.err != nil {
		return ss.err
	}
	return io.EOF
}

// Done is closed when the session has ended.
func (ss *Session) Done() <-chan struct{} { return ss.done }

// Close ends the session at once: its requests in flight are cancelled on
// the child, a child of its own stops. It waits until the session is gone
// and returns nil.
func (ss *Session) Close() error {
	ss.closeOnce.Do(func() { close(ss.stop) })
	<-ss.done
	return nil
}

// Server is the name of the server (or aggregate) the session is on.
func (ss *Session) Server() string { return ss.name }

// deliver hands one message of the tunnel to Recv (the tunnel's writer).
func (ss *Session) deliver(msg []byte) error {
	if ss.sink != nil {
		return ss.sink(msg, ss.stop)
	}
	select {
	case ss.out <- msg:
		return nil
	case <-ss.stop:
		return errSessionClosed
	}
}

// next is the client's next message: ok false at CloseSend (eof), at
// Close, or when the session's context ends.
func (ss *Session) next() (msg []byte, eof bool, ok bool) {
	select {
	case m := <-ss.in:
		return m, false, true
	case <-ss.inClosed:
		select { // what was sent before CloseSend comes first
		case m := <-ss.in:
			return m, false, true
		default:
			return nil, true, false
		}
	case <-ss.stop:
		return nil, false, false
	case <-ss.ctx.Done():
		return nil, false, false
	}
}

// run serves the session until it ends.
func (ss *Session) run() {
	defer close(ss.done)
	defer ss.end()
	var err error
	if ss.router != nil {
		err = ss.serveAggregate()
	} else {
		err = ss.serve()
	}
	ss.err = revoked(ss.ctx, rpcerr.Drained(ss.ctx, ss.name, sessionMethod, err))
}

// serve is the session: the legacy probes, then the tunnel on its child.
// Shutdown ends it at once with UNAVAILABLE and RetryInfo (drain.go), and
// the requests in flight in it are cancelled on the child.
func (ss *Session) serve() error {
	ctx, srv := ss.ctx, ss.srv
	var first []byte
	for ss.c == nil {
		msg, eof, ok := ss.next()
		switch {
		case eof:
			return nil
		case !ok:
			return ss.ended()
		}
		if answer := probeAnswer(msg); answer != nil {
			if err := ss.deliver(answer); err != nil {
				return ss.ended()
			}
			continue
		}
		c, err := srv.AcquireTunnel(ctx, sessionMethod, string(msg))
		if err != nil {
			return err
		}
		ss.c, first = c, msg
	}
	c := ss.c
	defer func() { srv.Release(c) }() // a child of its own ends with the session
	t := tunnel.New(&tunnelServer{s: ss.s, srv: srv}, &tunnel.Child{Client: c.Client, Relay: c.Relay, Level: c.Level, Floor: c.Floor, Private: c.Private()}, ctx)
	c.Relay.AddTunnel(t)
	go t.Write(ss.deliver)

	// moveOn takes a session whose own child died to the restarted one: a
	// crash is an event of the session, which goes on. Any other child's
	// death ends the session.
	moveOn := func() error {
		if !c.Private() {
			return srv.Failure(c, sessionMethod, c.Err())
		}
		next, err := srv.Next(ctx, c, sessionMethod)
		if err != nil {
			return err
		}
		c = next
		t.Rebind(&tunnel.Child{Client: c.Client, Relay: c.Relay, Level: c.Level, Floor: c.Floor, Private: c.Private()})
		return nil
	}
	if first != nil {
		t.Handle(first)
	}
	for {
		select {
		case msg := <-ss.in:
			select {
			case <-c.Closed(): // a message that came with the child's death waits for the next one
				if err := moveOn(); err != nil {
					t.Abort()
					return err
				}
			default:
			}
			t.Handle(msg)
		case <-ss.inClosed:
			// What was sent before CloseSend is handled first: Send
			// returns once a message is queued (sessionInbox), and select
			// may see the close before the queue.
			for queued := true; queued; {
				select {
				case msg := <-ss.in:
					t.Handle(msg)
				default:
					queued = false
				}
			}
			return t.HalfClose(ctx, func(err error) error { return srv.Failure(c, sessionMethod, err) })
		case <-ss.stop:
			t.Abort()
			return errSessionClosed
		case <-ctx.Done():
			t.Abort()
			return rpcerr.ToStatus(srv.Name(), sessionMethod, ctx.Err())
		case <-c.Closed():
			if err := moveOn(); err != nil {
				t.Abort()
				return err
			}
		case <-t.Dead():
			t.Abort()
			return t.WriteErr()
		}
	}
}

// ended is the outcome of a session that ended before it had a child.
func (ss *Session) ended() error {
	select {
	case <-ss.stop:
		return errSessionClosed
	default:
	}
	if err := ss.ctx.Err(); err != nil {
		return rpcerr.ToStatus(ss.name, sessionMethod, err)
	}
	return nil
}

// openAggregate opens a session on an aggregate: the caller's session
// with each member, opened with first as any session is (each passes the
// door as the member's), and the router between the client and them.
func (s *Service) openAggregate(ctx context.Context, agg *aggregate.Server, first []byte, end func()) (*Session, error) {
	ss := &Session{s: s, name: agg.Name(), ctx: ctx, end: end,
		in: make(chan []byte, sessionInbox), inClosed: make(chan struct{}), out: make(chan []byte),
		stop: make(chan struct{}), done: make(chan struct{})}
	current := func() *aggregate.Server { return s.aggregateSet()[agg.Name()] }
	open := func(ctx context.Context, member string, first []byte, sink aggsession.Sink) (aggsession.Member, error) {
		ms, err := s.open(door.WithAggregate(ctx, agg.Name()), member, first, sink)
		if err != nil {
			return nil, err // not a nil *Session in an interface
		}
		return memberSession{ms}, nil
	}
	deliver := func(msg []byte, quit <-chan struct{}) error {
		select {
		case ss.out <- msg:
			return nil
		case <-ss.stop:
			return errSessionClosed
		case <-quit:
			return errSessionClosed
		}
	}
	r, err := aggsession.New(ctx, agg, current, open, first, deliver, s.cfg.Logger)
	if err != nil {
		end()
		return nil, revoked(ctx, rpcerr.Drained(ctx, agg.Name(), sessionMethod, err))
	}
	ss.router = r
	go ss.run()
	return ss, nil
}

// memberSession is a member's session as an aggregate's router sees it.
type memberSession struct{ *Session }

func (m memberSession) Err() error { return m.outcome() }

// TrySend hands msg to the session if it takes it at once.
func (m memberSession) TrySend(msg []byte) bool {
	select {
	case m.in <- msg:
		return true
	default:
		return false
	}
}

// serveAggregate is a session on an aggregate: its router serves it
// (package internal/aggsession), following each reload at once.
func (ss *Session) serveAggregate() error {
	err := ss.router.Serve(aggsession.Client{In: ss.in, Closed: ss.inClosed, Stop: ss.stop, Reloaded: ss.s.reloadSignal})
	switch {
	case errors.Is(err, aggsession.ErrStopped):
		return errSessionClosed
	case err != nil && err == ss.ctx.Err():
		return rpcerr.ToStatus(ss.name, sessionMethod, err)
	}
	return err
}

// legacyProbe reports whether the client's leading server/discover
// requests are answered by the session itself, as a 2025 child would
// answer a method it does not know: on a server whose tunnels are private
// and whose child speaks a 2025 era, for a client whose first message is
// one. A client that speaks both eras then falls back to initialize, as
// it does with the server launched itself, and gets a child of its own in
// its era rather than a translation (docs/architecture.md, "Tunnels and
// their children").
func legacyProbe(ctx context.Context, srv *pool.Server, first []byte) (bool, error) {
	if srv.Config().Tunnel != pool.TunnelPrivate || srv.Config().Policy == pool.PolicySession || probeAnswer(first) == nil {
		return false, nil
	}
	c, err := srv.Acquire(ctx, sessionMethod) // the server's own child says its era
	if err != nil {
		return false, err
	}
	return !protocol.Modern(c.Protocol()), nil
}

// probeAnswer is the answer of a 2025 child to msg when msg is a
// server/discover request: -32601; nil for any other message.
func probeAnswer(msg []byte) []byte {
	m, err := wire.Decode(msg)
	if err != nil || m.Kind != wire.KindRequest || m.Method != "server/discover" {
		return nil
	}
	answer := wire.AppendError(nil, m.ID, &wire.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"})
	return bytes.TrimSuffix(answer, []byte("\n"))
}
