// Package pool is the fronted servers and their children: a server's
// configuration and its one check (Normalize), the policy that maps its
// callers to children (shared, pool, session), each child's supervisor
// and processes, their stderr, and their state as metrics
// (docs/architecture.md, "Child policies"). Package bridge gives its
// configuration types their public names and reaches a child only
// through Server.Acquire.
package pool

// This file is a fronted server's children under its policy
// (docs/architecture.md, "Child policies"): a shared server has one
// child; a pool has Min to Max, each call going to the least loaded ready
// one; a session server has one per mcp-session value, started on first
// use and stopped when idle. Every child has a supervisor of its own
// (child.go), with its own restarts, stderr and, for a session,
// environment.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Options are what a Server needs of the bridge around it.
type Options struct {
	// Logger is the bridge's log; the server's records carry its name.
	Logger *slog.Logger
	// Secure reports whether authentication is on: a child started then
	// routes its server requests by principal (package fanout).
	Secure func() bool
	// Health receives the server's health whenever it may have changed.
	Health func(server string, serving bool)
}

// Server is one fronted server: its configuration and its children.
type Server struct {
	name string
	cfg  *ServerConfig
	log  *slog.Logger
	opts Options
	door *door.Server // what the door knows of it: its name, audit payloads, its limits

	mu           sync.Mutex
	pool         []*Child          // shared: one; pool: Min to Max
	sessions     map[string]*Child // session: by session name
	sessionOrder []*Child          // the same, oldest first
	closed       bool              // Stop was called: no new children
	retired      atomic.Bool       // Retire or Stop was called: it reports no health (read unlocked)
	done         chan struct{}     // closed by Stop: the janitor ends
	wg           sync.WaitGroup    // the janitor and children being stopped
	turn         atomic.Uint32     // the pool's round-robin start
	nextChild    int               // the id of the next shared or pool child
	reaped       atomic.Int64      // sessions stopped when idle, for metrics
}

// New makes the server of a normalized sc and starts its first children.
func New(sc *ServerConfig, opts Options) *Server {
	srv := &Server{name: sc.Name, cfg: sc, log: opts.Logger.With("server", sc.Name), opts: opts,
		sessions: map[string]*Child{}, done: make(chan struct{}),
		door: &door.Server{Name: sc.Name, AuditPayloads: sc.AuditPayloads, Limiter: door.NewLimiter(sc.Limits), Tasks: sc.Tasks}}
	n := 1
	if sc.Policy == PolicyPool {
		n = sc.Pool.Min
	}
	if sc.Policy != PolicySession {
		srv.mu.Lock()
		for range n {
			srv.pool = append(srv.pool, srv.newChild("", nil, nil, false, ""))
		}
		srv.mu.Unlock()
	}
	srv.healthChanged()
	srv.wg.Add(1)
	go srv.janitor()
	return srv
}

// Name is the server's name.
func (srv *Server) Name() string { return srv.name }

// Config is the server's normalized configuration; callers must not
// modify it.
func (srv *Server) Config() *ServerConfig { return srv.cfg }

// Door is what the door knows of the server.
func (srv *Server) Door() *door.Server { return srv.door }

// Acquire returns the ready child process that serves a request under the
// server's policy, waiting while it starts. A failure is already a status:
// UNAVAILABLE (with RetryInfo while the child restarts), INVALID_ARGUMENT
// or RESOURCE_EXHAUSTED from the session policy, or the caller's
// cancellation or deadline.
func (srv *Server) Acquire(ctx context.Context, method string) (*Process, error) {
	m, err := srv.pick(ctx, method)
	if err != nil {
		return nil, err
	}
	return srv.ready(ctx, m, method)
}

// ready waits for child m's process to be ready.
func (srv *Server) ready(ctx context.Context, m *Child, method string) (*Process, error) {
	m.touch()
	m.waiting.Add(1)
	c, err := m.sup.Acquire(ctx)
	m.waiting.Add(-1)
	if err != nil {
		return nil, rpcerr.ToStatus(srv.name, method, err)
	}
	m.touch() // again: the start may have taken longer than an idle timeout
	return c, nil
}

