//lint:file-ignore SA1019 the v1alpha reflection service is deprecated, and still what older grpcurl and other tools ask for, so the tests call it

package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
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

// jsonLines is the io.Writer of a slog JSON handler that adds each record,
// which the handler writes at once, to Lines.
type jsonLines struct{ *testkit.Lines }

func (w jsonLines) Write(p []byte) (int, error) {
	w.Add(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// A finished call's log line says which server, MCP method and tool,
// prompt or resource it was for, with its code and duration, from the
// request (unary calls and the first message of a stream) or the
// mcp-server metadata; never an argument, params_json, message_json or
// another metadata value.
func TestGRPCServerCallLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	logs := &testkit.Lines{}
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "files", time.Second)},
		Logger: slog.New(slog.NewJSONHandler(jsonLines{logs}, nil))})
	bc := mcpbridgev1.NewBridgeServiceClient(loopbackBridgeWith(t, svc, nil))

	const secret, token = "s3cret-argument-value", "t0ken-in-metadata"
	mdCtx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	viaMetadata := metadata.AppendToOutgoingContext(mdCtx, ServerMetadataKey, "files")

	// finished returns the parsed log line of the finished call of method.
	finished := func(t *testing.T, method string) map[string]any {
		t.Helper()
		line := logs.WaitFor(ctx, t, `"msg":"finished call"`, `"grpc.method":"`+method+`"`)
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		return rec
	}
	check := func(t *testing.T, rec map[string]any, want map[string]any) {
		t.Helper()
		for k, v := range want {
			got, ok := rec[k]
			switch {
			case v == nil && ok:
				t.Errorf("%s = %v; want none", k, got)
			case v != nil && got != v:
				t.Errorf("%s = %v; want %v", k, got, v)
			}
		}
		if ms, ok := rec["grpc.time_ms"].(string); !ok {
			t.Errorf("grpc.time_ms = %v; want the duration", rec["grpc.time_ms"])
		} else if d, err := strconv.ParseFloat(ms, 64); err != nil || d < 0 {
			t.Errorf("grpc.time_ms = %q; want a duration in milliseconds", ms)
		}
	}

	t.Run("CallTool", func(t *testing.T) {
		res, err := bc.CallTool(mdCtx, &mcpbridgev1.CallToolRequest{Server: "files", Name: "echo",
			Arguments: mustStruct(t, map[string]any{"message": secret})})
		if err != nil || !strings.Contains(res.String(), secret) {
			t.Fatalf("CallTool(echo) = %v, %v; want the echo", res, err)
		}
		check(t, finished(t, "CallTool"), map[string]any{
			"server": "files", "mcp.method": "tools/call", "mcp.name": "echo", "grpc.code": "OK"})
	})
	t.Run("CallToolStream", func(t *testing.T) { // the server from the metadata, the name from the first message
		s, err := bc.CallToolStream(viaMetadata, &mcpbridgev1.CallToolStreamRequest{Name: "echo",
			Arguments: mustStruct(t, map[string]any{"message": secret})})
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = s.Recv()
		}
		if !errors.Is(err, io.EOF) {
			t.Fatalf("CallToolStream(echo): %v", err)
		}
		check(t, finished(t, "CallToolStream"), map[string]any{
			"server": "files", "mcp.method": "tools/call", "mcp.name": "echo", "grpc.code": "OK"})
	})
	t.Run("Call", func(t *testing.T) { // the MCP method from the request, the tool name in params_json unread
		_, err := bc.Call(mdCtx, &mcpbridgev1.CallRequest{Method: "tools/call",
			ParamsJson: `{"name":"echo","arguments":{"message":"` + secret + `"}}`})
		if err != nil {
			t.Fatal(err)
		}
		check(t, finished(t, "Call"), map[string]any{
			"server": "files", "mcp.method": "tools/call", "mcp.name": nil, "grpc.code": "OK"})
	})
	t.Run("ReadResource", func(t *testing.T) { // the fixture has no resources: a failed call is logged too
		_, err := bc.ReadResource(mdCtx, &mcpbridgev1.ReadResourceRequest{Uri: "fixture://nothing"})
		code := status.Code(err)
		if code == codes.OK {
			t.Fatalf("ReadResource(fixture://nothing) succeeded; want an error")
		}
		check(t, finished(t, "ReadResource"), map[string]any{
			"server": "files", "mcp.method": "resources/read", "mcp.name": "fixture://nothing", "grpc.code": code.String()})
	})
	t.Run("Connect", func(t *testing.T) { // the server from the first message
		st, err := bc.Connect(mdCtx)
		if err != nil {
			t.Fatal(err)
		}
		ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"note":"` + secret + `"}}}`
		if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "files", MessageJson: ping}); err != nil {
			t.Fatal(err)
		}
		if err := st.CloseSend(); err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = st.Recv()
		}
		if !errors.Is(err, io.EOF) {
			t.Fatalf("Connect: %v", err)
		}
		check(t, finished(t, "Connect"), map[string]any{
			"server": "files", "mcp.method": "connect", "mcp.name": nil, "grpc.code": "OK"})
	})
	t.Run("GetServer", func(t *testing.T) { // about a server, no MCP method
		if _, err := bc.GetServer(mdCtx, &mcpbridgev1.GetServerRequest{Server: "files"}); err != nil {
			t.Fatal(err)
		}
		check(t, finished(t, "GetServer"), map[string]any{
			"server": "files", "mcp.method": nil, "mcp.name": nil, "grpc.code": "OK"})
	})
	t.Run("ListServers", func(t *testing.T) { // about no server and no MCP method
		if _, err := bc.ListServers(mdCtx, &mcpbridgev1.ListServersRequest{}); err != nil {
			t.Fatal(err)
		}
		check(t, finished(t, "ListServers"), map[string]any{
			"server": nil, "mcp.method": nil, "mcp.name": nil, "grpc.code": "OK"})
	})

	if all := logs.String(); strings.Contains(all, secret) || strings.Contains(all, token) {
		t.Errorf("the log holds an argument or a metadata value:\n%s", all)
	}
}
