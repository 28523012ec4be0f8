package inproc

import (
	"context"
	"io"
	"slices"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// service answers Ping with the method grpc.Method finds in its context,
// and answers CallToolStream twice, a tool error when the tool is "fail".
type service struct {
	mcpbridgev1.UnimplementedBridgeServiceServer
}

func (service) Ping(ctx context.Context, req *mcpbridgev1.PingRequest) (*mcpbridgev1.PingResponse, error) {
	m, _ := grpc.Method(ctx)
	return &mcpbridgev1.PingResponse{Method: req.GetServer() + " " + m}, nil
}

func (service) CallToolStream(req *mcpbridgev1.CallToolStreamRequest, s grpc.ServerStreamingServer[mcpbridgev1.CallToolStreamResponse]) error {
	for range 2 {
		res := &mcpbridgev1.CallToolStreamResponse{Event: &mcpbridgev1.CallToolStreamResponse_Result{
			Result: &mcpbridgev1.CallToolResponse{IsError: req.GetName() == "fail"}}}
		if err := s.Send(res); err != nil {
			return err
		}
	}
	return nil
}

// trace records the interceptors' order of entry.
type trace struct{ seen []string }

func (t *trace) unary(name string) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		t.seen = append(t.seen, name+" "+info.FullMethod)
		return handler(ctx, req)
	}
}

func (t *trace) stream(name string) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		t.seen = append(t.seen, name+" "+info.FullMethod)
		return handler(srv, ss)
	}
}

// TestUnary: a unary call runs the interceptors in order, the first
// outermost, on the caller's request, with grpc.Method answering in the
// handler; an interceptor that refuses ends the call there; an unknown
// method is UNIMPLEMENTED.
func TestUnary(t *testing.T) {
	tr := &trace{}
	refuse := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if r, ok := req.(*mcpbridgev1.PingRequest); ok && r.GetServer() == "refused" {
			return nil, status.Error(codes.PermissionDenied, "no")
		}
		return handler(ctx, req)
	}
	s := New(&mcpbridgev1.BridgeService_ServiceDesc, service{}, []grpc.UnaryServerInterceptor{tr.unary("a"), refuse, tr.unary("b")}, nil)
	const ping = "/mcpbridge.v1.BridgeService/Ping"
	res, err := s.Unary(t.Context(), ping, &mcpbridgev1.PingRequest{Server: "demo"})
	if err != nil || res.(*mcpbridgev1.PingResponse).GetMethod() != "demo "+ping {
		t.Errorf("Ping = %v, %v; want the request's server and the method", res, err)
	}
	if want := []string{"a " + ping, "b " + ping}; !slices.Equal(tr.seen, want) {
		t.Errorf("interceptors saw %q, want %q", tr.seen, want)
	}
	tr.seen = nil
	if _, err := s.Unary(t.Context(), ping, &mcpbridgev1.PingRequest{Server: "refused"}); status.Code(err) != codes.PermissionDenied || len(tr.seen) != 1 {
		t.Errorf("refused Ping = %v after %q; want PERMISSION_DENIED from the second interceptor", err, tr.seen)
	}
	if _, err := s.Unary(t.Context(), "/mcpbridge.v1.BridgeService/Nothing", &mcpbridgev1.PingRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("unknown method: %v, want UNIMPLEMENTED", err)
	}
	if _, err := s.Unary(t.Context(), "/mcpbridge.v1.BridgeService/GetServer", &mcpbridgev1.GetServerRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("a method the service leaves out: %v, want its UNIMPLEMENTED", err)
	}
}

// fakeStream is a server stream with one request and a record of what is
// sent.
type fakeStream struct {
	grpc.ServerStream
	ctx  context.Context
	req  *mcpbridgev1.CallToolStreamRequest
	sent []bool
}

func (f *fakeStream) Context() context.Context     { return f.ctx }
func (f *fakeStream) SetHeader(metadata.MD) error  { return nil }
func (f *fakeStream) SendHeader(metadata.MD) error { return nil }
func (f *fakeStream) SetTrailer(metadata.MD)       {}
func (f *fakeStream) SendMsg(m any) error {
	f.sent = append(f.sent, m.(*mcpbridgev1.CallToolStreamResponse).GetResult().GetIsError())
	return nil
}

func (f *fakeStream) RecvMsg(m any) error {
	if f.req == nil {
		return io.EOF
	}
	m.(*mcpbridgev1.CallToolStreamRequest).Name = f.req.GetName()
	f.req = nil
	return nil
}

// TestStream: a streaming call runs the stream interceptors in order with
// the method's info, and the handler reads and sends on the caller's
// stream, whose context knows the method.
func TestStream(t *testing.T) {
	tr := &trace{}
	var method string
	probe := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		method, _ = grpc.Method(ss.Context())
		if !info.IsServerStream || info.IsClientStream {
			t.Errorf("info %+v, want a server stream", info)
		}
		return handler(srv, ss)
	}
	s := New(&mcpbridgev1.BridgeService_ServiceDesc, service{}, nil, []grpc.StreamServerInterceptor{tr.stream("a"), probe, tr.stream("b")})
	const m = "/mcpbridge.v1.BridgeService/CallToolStream"
	fs := &fakeStream{ctx: t.Context(), req: &mcpbridgev1.CallToolStreamRequest{Name: "fail"}}
	if err := s.Stream(m, fs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fs.sent, []bool{true, true}) || method != m || !slices.Equal(tr.seen, []string{"a " + m, "b " + m}) {
		t.Errorf("sent %v, method %q, interceptors %q; want two tool errors, %s, a then b", fs.sent, method, tr.seen, m)
	}
	if err := s.Stream("/mcpbridge.v1.BridgeService/Nothing", fs); status.Code(err) != codes.Unimplemented {
		t.Errorf("unknown stream: %v, want UNIMPLEMENTED", err)
	}
}
