package bridge

import (
	"context"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/grpcdoor"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// ServerMetadataKey is the request metadata key that names the fronted
// server, like the `server` field of every request.
const ServerMetadataKey = grpcdoor.ServerMetadataKey

// HealthService is the name under which the bridge reports its overall
// health; each fronted server is also reported under
// "mcpbridge.v1.BridgeService/<name>".
const HealthService = "mcpbridge.v1.BridgeService"

// Service is mcpbridge.v1.BridgeService: it fronts stdio MCP servers, one
// supervised child each, and maps every RPC to JSON-RPC on the child
// (docs/architecture.md). It is safe for concurrent use. New starts the
// children; Close stops them.
type Service struct {
	*api // the RPCs' handlers (package internal/grpcdoor), over coreView

	cfg     Config
	servers atomic.Pointer[map[string]*pool.Server] // replaced whole by Reload
	// aggregates are the aggregated servers, by name, replaced whole by
	// Reload after servers (a member is in servers before its aggregate).
	aggregates atomic.Pointer[map[string]*aggregate.Server]
	// reloaded is closed, and replaced, by each Reload: sessions on an
	// aggregate follow its members.
	reloaded atomic.Pointer[chan struct{}]
	door     *door.Door // the one pipeline of every request to a child
	health   *health.Server

	healthMu sync.Mutex
	ready    map[string]bool // per current server, for the overall health status
	shutDown bool            // Drain has turned health NOT_SERVING for good
	reload   sync.Mutex      // one Reload at a time
	retiring sync.WaitGroup  // servers a Reload removed or replaced, until stopped

	draining context.Context // cancelled by Drain: long-lived streams end
	drain    context.CancelFunc
	aborting context.Context // cancelled by Abort: calls in flight end
	abort    context.CancelFunc

	metrics *grpcMetrics // Config.Metrics: the gRPC server's; nil: none

	closeOnce sync.Once

	serveMu  sync.Mutex
	serving  *serving  // what Serve runs (lifecycle.go)
	stopOnce sync.Once // Shutdown's work, once
	stopErr  error
}

// New starts the children of each configured server and returns the
// service.
func New(cfg Config) (*Service, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, health: health.NewServer(), ready: map[string]bool{}}
	s.api = grpcdoor.New(coreView{s})
	var err error
	s.door = door.New(cfg.Auth, cfg.Rules, cfg.Limits)
	s.door.Audit = cfg.Audit
	if s.door.Obs, err = door.NewObserver(cfg.Metrics, cfg.TracerProvider); err != nil {
		return nil, err
	}
	if s.metrics, err = newGRPCMetrics(s); err != nil {
		return nil, err
	}
	s.door.Refused = s.metrics.refused
	s.draining, s.drain = context.WithCancel(context.Background())
	s.aborting, s.abort = context.WithCancel(context.Background())
	s.health.SetServingStatus(HealthService, healthpb.HealthCheckResponse_NOT_SERVING)
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	s.health.SetServingStatus(LivenessService, healthpb.HealthCheckResponse_SERVING) // for good
	set := map[string]*pool.Server{}
	s.healthMu.Lock()
	for i := range s.cfg.Servers {
		s.ready[s.cfg.Servers[i].Name] = false
	}
	s.healthMu.Unlock()
	for i := range s.cfg.Servers {
		sc := &s.cfg.Servers[i]
		set[sc.Name] = s.newServer(sc)
	}
	s.servers.Store(&set)
	s.setAggregates(cfg.Aggregates)
	return s, nil
}

// setAggregates puts the aggregates of cfg in force, each afresh (the
// routes of the last ones are forgotten).
func (s *Service) setAggregates(cfg []AggregateConfig) {
	set := make(map[string]*aggregate.Server, len(cfg))
	for _, a := range cfg {
		set[a.Name] = aggregate.NewServer(a)
	}
	s.aggregates.Store(&set)
	next := make(chan struct{})
	if old := s.reloaded.Swap(&next); old != nil {
		close(*old)
	}
}

// reloadSignal is closed at the next Reload.
func (s *Service) reloadSignal() <-chan struct{} { return *s.reloaded.Load() }

