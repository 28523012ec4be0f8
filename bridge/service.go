package bridge

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
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
// (docs/architecture.md). It is safe for concurrent use. New starts the
// children; Close stops them.
type Service struct {
	mcpbridgev1.UnimplementedBridgeServiceServer

	cfg     Config
	servers map[string]*upstream
	health  *health.Server

	healthMu sync.Mutex
	ready    map[string]bool // per server, for the overall health status

	draining context.Context // cancelled by Shutdown: long-lived streams end
	drain    context.CancelFunc

	closeOnce sync.Once
}

// New starts a child for each configured server and returns the service.
func New(cfg Config) (*Service, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, servers: map[string]*upstream{}, health: health.NewServer(), ready: map[string]bool{}}
	s.draining, s.drain = context.WithCancel(context.Background())
	s.health.SetServingStatus(HealthService, healthpb.HealthCheckResponse_NOT_SERVING)
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	// Supervisors report health as soon as they start, while this loop may
	// still be adding the others; setHealth reads only cfg.Servers, never
	// s.servers, so that needs no lock.
	for i := range s.cfg.Servers {
		sc := &s.cfg.Servers[i]
		name := sc.Name
		s.health.SetServingStatus(HealthService+"/"+name, healthpb.HealthCheckResponse_NOT_SERVING)
		srv := &upstream{name: name, cfg: sc, log: cfg.Logger.With("server", name), stderr: newStderrLines()}
		srv.sup = supervisor.New(supervisor.Config[*child]{
			Start:          srv.start,
			Grace:          sc.Grace,
			MaxRestarts:    sc.MaxRestarts,
			InitialBackoff: sc.RestartBackoff,
			MaxBackoff:     sc.MaxRestartBackoff,
			Health:         func(ready bool) { s.setHealth(name, ready) },
			Logger:         srv.log,
			LastWords:      srv.stderr.Last,
		})
		s.servers[name] = srv
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

// Shutdown starts a graceful stop: every health status turns NOT_SERVING,
// so that balancers drain the bridge, and the long-lived streams
// (Subscribe, Connect) end at once with UNAVAILABLE and RetryInfo, so that
// a graceful stop of the gRPC server waits only for calls. Calls keep
// being served.
func (s *Service) Shutdown() {
	s.health.Shutdown()
	s.drain()
}

// Close stops every child gracefully (close stdin, grace, SIGTERM, SIGKILL
// to its process group) and waits until they are gone. Calls in flight
// fail with UNAVAILABLE.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		s.Shutdown()
		var wg sync.WaitGroup
		for _, srv := range s.servers {
			wg.Go(srv.sup.Stop)
		}
		wg.Wait()
	})
	return nil
}
