package apiwire

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The codec and the interceptors on a real grpc.Server, over bufconn, as
// the bridge installs them: a client that sends bytes no proto library
// would (invalid UTF-8 in a string field) gets INVALID_ARGUMENT naming
// the field, spelt as its language spells it, and the handler never runs.

// wireService is a BridgeService whose CallTool answers the tool's name
// (or fails with fail) and whose Connect echoes each message (a message
// "fail" ends the stream with fail). calls counts what reached it.
type wireService struct {
	mcpbridgev1.UnimplementedBridgeServiceServer
	calls atomic.Int32
	fail  error
}

func (s *wireService) CallTool(_ context.Context, req *mcpbridgev1.CallToolRequest) (*mcpbridgev1.CallToolResponse, error) {
	s.calls.Add(1)
	if s.fail != nil {
		return nil, s.fail
	}
	return &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{
		{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: req.GetName()}}},
	}}, nil
}

func (s *wireService) Connect(stream mcpbridgev1.BridgeService_ConnectServer) error {
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		s.calls.Add(1)
		if m.GetMessageJson() == "fail" {
			return s.fail
		}
		if err := stream.Send(&mcpbridgev1.ConnectResponse{MessageJson: m.GetMessageJson()}); err != nil {
			return err
		}
	}
}

// rawCodec sends a []byte as it is (bytes a proto library would refuse to
// marshal) and anything else as proto; it decodes answers as proto.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) ([]byte, error) {
	if b, ok := v.([]byte); ok {
		return b, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (rawCodec) Unmarshal(data []byte, v any) error { return proto.Unmarshal(data, v.(proto.Message)) }

// serveWire starts a grpc.Server with the codec and the interceptors in
// the bridge's order (respelling outside the UTF-8 refusal) and returns a
// connection to it whose user-agent starts with userAgent ("" for
// grpc-go's own).
func serveWire(t *testing.T, svc *wireService, userAgent string) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(Codec(),
		grpc.ChainUnaryInterceptor(RespellUnary, UTF8Unary),
		grpc.ChainStreamInterceptor(RespellStream, UTF8Stream))
	mcpbridgev1.RegisterBridgeServiceServer(srv, svc)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
	}
	if userAgent != "" {
		opts = append(opts, grpc.WithUserAgent(userAgent))
	}
	conn, err := grpc.NewClient("passthrough:///bufconn", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return conn
}

// field appends a length-delimited field holding b, as is.
func field(out []byte, num protowire.Number, b string) []byte {
	out = protowire.AppendTag(out, num, protowire.BytesType)
	return protowire.AppendString(out, b)
}

func callTool(ctx context.Context, conn *grpc.ClientConn, raw []byte) (*mcpbridgev1.CallToolResponse, error) {
	var resp mcpbridgev1.CallToolResponse
	err := conn.Invoke(ctx, mcpbridgev1.BridgeService_CallTool_FullMethodName, raw, &resp, grpc.ForceCodec(rawCodec{}))
	return &resp, err
}

// badRequest is the status's one field violation, and its JsonRpcError.
func badRequest(t *testing.T, err error) (*errdetails.BadRequest_FieldViolation, *mcpbridgev1.JsonRpcError, *errdetails.ErrorInfo) {
	t.Helper()
	st := status.Convert(err)
	var fv *errdetails.BadRequest_FieldViolation
	var je *mcpbridgev1.JsonRpcError
	var ei *errdetails.ErrorInfo
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			if n := len(d.GetFieldViolations()); n != 1 {
				t.Fatalf("%d field violations, want 1: %v", n, d)
			}
			fv = d.GetFieldViolations()[0]
		case *mcpbridgev1.JsonRpcError:
			je = d
		case *errdetails.ErrorInfo:
			ei = d
		}
	}
	if fv == nil || je == nil || ei == nil {
		t.Fatalf("status %v lacks a BadRequest, JsonRpcError or ErrorInfo: %v", st.Code(), st.Details())
	}
	return fv, je, ei
}

