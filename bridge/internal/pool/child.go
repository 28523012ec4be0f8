package pool

// This file is one child of a server: a supervisor of its own, whose
// every start is a process, and what GetServer says of it.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Process is one negotiated process of a child of a fronted server: the
// stdio Client that calls go through, the relay of everything else the
// process sends (package fanout) and the listens its Subscribe streams
// share (package fanout). It is what the child's supervisor manages.
type Process struct {
	*stdio.Client
	Relay   *fanout.Relay
	Listens *fanout.Listens          // Subscribe's shared listens, on a 2026 child
	Level   *fanout.ChildLevel       // the logging level of a legacy child (fanout.ChildLevel)
	Floor   mcpbridgev1.LoggingLevel // ServerConfig.LogLevel: the level when no reader set one
	// Subscribers counts the Subscribe streams on it, for metrics.
	Subscribers atomic.Int32

	child *Child // the child whose supervisor started it
}

// Private reports whether the process is a tunnel's own child's.
func (c *Process) Private() bool { return c.child != nil && c.child.private }

// Info describes the process's child for GetServer and Ping.
func (c *Process) Info() *mcpbridgev1.Child {
	info, _ := c.child.childInfo()
	return info
}

// start spawns and negotiates a child: the supervisor's start function.
// Children that the negotiation gave up on (a probe may taint one; see
// stdio.Connect) are handed to retire, which stops them in the background.
func (m *Child) start(ctx context.Context, log *slog.Logger, retire func(supervisor.Process)) (*Process, error) {
	srv := m.srv
	var started []*stdio.Client
	relays := map[*stdio.Client]*fanout.Relay{}
	spawn := func(ctx context.Context) (*stdio.Client, error) {
		stderr := newStderrLog(log, m.stderr)
		r := fanout.NewRelay(srv.name, srv.cfg.Roots, srv.cfg.ServerRequestTimeout, srv.opts.Secure(), log)
		_, roots := rawjson.Member(Capabilities(srv.cfg), "roots")
		r.NoRootsAlone = roots && !m.private // the bridge's own connection, to which it declared roots itself
		if m.private {                       // a tunnel's own child: all it sends is its principal's, and its requests wait for the tunnel
			r.Private, r.Owner = true, m.owner
		}
		cc := srv.cfg.client(log)
		cc.Counters = &m.counters // the child's totals, across restarts
		cmd, fences, err := SandboxedCommand(srv.cfg, stderr, m.env)
		if err != nil {
			stderr.started(0)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The sandbox could not be set up: " + err.Error(), Cause: err}
		}
		if fences != nil {
			cc.ExitFence = func(x *stdio.ExitError) string {
				why := fences.ExitFence(x.Signal)
				switch {
				case strings.Contains(why, "limits.memory"):
					m.memoryKills.Add(1)
				case strings.Contains(why, "limits.cpu_seconds"):
					m.cpuKills.Add(1)
				}
				return why
			}
		}
		c, err := stdio.Start(ctx, cmd, r.Hook(cc))
		if err != nil {
			fences.Release()
			stderr.started(0)
			return nil, err
		}
		if fences != nil {
			if err := fences.Started(c.Pid()); err != nil {
				c.Close()
				<-c.Done()
				fences.Release()
				stderr.started(0)
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The sandbox could not be set up: " + err.Error(), Cause: err}
			}
			go func() { <-c.Done(); fences.Release() }()
		}
		stderr.started(c.Pid())
		started = append(started, c)
		relays[c] = r
		return c, nil
	}
	c, err := stdio.Connect(ctx, spawn, m.connectConfig())
	for _, old := range started {
		if err != nil || old != c {
			retire(old)
		}
	}
	if err != nil {
		return nil, err
	}
	r := relays[c]
	level := fanout.NewChildLevel(c, srv.cfg.logLevel, log, r.InFlight)
	if level != nil {
		r.Settle = level.Settle // before the child serves a call
	}
	r.Attach(c) // only now: Connect sets the era unsynchronised
	log.Info("mcpbridge: server connected", "pid", c.Pid(), "protocol", c.Protocol(), "negotiation", c.Negotiation())
	return &Process{Client: c, Relay: r, Listens: fanout.NewListens(c), Level: level, Floor: srv.cfg.logLevel, child: m}, nil
}

// Child is one supervised child of a server: the processes its supervisor
// starts, one at a time, with their restarts.
type Child struct {
	srv     *Server
	sup     *supervisor.Supervisor[*Process]
	stderr  *stderrLines
	env     []EnvVar // a session's own values: never logged
	session string   // the session's name; "" for shared and pool children
	owner   string   // a session's principal (access.CallerID); "" without authentication
	digest  string   // a short digest of session, for logs and GetServer
	private bool     // a Connect stream's own session: ends with the stream
	// handshake, when set, is the initialize of the tunnel's client that
	// a private child is started with, at every start.
	handshake *Handshake
	used      atomic.Int64
	ready     atomic.Bool

	id       string         // its label in metrics: a pool index, or digest
	counters stdio.Counters // its processes' traffic, for metrics
	// memoryKills and cpuKills count its processes its sandbox ended.
	memoryKills, cpuKills atomic.Int64
	waiting               atomic.Int32 // callers waiting for its process to be ready
}

