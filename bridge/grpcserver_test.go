//lint:file-ignore SA1019 the v1alpha reflection service is deprecated, and still what older grpcurl and other tools ask for, so the tests call it

package bridge

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// panicDesc is a one-method service whose handler panics, registered next
// to BridgeService to exercise the server's interceptors.
var panicDesc = grpc.ServiceDesc{
	ServiceName: "mcpbridge.test.Panic",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Boom",
		Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
			in := new(emptypb.Empty)
			if err := dec(in); err != nil {
				return nil, err
			}
			boom := func(context.Context, any) (any, error) {
				panic("boom at /home/alice/secret.go:12")
			}
			return interceptor(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: "/mcpbridge.test.Panic/Boom"}, boom)
		},
	}},
}

// NewGRPCServer: a panicking handler becomes INTERNAL without its value
// or stack (which go to the log); BridgeService calls are logged once each
// when they finish, without payloads; health and reflection (v1 and
// v1alpha) work and are not logged.
func TestGRPCServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	logs := &testkit.Lines{}
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "", time.Second)}, Logger: logs.Logger()})
	conn := loopbackBridgeWith(t, svc, func(gs *grpc.Server) { gs.RegisterService(&panicDesc, struct{}{}) })

	err := conn.Invoke(ctx, "/mcpbridge.test.Panic/Boom", &emptypb.Empty{}, &emptypb.Empty{})
	if st := status.Convert(err); st.Code() != codes.Internal || st.Message() != "internal error" || len(st.Details()) != 0 {
		t.Errorf("a panicking handler = %v %q %v, want INTERNAL \"internal error\" and nothing else", st.Code(), st.Message(), st.Details())
	}
	logs.WaitFor(ctx, t, "mcpbridge: handler panicked", "boom at /home/alice/secret.go:12", "stack=goroutine")

	// A call refused at the bridge: no child involved, one log line.
	const payload = `["not","an","object"]`
	_, err = mcpbridgev1.NewBridgeServiceClient(conn).Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/list", ParamsJson: payload})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument {
		t.Errorf("Call with array params = %v, want INVALID_ARGUMENT", err)
	}
	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: HealthService}); err != nil {
		t.Errorf("health Check: %v", err)
	}
	for name, list := range map[string]func() ([]string, error){
		"v1": func() ([]string, error) {
			s, err := reflectionv1.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
			if err != nil {
				return nil, err
			}
			defer s.CloseSend()
			if err := s.Send(&reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_ListServices{}}); err != nil {
				return nil, err
			}
			r, err := s.Recv()
			var names []string
			for _, svc := range r.GetListServicesResponse().GetService() {
				names = append(names, svc.GetName())
			}
			return names, err
		},
		"v1alpha": func() ([]string, error) {
			s, err := reflectionv1alpha.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
			if err != nil {
				return nil, err
			}
			defer s.CloseSend()
			if err := s.Send(&reflectionv1alpha.ServerReflectionRequest{MessageRequest: &reflectionv1alpha.ServerReflectionRequest_ListServices{}}); err != nil {
				return nil, err
			}
			r, err := s.Recv()
			var names []string
			for _, svc := range r.GetListServicesResponse().GetService() {
				names = append(names, svc.GetName())
			}
			return names, err
		},
	} {
		names, err := list()
		if err != nil || !strings.Contains(strings.Join(names, " "), "mcpbridge.v1.BridgeService") || !strings.Contains(strings.Join(names, " "), "grpc.health.v1.Health") {
			t.Errorf("reflection %s ListServices = %v, %v; want BridgeService and Health", name, names, err)
		}
	}

	line := logs.WaitFor(ctx, t, "finished call", "grpc.method=Call")
	if !strings.Contains(line, "grpc.code=InvalidArgument") || strings.Contains(line, `"not","an"`) {
		t.Errorf("log line of the Call = %q, want its code and no payload", line)
	}
	for _, quiet := range []string{"grpc.health", "grpc.reflection"} {
		if logs.Has("finished call", quiet) {
			t.Errorf("%s calls are logged; want them left out", quiet)
		}
	}
}

// warnOnly drops records below Warn, as mcpbridge serve --log-level warn.
type warnOnly struct{ slog.Handler }

func (h warnOnly) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

// With Info dropped, calls are served and leave no per-call line.
func TestGRPCServerQuietLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	logs := &testkit.Lines{}
	quiet := slog.New(warnOnly{logs.Logger().Handler()})
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "", time.Second)}, Logger: quiet})
	bc := mcpbridgev1.NewBridgeServiceClient(loopbackBridgeWith(t, svc, nil))
	res, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: `{"name":"echo","arguments":{"message":"hi"}}`})
	if err != nil || !strings.Contains(res.GetResultJson(), `"hi"`) {
		t.Fatalf("Call(echo) = %v, %v; want the echo", res, err)
	}
	if logs.Has("finished call") {
		t.Errorf("a finished call was logged with Info dropped")
	}
}