// Next waits for the next ready process of c's child after c ended (its
// supervisor restarts it) and returns it. A failure is already a status:
// the child failed for good or is stopping, or ctx ended.
func (srv *Server) Next(ctx context.Context, c *Process, method string) (*Process, error) {
	m := c.child
	for {
		st := m.sup.Status()
		switch {
		case st.State == supervisor.Ready && st.Child != nil && st.Child != c:
			m.touch()
			return st.Child, nil
		case st.State == supervisor.Failed || st.State == supervisor.Stopping:
			_, err := m.sup.Acquire(ctx) // the state's error, with its RetryInfo
			if err == nil {
				continue // it came back meanwhile
			}
			return nil, rpcerr.ToStatus(srv.name, method, err)
		}
		select {
		case <-st.Changed:
		case <-ctx.Done():
			return nil, rpcerr.ToStatus(srv.name, method, ctx.Err())
		}
	}
}

// Failure maps an error of a call on process c to its status, adding
// RetryInfo when the child died and is about to restart.
func (srv *Server) Failure(c *Process, method string, err error) error {
	var e *jsonrpc.Error
	if errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed && c != nil && c.child != nil {
		var x *stdio.ExitError
		if errors.As(e, &x) && x.Fence != "" {
			// The sandbox ended it: the message says which fence.
			e = &jsonrpc.Error{Code: e.Code, Message: e.Message + ": " + x.Fence, Data: e.Data, Cause: e.Cause}
		}
		return rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{RPC: e, RetryAfter: c.child.sup.RetryAfter(), Pid: c.Pid()})
	}
	return rpcerr.ToStatus(srv.name, method, err)
}

// Relays returns the relays of the server's running processes.
func (srv *Server) Relays() []*fanout.Relay {
	var out []*fanout.Relay
	for _, m := range srv.Children() {
		if c := m.sup.Status().Child; c != nil {
			out = append(out, c.Relay)
		}
	}
	return out
}

// Children returns the server's children now, oldest first.
func (srv *Server) Children() []*Child {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return append(slices.Clone(srv.pool), srv.sessionOrder...)
}

// pick chooses the child for a request under the server's policy. A
// failure is already a status.
func (srv *Server) pick(ctx context.Context, method string) (*Child, error) {
	switch srv.cfg.Policy {
	case PolicyPool:
		return srv.leastLoaded(), nil
	case PolicySession:
		return srv.session(ctx, method, nil)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.pool) == 0 {
		return nil, srv.gone(method)
	}
	return srv.pool[0], nil
}

// gone is the error of a request to a server that is being removed.
func (srv *Server) gone(method string) error {
	return rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The server %q is being removed", srv.name)})
}

// leastLoaded is the ready pool child with the least load; when none is
// ready, one that is starting (Acquire waits for it). When every ready
// child is busy and the pool is below Max, it grows by one.
func (srv *Server) leastLoaded() *Child {
	srv.mu.Lock()
	pool := slices.Clone(srv.pool)
	srv.mu.Unlock()
	var best *Child
	bestLoad := 0
	// Ties go round the pool, so that a burst of calls that all see the
	// same loads (none of them counted yet) spreads over the children.
	first := int(srv.turn.Add(1))
	for i := range pool {
		m := pool[(first+i)%len(pool)]
		st := m.sup.Status()
		if st.State != supervisor.Ready || st.Child == nil {
			continue
		}
		if l := st.Child.Relay.Load(); best == nil || l < bestLoad {
			best, bestLoad = m, l
		}
	}
	if best == nil || bestLoad > 0 {
		srv.grow()
	}
	if best != nil {
		return best
	}
	for _, m := range pool {
		if st := m.sup.Status().State; st == supervisor.Starting || st == supervisor.Restarting {
			return m
		}
	}
	return pool[0]
}

// grow adds a pool child while the pool is below Max.
func (srv *Server) grow() {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed || len(srv.pool) >= srv.cfg.Pool.Max {
		return
	}
	srv.pool = append(srv.pool, srv.newChild("", nil, nil, false, ""))
	srv.log.Info("mcpbridge: pool grew", "children", len(srv.pool))
}

