package httpdoor

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	connectcors "connectrpc.com/cors"
	"github.com/rs/cors"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/internal/apiwire"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/internal/tracemeta"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1/mcpbridgev1connect"
)

// This file is the API over HTTP: connect-go's handlers of BridgeService
// (Connect with JSON or binary protobuf, gRPC-Web, and gRPC) as thin
// adapters that hand each call, in process, to the bridge's own handlers
// behind the gRPC door's interceptors (Calls). A call's context is what a
// gRPC call's would be (apiCaller); its answer and status go back in the
// caller's protocol.

// Calls runs the API's methods in process, behind the interceptors of
// every BridgeService call (package internal/inproc's Server).
type Calls interface {
	// Unary runs a unary method (its full name) on req.
	Unary(ctx context.Context, method string, req any) (any, error)
	// Stream runs a streaming method on ss.
	Stream(method string, ss grpc.ServerStream) error
}

// newAPIHandler serves calls over Connect, gRPC-Web and gRPC, with CORS
// for origins. Messages are bounded as gRPC's are (maxBytes); a POST of
// JSON or binary protobuf to a method's path is a Connect unary call with
// or without Connect-Protocol-Version, so that curl users need not know
// the header.
func newAPIHandler(calls Calls, maxBytes int, tp trace.TracerProvider, origins []string) http.Handler {
	a := &api{calls: calls}
	if tp != nil {
		a.tracer = tp.Tracer("github.com/mcpbridge/mcpbridge/bridge")
	}
	path, h := mcpbridgev1connect.NewBridgeServiceHandler(a, connect.WithCodec(protoCodec{}),
		connect.WithReadMaxBytes(maxBytes), connect.WithSendMaxBytes(maxBytes))
	mux := http.NewServeMux()
	mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(apiCaller(r)))
	}))
	if len(origins) == 0 {
		return mux
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		// Authorization carries bearer tokens and API keys; mcp-session
		// picks a session child.
		AllowedHeaders: append(connectcors.AllowedHeaders(), "Authorization", "Mcp-Session"),
		ExposedHeaders: connectcors.ExposedHeaders(),
		MaxAge:         2 * 60 * 60,
	}).Handler(mux)
}

// protoCodec is connect-go's binary codec with the gRPC door's decoding
// (apiwire.Unmarshal): a request whose strings are not valid UTF-8 is
// repaired and marked, and the interceptors refuse it naming the field,
// as on the gRPC listener.
type protoCodec struct{}

func (protoCodec) Name() string { return "proto" }

func (protoCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", v)
	}
	return proto.Marshal(m)
}

func (protoCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("%T is not a protobuf message", v)
	}
	return apiwire.Unmarshal(data, m)
}

// api is BridgeService as connect-go serves it.
type api struct {
	calls  Calls
	tracer trace.Tracer // nil: no spans
}

// notMetadata are the request headers of the HTTP and RPC protocols
// themselves, which a gRPC call's metadata would not carry either; every
// other header (Authorization, Mcp-Server, Mcp-Session, Traceparent,
// User-Agent, the keys of env_from_metadata) is the call's metadata.
var notMetadata = map[string]bool{
	"accept": true, "accept-encoding": true, "connection": true, "content-encoding": true, "content-length": true,
	"content-type": true, "host": true, "keep-alive": true, "origin": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "x-grpc-web": true, "x-user-agent": true,
}

// apiCaller is the context of r's call of the API: the principal the
// guard found (already in r's context), the request's headers as
// metadata, the client's address and TLS state as its peer, and the door
// it came through.
func apiCaller(r *http.Request) context.Context {
	md := make(metadata.MD, len(r.Header))
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		if notMetadata[lk] || strings.HasPrefix(lk, "connect-") || strings.HasPrefix(lk, "grpc-") || strings.HasPrefix(lk, "access-control-") {
			continue
		}
		md[lk] = v
	}
	ctx := metadata.NewIncomingContext(door.WithVia(r.Context(), door.ViaHTTP), md)
	pr := &peer.Peer{Addr: remoteAddr(r.RemoteAddr)}
	if r.TLS != nil {
		pr.AuthInfo = credentials.TLSInfo{State: *r.TLS, CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}}
	}
	return peer.NewContext(ctx, pr)
}

