package bridge

// This file is the child policies (docs/architecture.md, "Child
// policies"): how a fronted server's callers map to its children. Every
// child has a supervisor of its own, with its own restarts, stderr and,
// for a session, environment; each start of it is a process. A shared
// server has one child;
// a pool has Min to Max, each call going to the least loaded ready one; a
// session server has one per mcp-session value, started on first use and
// stopped when idle.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Policy is how a fronted server's callers map to its children.
type Policy int

const (
	// PolicyShared multiplexes every caller onto one child (the default).
	PolicyShared Policy = iota
	// PolicyPool runs Pool.Min to Pool.Max children and sends each call to
	// the least loaded ready one; a stream stays on its child.
	PolicyPool
	// PolicySession runs one child per client session, named by the
	// SessionMetadataKey request metadata.
	PolicySession
)

// String is the policy's name in the config file.
func (p Policy) String() string {
	switch p {
	case PolicyShared:
		return "shared"
	case PolicyPool:
		return "pool"
	case PolicySession:
		return "session"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy reads a policy's name.
func ParsePolicy(name string) (Policy, error) {
	for _, p := range []Policy{PolicyShared, PolicyPool, PolicySession} {
		if p.String() == name {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown policy %q (want shared, pool or session)", name)
}

// SessionMetadataKey is the request metadata key that names a client
// session for PolicySession servers.
const SessionMetadataKey = "mcp-session"

// Defaults of PoolConfig and SessionConfig.
const (
	DefaultPoolMin            = 2
	DefaultPoolIdleTimeout    = 5 * time.Minute
	DefaultSessionIdleTimeout = 10 * time.Minute
	DefaultMaxSessions        = 64
)

// PoolConfig configures PolicyPool.
type PoolConfig struct {
	// Min children run at all times (default 2); up to Max (default Min)
	// run while every ready child is busy. A child above Min that has been
	// idle for IdleTimeout (default 5 min) is stopped.
	Min, Max    int
	IdleTimeout time.Duration
}

// SessionConfig configures PolicySession.
type SessionConfig struct {
	// IdleTimeout stops a session's child once it has had no request,
	// stream or tunnel for this long (default 10 min).
	IdleTimeout time.Duration
	// Max is the most sessions at once (default 64); a new session beyond
	// it is refused with RESOURCE_EXHAUSTED and RetryInfo.
	Max int
	// MaxPerPrincipal is the most sessions one authenticated principal
	// may have open at once (default Max/4 rounded up), so that one
	// caller cannot take every session; a new session beyond it is
	// refused like one beyond Max. Without authentication every caller is
	// the same anonymous one, and it does not apply (sessioncap.go).
	MaxPerPrincipal int
	// EnvFromMetadata sets a session child's environment variable (the
	// key) from the request metadata key (the value, lower case) of the
	// session's first request: per-user credentials, for example. Values
	// are never logged. A variable whose metadata is absent is not set.
	// Variables that change what the child loads or runs (LD_PRELOAD,
	// PATH, NODE_OPTIONS and the others CheckSessionEnvName refuses) are
	// refused here, and a session whose value holds a control character
	// is refused with INVALID_ARGUMENT before its child starts.
	EnvFromMetadata map[string]string
}

// normalizePolicy checks the policy settings and fills in their defaults.
func (s *ServerConfig) normalizePolicy() error {
	switch s.Policy {
	case PolicyShared:
	case PolicyPool:
		p := &s.Pool
		if p.Min < 0 || p.Max < 0 || p.IdleTimeout < 0 {
			return fmt.Errorf("bridge: server %q: the pool settings must not be negative", s.Name)
		}
		if p.Min == 0 {
			p.Min = DefaultPoolMin
		}
		if p.Max == 0 {
			p.Max = p.Min
		}
		if p.Max < p.Min {
			return fmt.Errorf("bridge: server %q: pool max %d is below its min %d", s.Name, p.Max, p.Min)
		}
		if p.IdleTimeout == 0 {
			p.IdleTimeout = DefaultPoolIdleTimeout
		}
	case PolicySession:
		c := &s.Session
		if c.Max < 0 || c.MaxPerPrincipal < 0 || c.IdleTimeout < 0 {
			return fmt.Errorf("bridge: server %q: the session settings must not be negative", s.Name)
		}
		if c.Max == 0 {
			c.Max = DefaultMaxSessions
		}
		if err := c.normalizePerPrincipal(s.Name); err != nil {
			return err
		}
		if c.IdleTimeout == 0 {
			c.IdleTimeout = DefaultSessionIdleTimeout
		}
		env := make(map[string]string, len(c.EnvFromMetadata))
		for _, name := range slices.Sorted(maps.Keys(c.EnvFromMetadata)) {
			key := c.EnvFromMetadata[name]
			if name == "" || strings.ContainsAny(name, "=\x00") || key == "" {
				return fmt.Errorf("bridge: server %q: session env %q from metadata %q is not a variable name and a metadata key", s.Name, name, key)
			}
			if err := CheckSessionEnvName(name); err != nil {
				return fmt.Errorf("bridge: server %q: session env: %v", s.Name, err)
			}
			env[name] = strings.ToLower(key)
		}
		c.EnvFromMetadata = env
	default:
		return fmt.Errorf("bridge: server %q: unknown policy %d", s.Name, int(s.Policy))
	}
	return nil
}

// child is one supervised child of a server: the processes its supervisor
// starts, one at a time, with their restarts.
type child struct {
	srv     *fronted
	sup     *supervisor.Supervisor[*process]
	stderr  *stderrLines
	env     []EnvVar // a session's own values: never logged
	session string   // the session's name; "" for shared and pool children
	owner   string   // a session's principal (access.CallerID); "" without authentication
	digest  string   // a short digest of session, for logs and GetServer
	private bool     // a Connect stream's own session: ends with the stream
	used    atomic.Int64
	ready   atomic.Bool

	id       string         // its label in metrics: a pool index, or digest
	counters stdio.Counters // its processes' traffic, for metrics
	waiting  atomic.Int32   // callers waiting for its process to be ready
}

// touch records a use, for the idle timeouts.
func (m *child) touch() { m.used.Store(time.Now().UnixNano()) }

// idleFor reports how long the child has been idle: zero while its process
// starts or restarts (its first caller waits for it) and while a call,
// stream or tunnel uses it.
func (m *child) idleFor(now time.Time) time.Duration {
	st := m.sup.Status()
	switch {
	case st.State == supervisor.Starting || st.State == supervisor.Restarting:
		return 0
	case st.Child != nil && st.Child.relay.Load() > 0:
		return 0
	}
	return now.Sub(time.Unix(0, m.used.Load()))
}

// sessionKey keys the session digests, a random secret of this process.
// A plain hash of a session's name, often short or guessable (a user
// name, a date), could be reversed offline by trying names; the digest is
// in the log, in GetServer and in the child label of the metrics, which
// reach people who must not learn the names. A digest is stable while the
// process runs, and means nothing to another.
var sessionKey = func() []byte {
	k := make([]byte, sha256.Size)
	_, _ = rand.Read(k) // crypto/rand does not fail: it ends the program instead
	return k
}()

// sessionDigest is a session's short name for the log, GetServer and the
// metrics: 12 hex digits of its HMAC-SHA256 under sessionKey.
func sessionDigest(session string) string {
	mac := hmac.New(sha256.New, sessionKey)
	mac.Write([]byte(session))
	return hex.EncodeToString(mac.Sum(nil)[:6])
}

// newChild makes and starts a child of srv.
func (srv *fronted) newChild(session string, env []EnvVar) *child {
	m := &child{srv: srv, stderr: newStderrLines(), session: session, env: env}
	log := srv.log
	if session != "" {
		m.digest = sessionDigest(session)
		log = log.With("session", m.digest)
		m.id = m.digest
	} else {
		m.id = strconv.Itoa(srv.nextChild) // under srv.mu, as every caller holds it
		srv.nextChild++
	}
	m.touch()
	cfg := srv.cfg
	m.sup = supervisor.New(supervisor.Config[*process]{
		Start: func(ctx context.Context, retire func(supervisor.Process)) (*process, error) {
			return m.start(ctx, log, retire)
		},
		Grace:          cfg.Grace,
		MaxRestarts:    cfg.MaxRestarts,
		InitialBackoff: cfg.RestartBackoff,
		MaxBackoff:     cfg.MaxRestartBackoff,
		Health: func(ready bool) {
			if ready {
				m.touch() // its waiting callers get a whole idle timeout to start their calls
			}
			m.ready.Store(ready)
			srv.healthChanged()
		},
		Permanent: cannotExecute,
		Logger:    log,
		LastWords: m.stderr.Last,
	})
	return m
}

// cannotExecute reports a start error that no restart can cure: the
// command does not exist or is not executable.
func cannotExecute(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
}

// children returns the server's children now, oldest first.
func (srv *fronted) children() []*child {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return append(slices.Clone(srv.pool), srv.sessionOrder...)
}

// pick chooses the child for a request under the server's policy. A
// failure is already a status.
func (srv *fronted) pick(ctx context.Context, method string) (*child, error) {
	switch srv.cfg.Policy {
	case PolicyPool:
		return srv.leastLoaded(), nil
	case PolicySession:
		return srv.session(ctx, method)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.pool) == 0 {
		return nil, srv.gone(method)
	}
	return srv.pool[0], nil
}

// gone is the error of a request to a server that is being removed.
func (srv *fronted) gone(method string) error {
	return rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The server %q is being removed", srv.name)})
}

// leastLoaded is the ready pool child with the least load; when none is
// ready, one that is starting (Acquire waits for it). When every ready
// child is busy and the pool is below Max, it grows by one.
func (srv *fronted) leastLoaded() *child {
	srv.mu.Lock()
	pool := slices.Clone(srv.pool)
	srv.mu.Unlock()
	var best *child
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
		if l := st.Child.relay.Load(); best == nil || l < bestLoad {
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
func (srv *fronted) grow() {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed || len(srv.pool) >= srv.cfg.Pool.Max {
		return
	}
	srv.pool = append(srv.pool, srv.newChild("", nil))
	srv.log.Info("mcpbridge: pool grew", "children", len(srv.pool))
}

// session returns the child of the request's session, starting it on the
// session's first request.
func (srv *fronted) session(ctx context.Context, method string) (*child, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	name := sessionName(ctx)
	private := false
	if name == "" {
		if method != "Connect" {
			return nil, rpcerr.ToStatus(srv.name, method, rpcerr.InvalidInput(srv.name, method,
				"the server %q has one child per session: set the %s metadata", srv.name, SessionMetadataKey))
		}
		var b [16]byte
		_, _ = rand.Read(b[:])
		name, private = "connect-"+hex.EncodeToString(b[:]), true
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if m := srv.sessions[name]; m != nil {
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
	if len(srv.sessions) >= srv.cfg.Session.Max {
		return nil, rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{
			RPC: jsonrpc.WithData(jsonrpc.CodeInternalError, fmt.Sprintf("The server %q has its most sessions (%d) open", srv.name, srv.cfg.Session.Max),
				map[string]any{"retryable": true, "limit": srv.cfg.Session.Max}),
			RetryAfter: srv.cfg.Session.IdleTimeout / 4,
		})
	}
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
	m := srv.newChild(name, env)
	m.private = private
	m.owner = who
	srv.sessions[name] = m
	srv.sessionOrder = append(srv.sessionOrder, m)
	srv.log.Info("mcpbridge: session started", "session", m.digest, "sessions", len(srv.sessions))
	return m, nil
}

// sessionName is the session a request names: its mcp-session metadata
// ("" without one), owned by its principal. With authentication a session
// belongs to its principal: another caller who learns or guesses the name
// gets a session of its own.
func sessionName(ctx context.Context) string {
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

// release is called when a Connect stream ends: its private session's
// child stops with it.
func (srv *fronted) release(c *process) {
	if c.child == nil || !c.child.private {
		return
	}
	srv.mu.Lock()
	removed := srv.dropSession(c.child)
	srv.mu.Unlock()
	if removed {
		go c.child.sup.Stop()
	}
}

// dropSession forgets a session's child; srv.mu is held.
func (srv *fronted) dropSession(m *child) bool {
	if srv.sessions[m.session] != m {
		return false
	}
	delete(srv.sessions, m.session)
	srv.sessionOrder = slices.DeleteFunc(srv.sessionOrder, func(x *child) bool { return x == m })
	return true
}

// janitor stops idle session children and idle pool children above Min,
// until the server stops.
func (srv *fronted) janitor() {
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
func (srv *fronted) sweep(now time.Time) {
	var stop []*child
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
// children start on demand).
func (srv *fronted) healthChanged() {
	ready := srv.cfg.Policy == PolicySession
	if !ready {
		srv.mu.Lock()
		for _, m := range srv.pool {
			ready = ready || m.ready.Load()
		}
		srv.mu.Unlock()
	}
	srv.s.setHealth(srv.name, ready && !srv.stopped.Load())
}

// stop stops every child of the server and waits until they are gone.
func (srv *fronted) stop() {
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		srv.wg.Wait()
		return
	}
	srv.closed = true
	srv.stopped.Store(true)
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

// childInfo describes one child for GetServer and ListServers.
func (m *child) childInfo() (*mcpbridgev1.Child, *process) {
	st := m.sup.Status()
	ch := &mcpbridgev1.Child{State: childStates[st.State], Restarts: st.Restarts, LastExit: st.LastExit, Session: m.digest}
	if m.srv.cfg.ExposeStderr {
		ch.StderrTail = m.stderr.Last()
	}
	if st.Child != nil {
		ch.Pid = int32(st.Child.Pid())
		ch.StartedAt = timestamppb.New(st.StartedAt)
		ch.Load = uint32(st.Child.relay.Load())
	}
	return ch, st.Child
}
