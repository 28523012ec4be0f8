package bridge

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/apiwire"
	"github.com/mcpbridge/mcpbridge/bridge/internal/grpcdoor"
	"github.com/mcpbridge/mcpbridge/internal/tracemeta"
)

// Keepalive (docs/operations.md, "Keepalive"): Subscribe streams may stay
// quiet for hours behind load balancers and NATs that drop idle
// connections, so the server pings a connection after keepaliveTime without
// traffic and closes it when the ping goes unanswered for keepaliveTimeout.
// Clients may ping as often as every keepaliveMinTime, also with no call
// open, without being sent away (grpc-go's default would GOAWAY a client
// pinging more often than every 5 minutes).
// streamWorkers is the number of goroutines that serve calls, reused from
// call to call (grpc.NumStreamWorkers). Calls mostly wait for a child, so
// there are more than cores: enough for the callers a replica has in
// flight at once; each idle one keeps a stack of a few KiB.
const streamWorkers = 64

const (
	keepaliveTime    = time.Minute
	keepaliveTimeout = 20 * time.Second
	keepaliveMinTime = 10 * time.Second
)

// interceptors are the chains of every BridgeService call, whatever the
// door: the gRPC server's (NewGRPCServer) and the HTTP door's in-process
// calls of the API (package internal/inproc), so that a check that holds
// on one holds on the other.
func (s *Service) interceptors() ([]grpc.UnaryServerInterceptor, []grpc.StreamServerInterceptor) {
	log := logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		s.cfg.Logger.Log(ctx, slog.Level(lvl), msg, fields...)
	})
	fields := grpcdoor.NewLogFields(coreView{s}) // internal/grpcdoor/logfields.go
	logged := selector.MatchFunc(func(ctx context.Context, c interceptors.CallMeta) bool {
		return c.Service == "mcpbridge.v1.BridgeService" && s.cfg.Logger.Enabled(ctx, slog.LevelInfo)
	})
	// Authentication guards everything but health, which probes must
	// reach; reflection needs it too when it is on.
	guarded := selector.MatchFunc(func(ctx context.Context, c interceptors.CallMeta) bool {
		return c.Service != "grpc.health.v1.Health"
	})
	// Abort (drain.go) ends the service's calls, not probes or reflection.
	bridgeCall := selector.MatchFunc(func(ctx context.Context, c interceptors.CallMeta) bool {
		return c.Service == "mcpbridge.v1.BridgeService"
	})
	rec := recovery.WithRecoveryHandlerContext(func(ctx context.Context, p any) error {
		s.cfg.Logger.ErrorContext(ctx, "mcpbridge: handler panicked", "panic", p, "stack", string(debug.Stack()))
		return status.Error(codes.Internal, "internal error")
	})
	logOpts := []logging.Option{logging.WithLogOnEvents(logging.FinishCall)}
	unary := append(s.metrics.unary(),
		recovery.UnaryServerInterceptor(rec),
		apiwire.RespellUnary,
		apiwire.UTF8Unary,
		selector.UnaryServerInterceptor(auth.UnaryServerInterceptor(s.authenticateOnce), guarded),
		selector.UnaryServerInterceptor(s.reauthUnary, guarded),
		selector.UnaryServerInterceptor(s.limitUnary, guarded),
		// The request's fields first, injected into the context the
		// logging interceptor reads.
		selector.UnaryServerInterceptor(fields.Unary, logged),
		selector.UnaryServerInterceptor(logging.UnaryServerInterceptor(log, logOpts...), logged),
		// Innermost, so that the log and the metrics see what the
		// caller gets.
		selector.UnaryServerInterceptor(s.abortableUnary, bridgeCall),
	)
	stream := append(s.metrics.stream(),
		recovery.StreamServerInterceptor(rec),
		apiwire.RespellStream,
		apiwire.UTF8Stream,
		selector.StreamServerInterceptor(auth.StreamServerInterceptor(s.authenticateOnce), guarded),
		selector.StreamServerInterceptor(s.reauthStream, guarded),
		selector.StreamServerInterceptor(s.limitStream, guarded),
		selector.StreamServerInterceptor(logging.StreamServerInterceptor(log, logOpts...), logged),
		// Inside the logging interceptor: a stream's request arrives
		// in the handler, and its fields are added then.
		selector.StreamServerInterceptor(fields.Stream, logged),
		selector.StreamServerInterceptor(s.abortableStream, bridgeCall),
	)
	return unary, stream
}

// NewGRPCServer returns a grpc.Server serving s: BridgeService, health and
// reflection (v1 and v1alpha, so grpcurl works without proto files), the
// message size limit, authentication as a call's headers arrive, before
// its message is read, and a bound on its metadata (preauth.go),
// keepalive for long quiet streams, a recovery
// interceptor that turns a handler panic into INTERNAL without a stack
// trace (the stack goes to the log), and one log line per finished call
// (no payloads; callFields says what it carries), health and reflection
// excepted, and skipped altogether when the Logger drops Info (its fields
// cost about 8% of a trivial call's throughput). Its Stop waits for the
// handlers it cancels. opts come last and may override.
func (s *Service) NewGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	unary, stream := s.interceptors()
	all := append(append(s.ServerOptions(), s.transportOptions()...), // preauth.go
		// Stop waits for the handlers it cancels, so that the calls they
		// abandon are cancelled on the children before Close closes
		// their stdin.
		grpc.WaitForHandlers(true),
		// Handlers run on reused goroutines, whose stacks have already
		// grown to what a call needs, instead of a new goroutine per call
		// that grows its stack on every call (docs/performance.md). Beyond
		// streamWorkers handlers at once (long-lived streams hold theirs),
		// grpc-go starts goroutines as before.
		grpc.NumStreamWorkers(streamWorkers),
		apiwire.Codec(), // invalid UTF-8 is bad input, not INTERNAL
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinTime, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
	)
	if tp := s.cfg.TracerProvider; tp != nil {
		// A server span per RPC, health checks excepted, continuing the
		// caller's trace from the traceparent in its metadata.
		all = append(all, grpc.StatsHandler(otelgrpc.NewServerHandler(
			otelgrpc.WithTracerProvider(tp),
			otelgrpc.WithPropagators(tracemeta.Propagator),
			otelgrpc.WithMeterProvider(noop.NewMeterProvider()),
			otelgrpc.WithFilter(filters.Not(filters.HealthCheck())),
		)))
	}
	gs := grpc.NewServer(append(all, opts...)...)
	s.Register(gs)
	s.metrics.initialize(gs)
	if !s.cfg.DisableReflection {
		reflection.Register(gs)
	}
	return gs
}