// call starts a call: when traced, its server span, continuing the caller's trace; end ends the span with the
// call's outcome.
func (a *api) call(ctx context.Context, spec connect.Spec, p connect.Peer, h http.Header) (context.Context, func(error)) {
	if a.tracer == nil {
		return ctx, func(error) {}
	}
	service, method, _ := strings.Cut(strings.TrimPrefix(spec.Procedure, "/"), "/")
	ctx = tracemeta.Propagator.Extract(ctx, propagation.HeaderCarrier(h))
	ctx, span := a.tracer.Start(ctx, strings.TrimPrefix(spec.Procedure, "/"), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("rpc.system", p.Protocol), attribute.String("rpc.service", service), attribute.String("rpc.method", method)))
	return ctx, func(err error) {
		if err != nil {
			code := status.Code(err)
			span.SetAttributes(attribute.Int("rpc.grpc.status_code", int(code)))
			span.SetStatus(otelcodes.Error, code.String())
		}
		span.End()
	}
}

// unary runs a unary call.
func unary[Req, Res any](ctx context.Context, a *api, r *connect.Request[Req]) (*connect.Response[Res], error) {
	ctx, end := a.call(ctx, r.Spec(), r.Peer(), r.Header())
	res, err := a.calls.Unary(ctx, r.Spec().Procedure, r.Msg)
	end(err)
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(res.(*Res)), nil
}

// serverStream runs a call with one request and a stream of answers.
func serverStream[Req, Res any](ctx context.Context, a *api, r *connect.Request[Req], out *connect.ServerStream[Res]) error {
	ctx, end := a.call(ctx, r.Spec(), r.Peer(), r.Header())
	err := a.calls.Stream(r.Spec().Procedure, &stream{ctx: ctx, conn: out.Conn(), first: any(r.Msg).(proto.Message)})
	end(err)
	return toConnect(err)
}

func (a *api) GetServer(ctx context.Context, r *connect.Request[mcpbridgev1.GetServerRequest]) (*connect.Response[mcpbridgev1.GetServerResponse], error) {
	return unary[mcpbridgev1.GetServerRequest, mcpbridgev1.GetServerResponse](ctx, a, r)
}

func (a *api) ListServers(ctx context.Context, r *connect.Request[mcpbridgev1.ListServersRequest]) (*connect.Response[mcpbridgev1.ListServersResponse], error) {
	return unary[mcpbridgev1.ListServersRequest, mcpbridgev1.ListServersResponse](ctx, a, r)
}

func (a *api) ListTools(ctx context.Context, r *connect.Request[mcpbridgev1.ListToolsRequest]) (*connect.Response[mcpbridgev1.ListToolsResponse], error) {
	return unary[mcpbridgev1.ListToolsRequest, mcpbridgev1.ListToolsResponse](ctx, a, r)
}

func (a *api) ListResources(ctx context.Context, r *connect.Request[mcpbridgev1.ListResourcesRequest]) (*connect.Response[mcpbridgev1.ListResourcesResponse], error) {
	return unary[mcpbridgev1.ListResourcesRequest, mcpbridgev1.ListResourcesResponse](ctx, a, r)
}

func (a *api) ListResourceTemplates(ctx context.Context, r *connect.Request[mcpbridgev1.ListResourceTemplatesRequest]) (*connect.Response[mcpbridgev1.ListResourceTemplatesResponse], error) {
	return unary[mcpbridgev1.ListResourceTemplatesRequest, mcpbridgev1.ListResourceTemplatesResponse](ctx, a, r)
}

func (a *api) ListPrompts(ctx context.Context, r *connect.Request[mcpbridgev1.ListPromptsRequest]) (*connect.Response[mcpbridgev1.ListPromptsResponse], error) {
	return unary[mcpbridgev1.ListPromptsRequest, mcpbridgev1.ListPromptsResponse](ctx, a, r)
}

func (a *api) CallTool(ctx context.Context, r *connect.Request[mcpbridgev1.CallToolRequest]) (*connect.Response[mcpbridgev1.CallToolResponse], error) {
	return unary[mcpbridgev1.CallToolRequest, mcpbridgev1.CallToolResponse](ctx, a, r)
}

func (a *api) ReadResource(ctx context.Context, r *connect.Request[mcpbridgev1.ReadResourceRequest]) (*connect.Response[mcpbridgev1.ReadResourceResponse], error) {
	return unary[mcpbridgev1.ReadResourceRequest, mcpbridgev1.ReadResourceResponse](ctx, a, r)
}

