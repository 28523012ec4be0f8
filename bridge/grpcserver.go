package bridge

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
)

// Keepalive (docs/operations.md, "Keepalive"): Subscribe streams may stay
// quiet for hours behind load balancers and NATs that drop idle
// connections, so the server pings a connection after keepaliveTime without
// traffic and closes it when the ping goes unanswered for keepaliveTimeout.
// Clients may ping as often as every keepaliveMinTime, also with no call
// open, without being sent away (grpc-go's default would GOAWAY a client
// pinging more often than every 5 minutes).
const (
	keepaliveTime    = time.Minute
	keepaliveTimeout = 20 * time.Second
	keepaliveMinTime = 10 * time.Second
)

// NewGRPCServer returns a grpc.Server serving s: BridgeService, health and
// reflection (v1 and v1alpha, so grpcurl works without proto files), the
// message size limit, keepalive for long quiet streams, a recovery
// interceptor that turns a handler panic into INTERNAL without a stack
// trace (the stack goes to the log), and one log line per finished call
// (no payloads), health and reflection excepted, and skipped altogether
// when the Logger drops Info (its fields cost about 8% of a trivial
// call's throughput). Its Stop waits for the handlers it cancels. opts
// come last and may override.
func (s *Service) NewGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	log := logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		s.cfg.Logger.Log(ctx, slog.Level(lvl), msg, fields...)
	})
	logged := selector.MatchFunc(func(ctx context.Context, c interceptors.CallMeta) bool {
		return c.Service == "mcpbridge.v1.BridgeService" && s.cfg.Logger.Enabled(ctx, slog.LevelInfo)
	})
	rec := recovery.WithRecoveryHandlerContext(func(ctx context.Context, p any) error {
		s.cfg.Logger.ErrorContext(ctx, "mcpbridge: handler panicked", "panic", p, "stack", string(debug.Stack()))
		return status.Error(codes.Internal, "internal error")
	})
	logOpts := []logging.Option{logging.WithLogOnEvents(logging.FinishCall)}
	all := append(s.ServerOptions(),
		// Stop waits for the handlers it cancels, so that the calls they
		// abandon are cancelled on the children before Close closes
		// their stdin.
		grpc.WaitForHandlers(true),
		newUTF8Codec(), // invalid UTF-8 is bad input, not INTERNAL (codec.go)
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinTime, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(
			recovery.UnaryServerInterceptor(rec),
			utf8Unary,
			selector.UnaryServerInterceptor(logging.UnaryServerInterceptor(log, logOpts...), logged),
		),
		grpc.ChainStreamInterceptor(
			recovery.StreamServerInterceptor(rec),
			utf8Stream,
			selector.StreamServerInterceptor(logging.StreamServerInterceptor(log, logOpts...), logged),
		),
	)
	gs := grpc.NewServer(append(all, opts...)...)
	s.Register(gs)
	reflection.Register(gs)
	return gs
}