// TestInvalidUTF8Unary: a unary request with invalid UTF-8 in a string
// field, top-level or nested, is INVALID_ARGUMENT naming its first bad
// field (reason INVALID_UTF8, ErrorInfo INVALID_INPUT) and never reaches
// the handler; a valid one does, and bytes that do not parse keep the
// codec's own error.
func TestInvalidUTF8Unary(t *testing.T) {
	svc := &wireService{}
	conn := serveWire(t, svc, "grpc-python/1.60.0") // proto names: the fields as the proto spells them
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A valid request, sent as raw bytes too, reaches the handler whole.
	resp, err := callTool(ctx, conn, field(field(nil, 1, "s"), 2, "échő"))
	if err != nil {
		t.Fatalf("a valid request: %v", err)
	}
	if got := resp.GetContent()[0].GetText().GetText(); got != "échő" {
		t.Errorf("the handler saw the name %q, want %q", got, "échő")
	}
	if n := svc.calls.Load(); n != 1 {
		t.Fatalf("handler calls after a valid request = %d, want 1", n)
	}

	// A Struct value: arguments → the fields map's entry → its Value's string_value.
	value := field(nil, 3, "v\xff")
	entry := field(field(nil, 1, "k"), 2, string(value))
	args := field(nil, 1, string(entry))
	for _, tc := range []struct {
		name  string
		raw   []byte
		field string
	}{
		{"name", field(field(nil, 1, "s"), 2, "ec\xffho"), "name"},
		{"first of two", field(field(nil, 6, "state\xfe"), 2, "n\xff"), "request_state"},
		{"nested", field(field(nil, 2, "ok"), 3, string(args)), "arguments.fields.value.string_value"},
		{"map key", field(nil, 3, string(field(nil, 1, string(field(nil, 1, "k\xc0"))))), "arguments.fields.key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := callTool(ctx, conn, tc.raw)
			if code := status.Code(err); code != codes.InvalidArgument {
				t.Fatalf("code = %v (%v), want InvalidArgument", code, err)
			}
			fv, je, ei := badRequest(t, err)
			if fv.GetField() != tc.field || fv.GetReason() != convert.ReasonInvalidUTF8 {
				t.Errorf("field violation = %q %q, want %q %q", fv.GetField(), fv.GetReason(), tc.field, convert.ReasonInvalidUTF8)
			}
			want := tc.field + " is not valid UTF-8"
			if msg := status.Convert(err).Message(); msg != want || je.GetMessage() != want || fv.GetDescription() != want {
				t.Errorf("messages = %q, %q, %q; want %q", msg, je.GetMessage(), fv.GetDescription(), want)
			}
			if ei.GetReason() != rpcerr.ReasonInvalidInput || ei.GetMetadata()["method"] != "CallTool" {
				t.Errorf("ErrorInfo = %v, want INVALID_INPUT of CallTool", ei)
			}
		})
	}
	if n := svc.calls.Load(); n != 1 {
		t.Errorf("handler calls = %d: a request with invalid UTF-8 reached it", n)
	}

	// Invalid UTF-8 followed by bytes that do not parse: nothing to repair,
	// the codec's own error stands (not INVALID_ARGUMENT).
	trunc := append(field(nil, 2, "n\xff"), byte(protowire.EncodeTag(6, protowire.BytesType)), 9, 'x')
	if _, err := callTool(ctx, conn, trunc); status.Code(err) == codes.InvalidArgument || err == nil {
		t.Errorf("a request that does not parse: %v, want the codec's own error", err)
	}
	// Bytes that do not parse at all: the codec's error, untouched.
	if _, err := callTool(ctx, conn, []byte{0xff, 0xff}); err == nil || status.Code(err) == codes.InvalidArgument {
		t.Errorf("garbage: %v, want the codec's own error", err)
	}
	if n := svc.calls.Load(); n != 1 {
		t.Errorf("handler calls = %d after requests that do not parse", n)
	}
}

// TestInvalidUTF8Stream: on a stream, a message with invalid UTF-8 ends
// the stream INVALID_ARGUMENT naming the field, spelt as the caller's
// language spells it (grpc-go: Pascal case); the messages before it were
// served.
func TestInvalidUTF8Stream(t *testing.T) {
	svc := &wireService{}
	conn := serveWire(t, svc, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true},
		mcpbridgev1.BridgeService_Connect_FullMethodName, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.SendMsg(field(nil, 2, `{"ok":"ü"}`)); err != nil {
		t.Fatal(err)
	}
	var resp mcpbridgev1.ConnectResponse
	if err := stream.RecvMsg(&resp); err != nil || resp.GetMessageJson() != `{"ok":"ü"}` {
		t.Fatalf("the valid message's echo = %q, %v", resp.GetMessageJson(), err)
	}
	if err := stream.SendMsg(field(field(nil, 1, "s"), 2, "{\"bad\":\"\xff\"}")); err != nil {
		t.Fatal(err)
	}
	err = stream.RecvMsg(&resp)
	if code := status.Code(err); code != codes.InvalidArgument {
		t.Fatalf("after the bad message: %v, want InvalidArgument", err)
	}
	fv, je, ei := badRequest(t, err)
	const want = "MessageJson is not valid UTF-8"
	if fv.GetField() != "MessageJson" || status.Convert(err).Message() != want || je.GetMessage() != want || fv.GetDescription() != want {
		t.Errorf("field %q, messages %q %q %q; want MessageJson and %q", fv.GetField(), status.Convert(err).Message(), je.GetMessage(), fv.GetDescription(), want)
	}
	if ei.GetMetadata()["method"] != "Connect" {
		t.Errorf("ErrorInfo's method = %q, want Connect", ei.GetMetadata()["method"])
	}
	if n := svc.calls.Load(); n != 1 {
		t.Errorf("handler saw %d messages, want only the valid one", n)
	}
}