func (a *api) GetPrompt(ctx context.Context, r *connect.Request[mcpbridgev1.GetPromptRequest]) (*connect.Response[mcpbridgev1.GetPromptResponse], error) {
	return unary[mcpbridgev1.GetPromptRequest, mcpbridgev1.GetPromptResponse](ctx, a, r)
}

func (a *api) Complete(ctx context.Context, r *connect.Request[mcpbridgev1.CompleteRequest]) (*connect.Response[mcpbridgev1.CompleteResponse], error) {
	return unary[mcpbridgev1.CompleteRequest, mcpbridgev1.CompleteResponse](ctx, a, r)
}

func (a *api) Call(ctx context.Context, r *connect.Request[mcpbridgev1.CallRequest]) (*connect.Response[mcpbridgev1.CallResponse], error) {
	return unary[mcpbridgev1.CallRequest, mcpbridgev1.CallResponse](ctx, a, r)
}

func (a *api) Ping(ctx context.Context, r *connect.Request[mcpbridgev1.PingRequest]) (*connect.Response[mcpbridgev1.PingResponse], error) {
	return unary[mcpbridgev1.PingRequest, mcpbridgev1.PingResponse](ctx, a, r)
}

func (a *api) RespondToServerRequest(ctx context.Context, r *connect.Request[mcpbridgev1.RespondToServerRequestRequest]) (*connect.Response[mcpbridgev1.RespondToServerRequestResponse], error) {
	return unary[mcpbridgev1.RespondToServerRequestRequest, mcpbridgev1.RespondToServerRequestResponse](ctx, a, r)
}

func (a *api) StartTask(ctx context.Context, r *connect.Request[mcpbridgev1.StartTaskRequest]) (*connect.Response[mcpbridgev1.StartTaskResponse], error) {
	return unary[mcpbridgev1.StartTaskRequest, mcpbridgev1.StartTaskResponse](ctx, a, r)
}

func (a *api) GetTask(ctx context.Context, r *connect.Request[mcpbridgev1.GetTaskRequest]) (*connect.Response[mcpbridgev1.GetTaskResponse], error) {
	return unary[mcpbridgev1.GetTaskRequest, mcpbridgev1.GetTaskResponse](ctx, a, r)
}

func (a *api) WaitTask(ctx context.Context, r *connect.Request[mcpbridgev1.WaitTaskRequest]) (*connect.Response[mcpbridgev1.WaitTaskResponse], error) {
	return unary[mcpbridgev1.WaitTaskRequest, mcpbridgev1.WaitTaskResponse](ctx, a, r)
}

func (a *api) AnswerTask(ctx context.Context, r *connect.Request[mcpbridgev1.AnswerTaskRequest]) (*connect.Response[mcpbridgev1.AnswerTaskResponse], error) {
	return unary[mcpbridgev1.AnswerTaskRequest, mcpbridgev1.AnswerTaskResponse](ctx, a, r)
}

func (a *api) CancelTask(ctx context.Context, r *connect.Request[mcpbridgev1.CancelTaskRequest]) (*connect.Response[mcpbridgev1.CancelTaskResponse], error) {
	return unary[mcpbridgev1.CancelTaskRequest, mcpbridgev1.CancelTaskResponse](ctx, a, r)
}

func (a *api) ListTasks(ctx context.Context, r *connect.Request[mcpbridgev1.ListTasksRequest]) (*connect.Response[mcpbridgev1.ListTasksResponse], error) {
	return unary[mcpbridgev1.ListTasksRequest, mcpbridgev1.ListTasksResponse](ctx, a, r)
}

func (a *api) WatchTask(ctx context.Context, r *connect.Request[mcpbridgev1.WatchTaskRequest], out *connect.ServerStream[mcpbridgev1.WatchTaskResponse]) error {
	return serverStream(ctx, a, r, out)
}

func (a *api) CallToolStream(ctx context.Context, r *connect.Request[mcpbridgev1.CallToolStreamRequest], out *connect.ServerStream[mcpbridgev1.CallToolStreamResponse]) error {
	return serverStream(ctx, a, r, out)
}

func (a *api) Subscribe(ctx context.Context, r *connect.Request[mcpbridgev1.SubscribeRequest], out *connect.ServerStream[mcpbridgev1.SubscribeResponse]) error {
	return serverStream(ctx, a, r, out)
}