// session returns the child of the request's session, starting it on the
// session's first request. A Connect stream without a session of its own
// gets a private one, started with hs when its client gave one.
func (srv *Server) session(ctx context.Context, method string, hs *Handshake) (*Child, error) {
	name := SessionName(ctx)
	if name == "" {
		if method != "Connect" {
			return nil, rpcerr.ToStatus(srv.name, method, rpcerr.InvalidInput(srv.name, method,
				"the server %q has one child per session: set the %s metadata", srv.name, SessionMetadataKey))
		}
		return srv.open(ctx, method, "", hs)
	}
	srv.mu.Lock()
	m := srv.sessions[name]
	srv.mu.Unlock()
	if m != nil {
		m.touch()
		return m, nil
	}
	return srv.open(ctx, method, name, nil)
}

// Handshake is what an MCP client said of itself in its initialize: a
// private child is initialized with it, as if the client had launched
// the server itself.
type Handshake struct {
	Version      string          // the protocolVersion it asked for
	Capabilities json.RawMessage // its ClientCapabilities
	ClientInfo   json.RawMessage // its Implementation
}

// AcquirePrivate starts a child of the caller's own, whatever the
// server's policy, initialized with hs, and returns its ready process; it
// counts against the server's session caps, and Release stops it. It is a
// tunnel's own child: a legacy server keeps per-client state in its
// process, so a tunnel that shares one is not the session its client
// would have with the server it launched.
//
// A child that refuses the handshake (it speaks 2026-07-28 only, where
// every request carries the client's capabilities and sharing is
// faithful) is stopped, and the error is ErrRefusedHandshake.
func (srv *Server) AcquirePrivate(ctx context.Context, method string, hs *Handshake) (*Process, error) {
	m, err := srv.open(ctx, method, "", hs)
	if err != nil {
		return nil, err
	}
	m.touch()
	m.waiting.Add(1)
	c, err := m.sup.Acquire(ctx)
	m.waiting.Add(-1)
	if err != nil {
		srv.mu.Lock()
		removed := srv.dropSession(m)
		srv.mu.Unlock()
		if removed {
			srv.wg.Go(m.sup.Stop)
		}
		var ue *supervisor.UnavailableError
		if errors.As(err, &ue) && refusedHandshake(ue.Cause) {
			return nil, ErrRefusedHandshake
		}
		return nil, rpcerr.ToStatus(srv.name, method, err)
	}
	return c, nil
}

// AcquireTunnel returns the ready process that serves a Connect tunnel
// whose client's first message is first: for a client that opens with
// initialize and names no session, a child of its own initialized with
// that initialize (AcquirePrivate), unless the server's tunnels share
// (ServerConfig.Tunnel) or it refuses the client's initialize; the
// policy's otherwise (docs/architecture.md, "Tunnels and their
// children").
func (srv *Server) AcquireTunnel(ctx context.Context, method, first string) (*Process, error) {
	if hs := handshakeOf(first); hs != nil && srv.cfg.Tunnel == TunnelPrivate && SessionName(ctx) == "" {
		c, err := srv.AcquirePrivate(ctx, method, hs)
		if !errors.Is(err, ErrRefusedHandshake) {
			return c, err
		}
	}
	return srv.Acquire(ctx, method)
}

// handshakeOf is the handshake of a client's initialize request, nil when
// text is not one.
func handshakeOf(text string) *Handshake {
	m, err := wire.Decode([]byte(text))
	if err != nil || m.Kind != wire.KindRequest || m.Method != "initialize" {
		return nil
	}
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if json.Unmarshal(m.Params, &p) != nil || !rawjson.IsObject(p.Capabilities) || !rawjson.IsObject(p.ClientInfo) {
		return nil // the tunnel answers a malformed initialize as the child would
	}
	return &Handshake{Version: p.ProtocolVersion, Capabilities: p.Capabilities, ClientInfo: p.ClientInfo}
}

// ErrRefusedHandshake is AcquirePrivate's error for a child that refused
// its client's initialize.
var ErrRefusedHandshake = errors.New("pool: the server refused the client's initialize")

