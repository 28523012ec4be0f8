// Package inproc runs the methods of a gRPC service in process, through
// the interceptors a grpc.Server runs them through, for a door that is not
// gRPC: the HTTP listener's Connect, gRPC-Web and gRPC calls of the API
// reach the service's handlers behind the same chain as a call on the gRPC
// listener (authentication, credentials watched, limits, logging,
// metrics, recovery, abort), without a gRPC request being made up for
// them (docs/architecture.md, "Doors").
//
// The caller's context carries what a gRPC call's would: the principal
// its door authenticated (package access), the request's headers as
// incoming metadata and the client as its peer.
package inproc

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Server runs one service's methods.
type Server struct {
	impl    any
	unary   map[string]grpc.MethodDesc // by full method name, "/pkg.Service/Method"
	streams map[string]grpc.StreamDesc
	ui      grpc.UnaryServerInterceptor
	si      grpc.StreamServerInterceptor
}

// New returns the Server of impl, which implements desc, with the
// interceptors in the order grpc.ChainUnaryInterceptor and
// grpc.ChainStreamInterceptor take them (the first outermost).
func New(desc *grpc.ServiceDesc, impl any, unary []grpc.UnaryServerInterceptor, stream []grpc.StreamServerInterceptor) *Server {
	s := &Server{impl: impl, unary: map[string]grpc.MethodDesc{}, streams: map[string]grpc.StreamDesc{},
		ui: chainUnary(unary), si: chainStream(stream)}
	for _, m := range desc.Methods {
		s.unary["/"+desc.ServiceName+"/"+m.MethodName] = m
	}
	for _, m := range desc.Streams {
		s.streams["/"+desc.ServiceName+"/"+m.StreamName] = m
	}
	return s
}

// Unary runs the unary method method (its full name) on req, which is of
// the method's request type.
func (s *Server) Unary(ctx context.Context, method string, req any) (any, error) {
	m, ok := s.unary[method]
	if !ok {
		return nil, unimplemented(method)
	}
	ctx = grpc.NewContextWithServerTransportStream(ctx, transportStream(method))
	// The generated handler decodes a request of its own and hands it to
	// the interceptor; this one hands the chain req instead, which the
	// door has decoded already.
	return m.Handler(s.impl, ctx, func(any) error { return nil },
		func(ctx context.Context, _ any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			return s.ui(ctx, req, info, handler)
		})
}

// Stream runs the streaming method method on ss, whose Context is the
// call's; its RecvMsg returns io.EOF after the client's last message, as a
// gRPC stream's does.
func (s *Server) Stream(method string, ss grpc.ServerStream) error {
	m, ok := s.streams[method]
	if !ok {
		return unimplemented(method)
	}
	ss = contextStream{ss, grpc.NewContextWithServerTransportStream(ss.Context(), transportStream(method))}
	info := &grpc.StreamServerInfo{FullMethod: method, IsClientStream: m.ClientStreams, IsServerStream: m.ServerStreams}
	return s.si(s.impl, ss, info, m.Handler)
}

func unimplemented(method string) error {
	return status.Errorf(codes.Unimplemented, "unknown method %s", strings.TrimPrefix(method, "/"))
}

// transportStream is grpc.Method's answer in a call's context; headers
// and trailers set through the context are not sent (the service sets
// none: what a caller needs to know is in its answer or its status).
type transportStream string

func (t transportStream) Method() string             { return string(t) }
func (transportStream) SetHeader(metadata.MD) error  { return nil }
func (transportStream) SendHeader(metadata.MD) error { return nil }
func (transportStream) SetTrailer(metadata.MD) error { return nil }

// contextStream is a stream with the context of its call.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c contextStream) Context() context.Context { return c.ctx }

// chainUnary makes one interceptor of ints, the first outermost, as
// grpc.ChainUnaryInterceptor does.
func chainUnary(ints []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return unaryFrom(ints, 0, info, handler)(ctx, req)
	}
}

func unaryFrom(ints []grpc.UnaryServerInterceptor, i int, info *grpc.UnaryServerInfo, final grpc.UnaryHandler) grpc.UnaryHandler {
	if i == len(ints) {
		return final
	}
	return func(ctx context.Context, req any) (any, error) {
		return ints[i](ctx, req, info, unaryFrom(ints, i+1, info, final))
	}
}

// chainStream is chainUnary's for streams.
func chainStream(ints []grpc.StreamServerInterceptor) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return streamFrom(ints, 0, info, handler)(srv, ss)
	}
}

func streamFrom(ints []grpc.StreamServerInterceptor, i int, info *grpc.StreamServerInfo, final grpc.StreamHandler) grpc.StreamHandler {
	if i == len(ints) {
		return final
	}
	return func(srv any, ss grpc.ServerStream) error {
		return ints[i](srv, ss, info, streamFrom(ints, i+1, info, final))
	}
}