// TestRespellOnTheWire: a handler's field violation reaches each caller
// spelt as its gRPC library's language spells it, in the status message,
// the field violation and the JsonRpcError; on a stream too. Errors
// without a field violation pass unchanged.
func TestRespellOnTheWire(t *testing.T) {
	fail := rpcerr.ToStatus("s", "CallTool", rpcerr.InvalidField("s", "CallTool", "input_responses.value_json",
		convert.ReasonInvalidJSON, " is not JSON"))
	for _, tc := range []struct {
		userAgent, field string
	}{
		{"", "InputResponses.ValueJson"},                    // grpc-go
		{"grpc-node-js/1.12.0", "inputResponses.valueJson"}, // before grpc-go's own product
		{"grpcurl/v1.9.4", "inputResponses.valueJson"},
		{"grpc-python/1.60.0", "input_responses.value_json"},
		{"my-app/2.0", "InputResponses.ValueJson"}, // an application's product decides nothing; grpc-go's does
	} {
		t.Run(tc.userAgent, func(t *testing.T) {
			svc := &wireService{fail: fail}
			conn := serveWire(t, svc, tc.userAgent)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			bc := mcpbridgev1.NewBridgeServiceClient(conn)
			_, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "t"})
			want := tc.field + " is not JSON"
			fv, je, _ := badRequest(t, err)
			if status.Code(err) != codes.InvalidArgument || status.Convert(err).Message() != want || fv.GetField() != tc.field ||
				fv.GetDescription() != want || je.GetMessage() != want || fv.GetReason() != convert.ReasonInvalidJSON {
				t.Errorf("unary: %v; field %q %q, JSON-RPC %q; want %q", err, fv.GetField(), fv.GetDescription(), je.GetMessage(), want)
			}

			stream, err := bc.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.Send(&mcpbridgev1.ConnectRequest{MessageJson: "fail"}); err != nil {
				t.Fatal(err)
			}
			_, err = stream.Recv()
			fv, je, _ = badRequest(t, err)
			if status.Convert(err).Message() != want || fv.GetField() != tc.field || je.GetMessage() != want {
				t.Errorf("stream: %v; field %q, JSON-RPC %q; want %q", err, fv.GetField(), je.GetMessage(), want)
			}
		})
	}

	// An error without a field violation reaches a Go caller as it was.
	plain := status.Error(codes.NotFound, "params_json: no such thing")
	conn := serveWire(t, &wireService{fail: plain}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := mcpbridgev1.NewBridgeServiceClient(conn).CallTool(ctx, &mcpbridgev1.CallToolRequest{})
	if status.Code(err) != codes.NotFound || status.Convert(err).Message() != "params_json: no such thing" {
		t.Errorf("a status without a field violation became %v", err)
	}
}

// TestRespellFields: which messages are respelt (a field named at the
// start, followed by nothing, a space, '.' or ':') and which errors pass
// through as the same value.
func TestRespellFields(t *testing.T) {
	goCaller := metadata.NewIncomingContext(context.Background(), metadata.Pairs("user-agent", "grpc-go/1.85.0"))
	protoCaller := metadata.NewIncomingContext(context.Background(), metadata.Pairs("user-agent", "grpc-ruby/1.0"))
	withField := func(msg string) error {
		st, err := status.New(codes.InvalidArgument, msg).WithDetails(&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
			{Field: "params_json", Description: msg},
		}})
		if err != nil {
			t.Fatal(err)
		}
		return st.Err()
	}
	for _, tc := range []struct{ msg, want string }{
		{"params_json", "ParamsJson"},
		{"params_json is not JSON", "ParamsJson is not JSON"},
		{"params_json: bad", "ParamsJson: bad"},
		{"params_json.x bad", "ParamsJson.x bad"},
		{"params_jsonx is other", "params_jsonx is other"},
		{"the params_json", "the params_json"},
	} {
		err := respellFields(goCaller, withField(tc.msg))
		st := status.Convert(err)
		if st.Message() != tc.want {
			t.Errorf("respell %q = %q, want %q", tc.msg, st.Message(), tc.want)
		}
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok {
				if v := br.GetFieldViolations()[0]; v.GetField() != "ParamsJson" || v.GetDescription() != tc.want {
					t.Errorf("respell %q: violation %q %q", tc.msg, v.GetField(), v.GetDescription())
				}
			}
		}
	}
	same := []error{nil, errors.New("not a status"), status.Error(codes.Internal, "params_json"),
		status.New(codes.InvalidArgument, "params_json").Err()}
	for _, err := range same {
		if got := respellFields(goCaller, err); got != err {
			t.Errorf("respellFields(%v) = %v, want the same error", err, got)
		}
	}
	if err := withField("params_json is bad"); respellFields(protoCaller, err) != err {
		t.Errorf("a proto-name caller's error was changed")
	}
	// A BadRequest without violations is no field error either.
	st, _ := status.New(codes.InvalidArgument, "params_json").WithDetails(&errdetails.BadRequest{})
	if err := st.Err(); respellFields(goCaller, err) != err {
		t.Errorf("a BadRequest without violations was respelt")
	}
}

