package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// ServerMetadataKey is the request metadata key that names the fronted
// server, like the `server` field of every request.
const ServerMetadataKey = "mcp-server"

// HealthService is the name under which the bridge reports its overall
// health; each fronted server is also reported under
// "mcpbridge.v1.BridgeService/<name>".
const HealthService = "mcpbridge.v1.BridgeService"

// Service is mcpbridge.v1.BridgeService: it fronts stdio MCP servers, one
// supervised child each, and maps every RPC to JSON-RPC on the child
// (DESIGN.md). It is safe for concurrent use. New starts the children;
// Close stops them.
type Service struct {
	mcpbridgev1.UnimplementedBridgeServiceServer

	cfg     Config
	servers map[string]*supervisor
	health  *health.Server

	healthMu sync.Mutex
	ready    map[string]bool // per server, for the overall health status

	closeOnce sync.Once
}

// New starts a child for each configured server and returns the service.
func New(cfg Config) (*Service, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, servers: map[string]*supervisor{}, health: health.NewServer(), ready: map[string]bool{}}
	s.health.SetServingStatus(HealthService, healthpb.HealthCheckResponse_NOT_SERVING)
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	// Supervisors report health as soon as they start, while this loop may
	// still be adding the others; setHealth reads only cfg.Servers, never
	// s.servers, so that needs no lock.
	for _, sc := range cfg.Servers {
		name := sc.Name
		s.health.SetServingStatus(HealthService+"/"+name, healthpb.HealthCheckResponse_NOT_SERVING)
		s.servers[name] = newSupervisor(name, sc, cfg.Logger, func(serving bool) { s.setHealth(name, serving) })
	}
	return s, nil
}

// setHealth records one server's health; the overall status is SERVING
// while every server is. Supervisors call it with their own lock held, so
// it takes no supervisor lock.
func (s *Service) setHealth(name string, serving bool) {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	s.ready[name] = serving
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		st = healthpb.HealthCheckResponse_SERVING
	}
	s.health.SetServingStatus(HealthService+"/"+name, st)
	all := healthpb.HealthCheckResponse_SERVING
	for _, sc := range s.cfg.Servers { // not s.servers: New may still be filling it in
		if !s.ready[sc.Name] {
			all = healthpb.HealthCheckResponse_NOT_SERVING
		}
	}
	s.health.SetServingStatus(HealthService, all)
	s.health.SetServingStatus("", all)
}

// Register registers the BridgeService and the gRPC health service on r.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	mcpbridgev1.RegisterBridgeServiceServer(r, s)
	healthpb.RegisterHealthServer(r, s.health)
}

// ServerOptions are the grpc.Server options that apply the service's
// message size limit.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(s.cfg.MaxMessageBytes),
		grpc.MaxSendMsgSize(s.cfg.MaxMessageBytes),
	}
}

// Shutdown marks every health status NOT_SERVING, for the start of a
// graceful stop.
func (s *Service) Shutdown() { s.health.Shutdown() }

// Close stops every child gracefully (close stdin, grace, SIGTERM, SIGKILL
// to its process group) and waits until they are gone. Calls in flight
// fail with UNAVAILABLE.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		s.health.Shutdown()
		var wg sync.WaitGroup
		for _, sup := range s.servers {
			wg.Go(sup.stop)
		}
		wg.Wait()
	})
	return nil
}

// lookup finds the fronted server a request names, by field or metadata.
func (s *Service) lookup(ctx context.Context, field, method string) (*supervisor, error) {
	name := field
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(ServerMetadataKey); len(v) > 0 {
			if field != "" && v[0] != field {
				return nil, invalidInput(field, method, "the server field %q and the %s metadata %q disagree", field, ServerMetadataKey, v[0])
			}
			name = v[0]
		}
	}
	if sup, ok := s.servers[name]; ok {
		return sup, nil
	}
	if name == "" && len(s.servers) == 1 {
		for _, sup := range s.servers {
			return sup, nil
		}
	}
	return nil, &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", name), server: name, method: method, reason: reasonUnknownServer}
}

// callOptions bounds a child call by the gRPC deadline, or by the default
// deadline when there is none, never beyond the maximum.
func (s *Service) callOptions(ctx context.Context) *stdio.CallOptions {
	if _, ok := ctx.Deadline(); ok {
		// The gRPC deadline ends ctx; the package timer only cuts one that
		// lies beyond the maximum.
		return &stdio.CallOptions{Timeout: s.cfg.MaxDeadline}
	}
	return &stdio.CallOptions{Timeout: s.cfg.DefaultDeadline}
}