func (a *api) CallStream(ctx context.Context, r *connect.Request[mcpbridgev1.CallStreamRequest], out *connect.ServerStream[mcpbridgev1.CallStreamResponse]) error {
	return serverStream(ctx, a, r, out)
}

// Connect is the bidirectional tunnel, over HTTP/2 end to end.
func (a *api) Connect(ctx context.Context, bs *connect.BidiStream[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]) error {
	ctx, end := a.call(ctx, bs.Spec(), bs.Peer(), bs.RequestHeader())
	err := a.calls.Stream(bs.Spec().Procedure, &stream{ctx: ctx, conn: bs.Conn()})
	end(err)
	return toConnect(err)
}

// stream is a connect-go stream as the bridge's handlers see a gRPC one:
// the request connect-go decoded first (first, for a server stream), then
// what the client sends; what the handlers send goes out as it comes.
type stream struct {
	ctx   context.Context
	conn  connect.StreamingHandlerConn
	first proto.Message
}

func (s *stream) Context() context.Context { return s.ctx }

func (s *stream) RecvMsg(m any) error {
	if s.first != nil {
		proto.Merge(m.(proto.Message), s.first)
		s.first = nil
		return nil
	}
	if s.conn.Spec().StreamType == connect.StreamTypeServer {
		return io.EOF // a server stream's one request was first
	}
	if err := s.conn.Receive(m); err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return err
	}
	return nil
}

func (s *stream) SendMsg(m any) error { return s.conn.Send(m) }

func (s *stream) SetHeader(md metadata.MD) error {
	copyMD(s.conn.ResponseHeader(), md)
	return nil
}

func (s *stream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }

func (s *stream) SetTrailer(md metadata.MD) { copyMD(s.conn.ResponseTrailer(), md) }

func copyMD(h http.Header, md metadata.MD) {
	for k, vv := range md {
		for _, v := range vv {
			h.Add(k, v)
		}
	}
}

// toConnect is a handler's status as connect-go answers it, details and
// all; nil stays nil.
func toConnect(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	st, ok := status.FromError(err)
	if !ok {
		st = status.FromContextError(err)
	}
	e := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Proto().GetDetails() {
		if ed, err := connect.NewErrorDetail(d); err == nil {
			e.AddDetail(ed)
		}
		// An OAuth access token without the scope the call needs: the
		// 403 says which to ask for, as RFC 6750 does.
		info := new(errdetails.ErrorInfo)
		if st.Code() == codes.PermissionDenied && d.UnmarshalTo(info) == nil && info.GetMetadata()["error"] == "insufficient_scope" {
			e.Meta().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+info.GetMetadata()["scope"]+`"`)
		}
	}
	return e
}

// httpReadHeaderTimeout bounds how long a client of the HTTP listener
// may take to send a request's headers (a slow-loris guard); the door
// bounds a body of one message (Options.BodyTimeout), and streams are
// bounded by the calls' own deadlines.
const httpReadHeaderTimeout = 10 * time.Second

// httpMaxHeaderBytes bounds a request's headers, which the listener reads
// before it knows who the caller is: 64 KiB, as the gRPC listener bounds a
// call's metadata (431 beyond; net/http's own bound is 1 MiB).
const httpMaxHeaderBytes = 64 << 10

// httpIdleTimeout closes a kept-alive connection with no request in
// progress after this long (net/http keeps one forever by default): a
// client's connections do not outlive its use of them. A stream in
// progress (an SSE GET, a server stream) is not idle.
const httpIdleTimeout = 2 * time.Minute

// NewServer is the HTTP listener's server for h: with TLS when
// tlsConfig is set (HTTP/1.1 and HTTP/2 by ALPN, the client CA pool of
// the configuration in force), in plaintext otherwise (HTTP/1.1 and
// HTTP/2 without TLS, as curl --http2-prior-knowledge and gRPC-Web
// proxies speak it).
func NewServer(h http.Handler, tlsConfig *tls.Config, log *slog.Logger) *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	if tlsConfig != nil {
		protocols.SetHTTP2(true)
		alpn := []string{"h2", "http/1.1"}
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = alpn
		if get := tlsConfig.GetConfigForClient; get != nil { // mTLS: the current CA pool's configuration
			tlsConfig.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
				c, err := get(hello)
				if c != nil {
					c = c.Clone()
					c.NextProtos = alpn
				}
				return c, err
			}
		}
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	return &http.Server{
		Handler:           h,
		Protocols:         &protocols,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
		IdleTimeout:       httpIdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