// open starts the child of a new session named name, or of a private one
// (name ""), within the server's caps.
func (srv *Server) open(ctx context.Context, method, name string, hs *Handshake) (*Child, error) {
	private := name == ""
	if private {
		var b [16]byte
		_, _ = rand.Read(b[:])
		name = "connect-" + hex.EncodeToString(b[:])
	}
	md, _ := metadata.FromIncomingContext(ctx)
	var env []EnvVar
	for _, name := range slices.Sorted(maps.Keys(srv.cfg.Session.EnvFromMetadata)) {
		key := srv.cfg.Session.EnvFromMetadata[name]
		if v := md.Get(key); len(v) > 0 {
			// A NUL would cut the value short, a newline forge another
			// line for a program that reads its environment as lines.
			// The key is named, never the value: it may be a secret.
			if controlChar(v[0]) >= 0 {
				return nil, rpcerr.ToStatus(srv.name, method, rpcerr.InvalidInput(srv.name, method,
					"the metadata %q holds a control character: it cannot be a session's environment value", key))
			}
			env = append(env, EnvVar{Name: name, Value: v[0]})
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if m := srv.sessions[name]; m != nil { // started meanwhile by another request
		m.touch()
		return m, nil
	}
	if srv.closed {
		return nil, srv.gone(method)
	}
	who := access.CallerID(ctx)
	if err := srv.principalFull(who, method); err != nil {
		return nil, err
	}
	limit, _, retry := srv.sessionCaps()
	if len(srv.sessions) >= limit {
		return nil, rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{
			RPC: jsonrpc.WithData(jsonrpc.CodeInternalError, fmt.Sprintf("The server %q has its most sessions (%d) open", srv.name, limit),
				map[string]any{"retryable": true, "limit": limit}),
			RetryAfter: retry,
		})
	}
	m := srv.newChild(name, env, hs, private, who)
	srv.sessions[name] = m
	srv.sessionOrder = append(srv.sessionOrder, m)
	srv.log.Info("mcpbridge: session started", "session", m.digest, "sessions", len(srv.sessions), "private", private)
	return m, nil
}

// sessionCaps are the most sessions at once, those of one principal, and
// the wait a refused one is told: a session server's own, and for the
// private children of the other policies' tunnels the session defaults.
func (srv *Server) sessionCaps() (total, perPrincipal int, retry time.Duration) {
	if srv.cfg.Policy == PolicySession {
		return srv.cfg.Session.Max, srv.cfg.Session.MaxPerPrincipal, srv.cfg.Session.IdleTimeout / 4
	}
	return DefaultMaxSessions, max(1, (DefaultMaxSessions+3)/4), time.Second
}

// SessionName is the session a request names: its mcp-session metadata
// ("" without one), owned by its principal. With authentication a session
// belongs to its principal: another caller who learns or guesses the name
// gets a session of its own.
func SessionName(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	v := md.Get(SessionMetadataKey)
	if len(v) == 0 || v[0] == "" {
		return ""
	}
	if who := access.CallerID(ctx); who != "" {
		return who + "\x00" + v[0]
	}
	return v[0]
}

// StopSession stops the child of the session of that name (SessionName's
// spelling), if it runs, and waits until it is gone.
func (srv *Server) StopSession(name string) {
	srv.mu.Lock()
	m := srv.sessions[name]
	removed := m != nil && srv.dropSession(m)
	srv.mu.Unlock()
	if removed {
		m.sup.Stop()
		srv.healthChanged()
	}
}

// Release is called when a session ends: its private child stops with
// it, in the background, and Stop waits for that as for every child (the
// stop is counted under srv.mu, so before Stop can wait).
func (srv *Server) Release(c *Process) {
	if c.child == nil || !c.child.private {
		return
	}
	srv.mu.Lock()
	if srv.dropSession(c.child) {
		srv.wg.Go(c.child.sup.Stop)
	}
	srv.mu.Unlock()
}

// dropSession forgets a session's child; srv.mu is held.
func (srv *Server) dropSession(m *Child) bool {
	if srv.sessions[m.session] != m {
		return false
	}
	delete(srv.sessions, m.session)
	srv.sessionOrder = slices.DeleteFunc(srv.sessionOrder, func(x *Child) bool { return x == m })
	return true
}

// janitor stops idle session children and idle pool children above Min,
// until the server stops.
func (srv *Server) janitor() {
	defer srv.wg.Done()
	var every time.Duration
	switch srv.cfg.Policy {
	case PolicyPool:
		every = srv.cfg.Pool.IdleTimeout / 4
	case PolicySession:
		every = srv.cfg.Session.IdleTimeout / 4
	default:
		return
	}
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-srv.done:
			return
		case now := <-t.C:
			srv.sweep(now)
		}
	}
}