// call runs one request on the named server's child and maps a failure to
// the status the gRPC client sees.
func (s *Service) call(ctx context.Context, server, method string, params json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, *child, error) {
	sup, err := s.lookup(ctx, server, method)
	if err != nil {
		return nil, nil, toStatus(server, method, err)
	}
	c, err := sup.acquire(ctx)
	if err != nil {
		return nil, nil, toStatus(sup.name, method, err)
	}
	if opts == nil {
		opts = s.callOptions(ctx)
	}
	defer c.relay.enter()()
	res, err := c.client.Call(ctx, method, params, opts)
	if err != nil {
		return nil, c, s.childError(sup, method, err)
	}
	return res, c, nil
}

// childError maps an error from a child call, adding RetryInfo when the
// child died and is about to restart.
func (s *Service) childError(sup *supervisor, method string, err error) error {
	var e *jsonrpc.Error
	if errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed {
		return toStatus(sup.name, method, &callError{rpc: e, server: sup.name, method: method, retryAfter: sup.retryAfter()})
	}
	return toStatus(sup.name, method, err)
}

// GetServer returns the negotiated state of a fronted server.
func (s *Service) GetServer(ctx context.Context, req *mcpbridgev1.GetServerRequest) (*mcpbridgev1.GetServerResponse, error) {
	const method = "GetServer"
	sup, err := s.lookup(ctx, req.GetServer(), method)
	if err != nil {
		return nil, toStatus(req.GetServer(), method, err)
	}
	if _, err := sup.acquire(ctx); err != nil {
		// Report the state anyway: a restarting child is worth seeing.
		var ce *callError
		if !errors.As(err, &ce) {
			return nil, toStatus(sup.name, method, err)
		}
	}
	info, c := sup.info()
	resp := &mcpbridgev1.GetServerResponse{Child: info, Name: sup.name, Policy: mcpbridgev1.ServerPolicy_SERVER_POLICY_SHARED}
	if c != nil {
		resp.ProtocolVersion = c.client.Protocol()
		resp.ServerInfo = toStruct(c.client.ServerInfo())
		resp.Capabilities = toStruct(c.client.ServerCapabilities())
		if resp.Capabilities == nil {
			resp.Capabilities = &structpb.Struct{}
		}
		resp.Instructions = c.client.Instructions()
	}
	return resp, nil
}

// Ping checks that the child answers: ping (legacy) or server/discover
// (2026, which has no ping).
func (s *Service) Ping(ctx context.Context, req *mcpbridgev1.PingRequest) (*mcpbridgev1.PingResponse, error) {
	sup, err := s.lookup(ctx, req.GetServer(), "ping")
	if err != nil {
		return nil, toStatus(req.GetServer(), "ping", err)
	}
	c, err := sup.acquire(ctx)
	if err != nil {
		return nil, toStatus(sup.name, "ping", err)
	}
	method := "ping"
	if protocol.Modern(c.client.Protocol()) {
		method = "server/discover"
	}
	start := time.Now()
	leave := c.relay.enter()
	_, err = c.client.Call(ctx, method, nil, s.callOptions(ctx))
	leave()
	if err != nil {
		return nil, s.childError(sup, method, err)
	}
	rtt := time.Since(start)
	info, _ := sup.info()
	return &mcpbridgev1.PingResponse{RoundTrip: durationOf(rtt), Method: method, Child: info}, nil
}

// Call sends any method with params as JSON text and returns the result as
// JSON text, both validated and compacted but never re-encoded.
func (s *Service) Call(ctx context.Context, req *mcpbridgev1.CallRequest) (*mcpbridgev1.CallResponse, error) {
	method := req.GetMethod()
	if err := checkRawMethod(method); err != nil {
		return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "%v", err))
	}
	var params json.RawMessage
	if req.GetParamsJson() != "" {
		p, err := rawjson.Compact([]byte(req.GetParamsJson()))
		if err != nil || !rawjson.IsObject(p) {
			return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "params_json must be a JSON object"))
		}
		params = p
	}
	res, _, err := s.call(ctx, req.GetServer(), method, params, nil)
	if err != nil {
		return nil, err
	}
	return &mcpbridgev1.CallResponse{ResultJson: string(res)}, nil
}

// bridgeOwned are the methods the bridge itself speaks with the child; Call
// refuses them (Connect handles them for its tunnel).
var bridgeOwned = map[string]bool{
	"initialize": true, "subscriptions/listen": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "logging/setLevel": true,
}

func checkRawMethod(method string) error {
	switch {
	case method == "":
		return errors.New("method is required")
	case bridgeOwned[method]:
		return errors.New(method + " is managed by the bridge; use Subscribe or Connect")
	case len(method) > 14 && method[:14] == "notifications/":
		return errors.New("notifications are not requests; use Connect to send them")
	}
	return nil
}

// toStruct converts a JSON object to a Struct; nil when raw is not one.
func toStruct(raw json.RawMessage) *structpb.Struct {
	if !rawjson.IsObject(raw) {
		return nil
	}
	var s structpb.Struct
	if err := s.UnmarshalJSON(raw); err != nil {
		return nil
	}
	return &s
}

func timestamp(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

func durationOf(d time.Duration) *durationpb.Duration { return durationpb.New(d) }