// TestCallerStyle: the first product of the user-agent that names a gRPC
// library decides; none, or no metadata, is the proto spelling.
func TestCallerStyle(t *testing.T) {
	for _, tc := range []struct {
		ua   []string
		want Style
	}{
		{nil, StyleProto},
		{[]string{"curl/8"}, StyleProto},
		{[]string{"grpcurl/v1.9.4 grpc-go/1.78.0"}, StyleJSON},
		{[]string{"grpc-python/1.51.1 grpc-c/29.0.0"}, StyleProto},
		{[]string{"grpc-java-netty/1.60"}, StyleJSON},
		{[]string{"connect-es/1.0"}, StyleJSON},
		{[]string{"grpc-dotnet/2.0"}, StylePascal},
		{[]string{"app/1", "grpc-node/1.0"}, StyleJSON},
	} {
		ctx := context.Background()
		if tc.ua != nil {
			md := metadata.MD{}
			md.Append("user-agent", tc.ua...)
			ctx = metadata.NewIncomingContext(ctx, md)
		}
		if got := callerStyle(ctx); got != tc.want {
			t.Errorf("callerStyle(%q) = %v, want %v", tc.ua, got, tc.want)
		}
	}
}

// TestBadUTF8Mark: the mark is read and removed; a message without one,
// or a value that is not a message, names no field, and other unknown
// fields are left alone.
func TestBadUTF8Mark(t *testing.T) {
	if f := badUTF8("not a message"); f != "" {
		t.Errorf("badUTF8(string) = %q", f)
	}
	var m mcpbridgev1.PingRequest
	other := field(nil, 1000, "kept")
	if err := proto.Unmarshal(other, &m); err != nil {
		t.Fatal(err)
	}
	if f := badUTF8(&m); f != "" || string(m.ProtoReflect().GetUnknown()) != string(other) {
		t.Errorf("an unknown field that is no mark: %q, unknown %q", f, m.ProtoReflect().GetUnknown())
	}
	if err := proto.Unmarshal(field(other, badUTF8Field, "server"), &m); err != nil {
		t.Fatal(err)
	}
	if f := badUTF8(&m); f != "server" || len(m.ProtoReflect().GetUnknown()) != 0 {
		t.Errorf("badUTF8 = %q, unknown left %q; want server and none", f, m.ProtoReflect().GetUnknown())
	}
	if f := badUTF8(&m); f != "" {
		t.Errorf("the mark read twice: %q", f)
	}
	// A mark that does not parse names nothing.
	m.ProtoReflect().SetUnknown([]byte{0xff})
	if f := badUTF8(&m); f != "" {
		t.Errorf("an unknown field that does not parse: %q", f)
	}
	if !strings.Contains(refuseBadUTF8("/mcpbridge.v1.BridgeService/Ping", "server").Error(), "server is not valid UTF-8") {
		t.Errorf("refuseBadUTF8 does not name the field")
	}
}

// TestUnmarshal: the decoding of the doors that are not grpc-go: a valid
// request as proto.Unmarshal gives it, one with invalid UTF-8 repaired and
// marked with the field the interceptors name, bytes that do not parse an
// error.
func TestUnmarshal(t *testing.T) {
	valid, err := proto.Marshal(&mcpbridgev1.CallToolRequest{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	var got mcpbridgev1.CallToolRequest
	if err := Unmarshal(valid, &got); err != nil || got.GetName() != "echo" || badUTF8(&got) != "" {
		t.Errorf("Unmarshal of a valid request = %v, %v (mark %q)", &got, err, badUTF8(&got))
	}
	bad := protowire.AppendString(protowire.AppendTag(nil, 2, protowire.BytesType), "caf\xe9")
	got.Reset()
	if err := Unmarshal(bad, &got); err != nil || badUTF8(&got) != "name" || got.GetName() != "caf\uFFFD" {
		t.Errorf("Unmarshal with invalid UTF-8 = %q, %v (mark %q); want it repaired and marked name", got.GetName(), err, badUTF8(&got))
	}
	if err := Unmarshal([]byte{0xff, 0xff}, &got); err == nil {
		t.Error("Unmarshal of bytes that do not parse: no error")
	}
}