// sweep stops the children idle past their timeout.
func (srv *Server) sweep(now time.Time) {
	var stop []*Child
	srv.mu.Lock()
	switch srv.cfg.Policy {
	case PolicySession:
		for _, m := range slices.Clone(srv.sessionOrder) {
			if m.idleFor(now) >= srv.cfg.Session.IdleTimeout && srv.dropSession(m) {
				stop = append(stop, m)
			}
		}
	case PolicyPool:
		for i := len(srv.pool) - 1; i >= srv.cfg.Pool.Min; i-- {
			if m := srv.pool[i]; m.idleFor(now) >= srv.cfg.Pool.IdleTimeout {
				srv.pool = slices.Delete(srv.pool, i, i+1)
				stop = append(stop, m)
			}
		}
	}
	srv.mu.Unlock()
	if srv.cfg.Policy == PolicySession {
		srv.reaped.Add(int64(len(stop)))
	}
	for _, m := range stop {
		srv.log.Info("mcpbridge: stopping an idle child", "session", m.digest)
		srv.wg.Go(m.sup.Stop)
	}
	if len(stop) > 0 {
		srv.healthChanged()
	}
}

// healthChanged reports the server's health: SERVING while a shared or
// pool child is ready; a session server is SERVING while it runs (its
// children start on demand). A server that Retire or Stop was called on
// reports nothing: a reload that replaced it gave its name to the new
// server, whose health its children stopping must not overwrite, and a
// removed server's entry or a stopping bridge's health is not its to set.
func (srv *Server) healthChanged() {
	if srv.retired.Load() {
		return
	}
	ready := srv.cfg.Policy == PolicySession
	if !ready {
		srv.mu.Lock()
		for _, m := range srv.pool {
			ready = ready || m.ready.Load()
		}
		srv.mu.Unlock()
	}
	srv.opts.Health(srv.name, ready)
}

// Stop stops every child of the server and waits until they are gone.
func (srv *Server) Stop() {
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		srv.wg.Wait()
		return
	}
	srv.closed = true
	srv.retired.Store(true)
	close(srv.done)
	all := slices.Clone(srv.pool)
	all = append(all, srv.sessionOrder...)
	srv.pool, srv.sessionOrder = nil, nil
	clear(srv.sessions)
	srv.mu.Unlock()
	for _, m := range all {
		srv.wg.Go(m.sup.Stop)
	}
	srv.wg.Wait()
}

// Retire drains a server that a reload removed or replaced, which no
// request reaches any more: its children stop once nothing uses them, at
// limit, or when draining ends, whichever comes first; Retire returns
// then.
func (srv *Server) Retire(draining context.Context, limit time.Duration) {
	srv.retired.Store(true)
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for srv.busy() {
		select {
		case <-deadline.C:
			srv.log.Warn("mcpbridge: stopping a removed server's children with calls still in flight", "drain", limit.String())
			srv.Stop()
			return
		case <-draining.Done():
			srv.Stop()
			return
		case <-tick.C:
		}
	}
	srv.Stop()
	srv.log.Info("mcpbridge: a removed server's children stopped")
}

// busy reports whether any child of the server serves a call, stream or
// tunnel.
func (srv *Server) busy() bool {
	for _, m := range srv.Children() {
		if c := m.sup.Status().Child; c != nil && c.Relay.Load() > 0 {
			return true
		}
	}
	return false
}

// principalFull is the refusal of a new session of principal who when who
// has MaxPerPrincipal sessions open; nil otherwise, and always without
// authentication (who is ""). A Connect stream's own session counts like
// a named one. srv.mu is held.
func (srv *Server) principalFull(who, method string) error {
	if who == "" {
		return nil
	}
	open := 0
	for _, m := range srv.sessions {
		if m.owner == who {
			open++
		}
	}
	_, limit, retry := srv.sessionCaps()
	if open < limit {
		return nil
	}
	return rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{
		RPC: jsonrpc.WithData(jsonrpc.CodeInternalError,
			fmt.Sprintf("The server %q has the most sessions one principal may have (max_per_principal %d) open for this caller", srv.name, limit),
			map[string]any{"retryable": true, "limit": limit, "per": "principal"}),
		RetryAfter: retry,
	})
}
