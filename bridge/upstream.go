package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is a fronted server as the API sees it: how a request names
// one, and the two RPCs about the server itself, GetServer and Ping.

// upstream is one fronted server: its configuration and the supervisor of
// its child.
type upstream struct {
	name   string
	cfg    *ServerConfig
	log    *slog.Logger
	sup    *supervisor.Supervisor[*child]
	stderr *stderrLines // its children's stderr, as the bridge keeps it
}

// lookup finds the fronted server a request names, by its server field or
// the mcp-server metadata key; when the bridge fronts one server, an empty
// name selects it. A failure is already a status.
func (s *Service) lookup(ctx context.Context, field, method string) (*upstream, error) {
	name := field
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(ServerMetadataKey); len(v) > 0 {
			if field != "" && v[0] != field {
				return nil, toStatus(field, method, invalidInput(field, method, "the server field %q and the %s metadata %q disagree", field, ServerMetadataKey, v[0]))
			}
			name = v[0]
		}
	}
	if srv, ok := s.servers[name]; ok {
		return srv, nil
	}
	if name == "" && len(s.servers) == 1 {
		for _, srv := range s.servers {
			return srv, nil
		}
	}
	return nil, toStatus(name, method, &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", name), reason: reasonUnknownServer})
}

// acquire returns the server's ready child, waiting while one starts. A
// failure is already a status: UNAVAILABLE (with RetryInfo while the
// child restarts), or the caller's cancellation or deadline.
func (srv *upstream) acquire(ctx context.Context, method string) (*child, error) {
	c, err := srv.sup.Acquire(ctx)
	if err != nil {
		return nil, toStatus(srv.name, method, err)
	}
	return c, nil
}

// failure maps an error of a call on the server's child to its status,
// adding RetryInfo when the child died and is about to restart.
func (srv *upstream) failure(method string, err error) error {
	var e *jsonrpc.Error
	if errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed {
		return toStatus(srv.name, method, &callError{rpc: e, retryAfter: srv.sup.RetryAfter()})
	}
	return toStatus(srv.name, method, err)
}

// GetServer returns the state of a fronted server as it is now: a child
// that is starting, restarting, failed or stopping is reported so, and the
// negotiated fields are set while it is READY. Only with wait_for_ready
// does it wait while the child starts (bounded by the RPC's deadline and
// the handshake timeout).
func (s *Service) GetServer(ctx context.Context, req *mcpbridgev1.GetServerRequest) (*mcpbridgev1.GetServerResponse, error) {
	const method = "GetServer"
	srv, err := s.lookup(ctx, req.GetServer(), method)
	if err != nil {
		return nil, err
	}
	if req.GetWaitForReady() {
		if _, err := srv.sup.Acquire(ctx); err != nil {
			var u *supervisor.UnavailableError
			if !errors.As(err, &u) {
				return nil, toStatus(srv.name, method, err)
			}
		}
	}
	info, c := srv.info()
	resp := &mcpbridgev1.GetServerResponse{Child: info, Name: srv.name, Policy: mcpbridgev1.ServerPolicy_SERVER_POLICY_SHARED}
	if c != nil {
		resp.ProtocolVersion = c.Protocol()
		resp.ServerInfo = toStruct(c.ServerInfo())
		resp.Capabilities = toStruct(c.ServerCapabilities())
		if resp.Capabilities == nil {
			resp.Capabilities = &structpb.Struct{}
		}
		resp.Instructions = c.Instructions()
	}
	return resp, nil
}

// Ping checks that the child answers: ping (legacy) or server/discover
// (2026, which has no ping).
func (s *Service) Ping(ctx context.Context, req *mcpbridgev1.PingRequest) (*mcpbridgev1.PingResponse, error) {
	srv, err := s.lookup(ctx, req.GetServer(), "ping")
	if err != nil {
		return nil, err
	}
	c, err := srv.acquire(ctx, "ping")
	if err != nil {
		return nil, err
	}
	r := &route{s: s, srv: srv, c: c, method: "ping"}
	if protocol.Modern(c.Protocol()) {
		r.method = "server/discover"
	}
	start := time.Now()
	if _, err := r.call(ctx, nil, nil); err != nil {
		return nil, err
	}
	rtt := time.Since(start)
	info, _ := srv.info()
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

// info describes the server's child for GetServer and Ping, and returns
// the ready child (nil in every other state).
func (srv *upstream) info() (*mcpbridgev1.Child, *child) {
	st := srv.sup.Status()
	ch := &mcpbridgev1.Child{State: childStates[st.State], Restarts: st.Restarts, LastExit: st.LastExit}
	if srv.cfg.ExposeStderr {
		ch.StderrTail = srv.stderr.Last()
	}
	if st.Child != nil {
		ch.Pid = int32(st.Child.Pid())
		ch.StartedAt = timestamppb.New(st.StartedAt)
	}
	return ch, st.Child
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
