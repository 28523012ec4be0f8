package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is a fronted server as the API sees it: how a request names
// one, and the two RPCs about the server itself, GetServer and Ping.

// fronted is one fronted server: its configuration and its children,
// each with a supervisor of its own (policy.go).
type fronted struct {
	name string
	cfg  *ServerConfig
	log  *slog.Logger
	s    *Service

	mu           sync.Mutex
	pool         []*child          // shared: one; pool: Min to Max
	sessions     map[string]*child // session: by session name
	sessionOrder []*child          // the same, oldest first
	closed       bool              // stop was called: no new children
	stopped      atomic.Bool       // stop was called (health reads it unlocked)
	done         chan struct{}     // closed by stop: the janitor ends
	wg           sync.WaitGroup    // the janitor and children being stopped
	door         *door.Server      // what the door knows of it: its name, audit payloads, its limits
	turn         atomic.Uint32     // the pool's round-robin start
	nextChild    int               // the id of the next shared or pool child
	reaped       atomic.Int64      // sessions stopped when idle, for metrics
}

// newFronted makes the server and starts its first children.
func (s *Service) newFronted(sc *ServerConfig) *fronted {
	srv := &fronted{name: sc.Name, cfg: sc, log: s.cfg.Logger.With("server", sc.Name), s: s,
		sessions: map[string]*child{}, done: make(chan struct{}),
		door: &door.Server{Name: sc.Name, AuditPayloads: sc.AuditPayloads, Limiter: door.NewLimiter(sc.Limits)}}
	n := 1
	if sc.Policy == PolicyPool {
		n = sc.Pool.Min
	}
	if sc.Policy != PolicySession {
		srv.mu.Lock()
		for range n {
			srv.pool = append(srv.pool, srv.newChild("", nil))
		}
		srv.mu.Unlock()
	}
	srv.healthChanged()
	srv.wg.Add(1)
	go srv.janitor()
	return srv
}

// lookup finds the fronted server a request names, by its server field or
// the mcp-server metadata key; when the bridge fronts one server, an empty
// name selects it. A failure is already a status. Whether the caller may
// use the server is the door's to say (package internal/door).
func (s *Service) lookup(ctx context.Context, field, method string) (*fronted, error) {
	name := field
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(ServerMetadataKey); len(v) > 0 {
			if field != "" && v[0] != field {
				return nil, rpcerr.ToStatus(field, method, rpcerr.InvalidInput(field, method, "%v", &convert.FieldError{Field: "server", Reason: convert.ReasonInvalidValue,
					Err: fmt.Errorf("the server field %q and the %s metadata %q disagree", field, ServerMetadataKey, v[0])}))
			}
			name = v[0]
		}
	}
	set := s.serverSet()
	srv, ok := set[name]
	if !ok && name == "" && len(set) == 1 {
		for _, only := range set {
			srv, ok = only, true
		}
	}
	if ok {
		return srv, nil
	}
	ce := &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", name), Reason: rpcerr.ReasonUnknownServer}
	if name == field { // named by the field, not by the metadata
		reason := convert.ReasonInvalidValue
		if name == "" {
			reason = convert.ReasonRequired
		}
		ce.Field = &convert.FieldError{Field: "server", Reason: reason, Err: ce.RPC}
	}
	return nil, rpcerr.ToStatus(name, method, ce)
}

// acquire returns the ready child that serves a request under the
// server's policy, waiting while it starts. A failure is already a status:
// UNAVAILABLE (with RetryInfo while the child restarts), INVALID_ARGUMENT
// or RESOURCE_EXHAUSTED from the session policy, or the caller's
// cancellation or deadline.
func (srv *fronted) acquire(ctx context.Context, method string) (*process, error) {
	m, err := srv.pick(ctx, method)
	if err != nil {
		return nil, err
	}
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

// failure maps an error of a call on child c to its status, adding
// RetryInfo when the child died and is about to restart.
func (srv *fronted) failure(c *process, method string, err error) error {
	var e *jsonrpc.Error
	if errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed && c != nil && c.child != nil {
		return rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{RPC: e, RetryAfter: c.child.sup.RetryAfter(), Pid: c.Pid()})
	}
	return rpcerr.ToStatus(srv.name, method, err)
}

// GetServer returns the state of a fronted server as it is now: a child
// that is starting, restarting, failed or stopping is reported so, and the
// negotiated fields are set while it is READY. Only with wait_for_ready
// does it wait while the child starts (bounded by the RPC's deadline and
// the handshake timeout). A session server describes the session the
// request names, if it runs; it never starts one.
func (s *Service) GetServer(ctx context.Context, req *mcpbridgev1.GetServerRequest) (*mcpbridgev1.GetServerResponse, error) {
	const method = "GetServer"
	srv, err := s.lookup(ctx, req.GetServer(), method)
	if err != nil {
		return nil, err
	}
	dr := &door.Request{Via: door.ViaGRPC, Server: srv.door, Method: method}
	ps, refused := s.door.Admit(ctx, dr)
	if refused != nil {
		return nil, refused.Status(dr)
	}
	defer ps.Release()
	if req.GetWaitForReady() && srv.cfg.Policy != PolicySession {
		if _, err := srv.acquire(ctx, method); err != nil {
			if status.Code(err) != codes.Unavailable {
				return nil, err
			}
		}
	}
	return srv.describe(sessionName(ctx)), nil
}

// ListServers describes every fronted server, sorted by name.
func (s *Service) ListServers(ctx context.Context, _ *mcpbridgev1.ListServersRequest) (*mcpbridgev1.ListServersResponse, error) {
	set := s.serverSet()
	resp := &mcpbridgev1.ListServersResponse{}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if s.allowServer(ctx, name) { // a caller sees only the servers it may use
			resp.Servers = append(resp.Servers, set[name].describe(""))
		}
	}
	return resp, nil
}

// describe is GetServer's answer for the server: every child, and the
// negotiated fields of the one the response is about (the first ready
// one, or the session's).
func (srv *fronted) describe(session string) *mcpbridgev1.GetServerResponse {
	resp := &mcpbridgev1.GetServerResponse{Name: srv.name, Policy: policies[srv.cfg.Policy]}
	var about *process
	for _, m := range srv.children() {
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

// Ping checks that the child answers: ping (legacy) or server/discover
// (2026, which has no ping).
func (s *Service) Ping(ctx context.Context, req *mcpbridgev1.PingRequest) (*mcpbridgev1.PingResponse, error) {
	r, err := s.route(ctx, req.GetServer(), &door.Request{Via: door.ViaGRPC, Method: "ping"})
	if err != nil {
		return nil, err
	}
	defer r.release()
	c := r.c
	if protocol.Modern(c.Protocol()) {
		r.method, r.req.Method = "server/discover", "server/discover"
	}
	start := time.Now()
	if _, err := r.call(ctx, nil, nil); err != nil {
		return nil, err
	}
	rtt := time.Since(start)
	var info *mcpbridgev1.Child
	if c.child != nil {
		info, _ = c.child.childInfo()
	}
	return &mcpbridgev1.PingResponse{RoundTrip: durationpb.New(rtt), Method: r.method, Child: info}, nil
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