// aggregateSet returns the current aggregates, by name; callers must not
// modify it.
func (s *Service) aggregateSet() map[string]*aggregate.Server { return *s.aggregates.Load() }

// newServer makes a fronted server and starts its first children.
func (s *Service) newServer(sc *ServerConfig) *pool.Server {
	return pool.New(sc, pool.Options{Logger: s.cfg.Logger, Health: s.setHealth,
		Secure: func() bool { return s.door.Access().Auth.Enabled() }})
}

// serverSet returns the current servers, by name; callers must not modify
// it.
func (s *Service) serverSet() map[string]*pool.Server { return *s.servers.Load() }

// setHealth records one server's health, under its own entry, and the
// overall status follows (overallHealth). Members call it from their
// supervisors' health callbacks, so it takes no supervisor lock.
func (s *Service) setHealth(name string, serving bool) {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if _, current := s.ready[name]; !current {
		return // removed by Reload
	}
	s.ready[name] = serving
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		st = healthpb.HealthCheckResponse_SERVING
	}
	s.setStatus(HealthService+"/"+name, st)
	s.overallHealth()
}

// setStatus sets a health entry, unless Shutdown has set every entry
// NOT_SERVING for good; healthMu is held.
func (s *Service) setStatus(service string, st healthpb.HealthCheckResponse_ServingStatus) {
	if !s.shutDown {
		s.health.SetServingStatus(service, st)
	}
}

// overallHealth sets the bridge's own status, the readiness of the
// replica: SERVING while at least one current server is (podReadiness,
// health.go; docs/scaling.md, "Readiness"); healthMu is held.
func (s *Service) overallHealth() {
	st := podReadiness(s.ready)
	s.logReadiness(st)
	s.setStatus(HealthService, st)
	s.setStatus("", st)
}

// Register registers the BridgeService and the gRPC health service on r.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	mcpbridgev1.RegisterBridgeServiceServer(r, s)
	s.RegisterHealth(r)
}

// RegisterHealth registers the gRPC health service alone on r: for a
// listener of its own that probes reach without TLS (Kubernetes' gRPC
// probes speak plaintext), as `mcpbridge serve --health-listen` does.
func (s *Service) RegisterHealth(r grpc.ServiceRegistrar) {
	healthpb.RegisterHealthServer(r, grpcdoor.NewHealth(s.health, coreView{s})) // internal/grpcdoor/health.go
}

// ServerOptions are the grpc.Server options that apply the service's
// message size limit.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(s.cfg.MaxMessageBytes),
		grpc.MaxSendMsgSize(s.cfg.MaxMessageBytes),
	}
}

// Drain starts a graceful stop, Shutdown's first step: every health
// status turns NOT_SERVING (but LivenessService's), so that balancers
// drain the bridge, and the long-lived streams and sessions (Subscribe,
// Connect, the MCP endpoint's) end at once with UNAVAILABLE and
// RetryInfo, as do new ones, so that a graceful stop of the gRPC server
// waits only for calls. Calls keep being served.
func (s *Service) Drain() {
	s.healthMu.Lock()
	for name := range s.ready {
		s.setStatus(HealthService+"/"+name, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	s.setStatus(HealthService, healthpb.HealthCheckResponse_NOT_SERVING)
	s.setStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	s.shutDown = true
	s.healthMu.Unlock()
	s.drain()
}

// Abort ends every call still in flight with UNAVAILABLE and RetryInfo,
// cancelling its request on the child: for a graceful stop that ran out of
// time, so that those callers learn to retry (elsewhere) before the
// connections close. It implies Drain.
func (s *Service) Abort() {
	s.Drain()
	s.abort()
}

// Close stops every child gracefully (close stdin, grace, SIGTERM, SIGKILL
// to its process group) and waits until they are gone. Calls in flight
// fail with UNAVAILABLE.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		s.Drain()
		var wg sync.WaitGroup
		s.reload.Lock() // no Reload adds servers after this
		for _, srv := range s.serverSet() {
			wg.Go(srv.Stop)
		}
		wg.Wait()
		s.retiring.Wait() // Shutdown ended their drain
		s.reload.Unlock()
	})
	return nil
}