// connectConfig is how the child is negotiated with: as its server says,
// or, for a tunnel's private child, with its client's own initialize.
func (m *Child) connectConfig() stdio.ConnectConfig {
	cc := m.srv.cfg.connect()
	if hs := m.handshake; hs != nil {
		cc.Capabilities, cc.ClientInfo = hs.Capabilities, hs.ClientInfo
		if m.srv.cfg.Roots != nil { // the bridge answers roots/list: it says so
			cc.Capabilities = withRoots(hs.Capabilities)
		}
		// The client's version first, then the other legacy versions the
		// server may speak: it answers the client with one of them, as it
		// would if the client had launched it.
		cc.Versions = nil
		if protocol.Supported(hs.Version) && !protocol.Modern(hs.Version) {
			cc.Versions = []string{hs.Version}
		}
		for _, v := range protocol.Versions {
			if v != hs.Version && !protocol.Modern(v) && (len(m.srv.cfg.Versions) == 0 || slices.Contains(m.srv.cfg.Versions, v)) {
				cc.Versions = append(cc.Versions, v)
			}
		}

	}
	return cc
}

// Status is the child's supervisor's status: its state and its process.
func (m *Child) Status() supervisor.Status[*Process] { return m.sup.Status() }

// Counters are the traffic of the child's processes, across restarts.
func (m *Child) Counters() *stdio.Counters { return &m.counters }

// touch records a use, for the idle timeouts.
func (m *Child) touch() { m.used.Store(time.Now().UnixNano()) }

// idleFor reports how long the child has been idle: zero while its process
// starts or restarts (its first caller waits for it) and while a call,
// stream or tunnel uses it.
func (m *Child) idleFor(now time.Time) time.Duration {
	st := m.sup.Status()
	switch {
	case st.State == supervisor.Starting || st.State == supervisor.Restarting:
		return 0
	case st.Child != nil && st.Child.Relay.Load() > 0:
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
func (srv *Server) newChild(session string, env []EnvVar, hs *Handshake, private bool, owner string) *Child {
	m := &Child{srv: srv, stderr: newStderrLines(), session: session, env: env, handshake: hs, private: private, owner: owner}
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
	m.sup = supervisor.New(supervisor.Config[*Process]{
		Start: func(ctx context.Context, retire func(supervisor.Process)) (*Process, error) {
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
		Permanent: func(err error) bool { return cannotExecute(err) || hs != nil && refusedHandshake(err) },
		Logger:    log,
		LastWords: m.stderr.Last,
	})
	return m
}

// refusedHandshake reports a child that answered a client's initialize
// with an error (one that speaks 2026-07-28 only, or refuses the client's
// version): no restart changes the answer.
func refusedHandshake(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code != jsonrpc.CodeConnectionClosed && e.Code != jsonrpc.CodeRequestTimeout
}

// cannotExecute reports a start error that no restart can cure: the
// command does not exist or is not executable.
func cannotExecute(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
}

// childInfo describes one child for GetServer and ListServers.
func (m *Child) childInfo() (*mcpbridgev1.Child, *Process) {
	st := m.sup.Status()
	ch := &mcpbridgev1.Child{State: childStates[st.State], Restarts: st.Restarts, LastExit: st.LastExit, Session: m.digest}
	if m.srv.cfg.ExposeStderr {
		ch.StderrTail = m.stderr.Last()
	}
	if st.Child != nil {
		ch.Pid = int32(st.Child.Pid())
		ch.StartedAt = timestamppb.New(st.StartedAt)
		ch.Load = uint32(st.Child.Relay.Load())
	}
	return ch, st.Child
}

// Describe is GetServer's answer for the server: every child, and the
// negotiated fields of the one the response is about (the first ready
// one, or the session's).
func (srv *Server) Describe(session string) *mcpbridgev1.GetServerResponse {
	resp := &mcpbridgev1.GetServerResponse{Name: srv.name, Policy: policies[srv.cfg.Policy]}
	var about *Process
	for _, m := range srv.Children() {
		info, c := m.childInfo()
		resp.Children = append(resp.Children, info)
		mine := srv.cfg.Policy != PolicySession || (session != "" && m.session == session)
		if mine && (resp.Child == nil || about == nil && c != nil) {
			resp.Child, about = info, c
		}
	}
	if c := about; c != nil {
		resp.ProtocolVersion = c.Protocol()
		resp.ServerInfo = toStruct(c.ServerInfo())
		resp.Capabilities = toStruct(c.ServerCapabilities())
		if resp.Capabilities == nil {
			resp.Capabilities = &structpb.Struct{}
		}
		resp.Instructions = c.Instructions()
	}
	return resp
}

// policies maps Policy to the API's enum.
var policies = map[Policy]mcpbridgev1.ServerPolicy{
	PolicyShared:  mcpbridgev1.ServerPolicy_SERVER_POLICY_SHARED,
	PolicyPool:    mcpbridgev1.ServerPolicy_SERVER_POLICY_POOL,
	PolicySession: mcpbridgev1.ServerPolicy_SERVER_POLICY_SESSION,
}

// childStates maps the supervisor's states to the API's.
var childStates = map[supervisor.State]mcpbridgev1.ChildState{
	supervisor.Starting:   mcpbridgev1.ChildState_CHILD_STATE_STARTING,
	supervisor.Ready:      mcpbridgev1.ChildState_CHILD_STATE_READY,
	supervisor.Restarting: mcpbridgev1.ChildState_CHILD_STATE_RESTARTING,
	supervisor.Failed:     mcpbridgev1.ChildState_CHILD_STATE_FAILED,
	supervisor.Stopping:   mcpbridgev1.ChildState_CHILD_STATE_STOPPING,
}

// toStruct converts a JSON object to a Struct; nil when raw is not one.
func toStruct(raw json.RawMessage) *structpb.Struct {
	if !rawjson.IsObject(raw) {
		return nil
	}
	st, err := convert.Struct(raw)
	if err != nil {
		return nil
	}
	return st
}
