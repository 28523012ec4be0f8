// Package apiwire is the API on the wire: a codec that turns invalid
// UTF-8 in a request into INVALID_ARGUMENT naming the field, and field
// names in errors spelt the way the caller's language spells them.
package apiwire

import (
	"context"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
)

// This file gives a request whose strings are not valid UTF-8 the same
// answer as any other bad input: INVALID_ARGUMENT with the bridge's
// details, naming the field. Protobuf requires UTF-8 in string fields and
// grpc-go turns the decoding error into a bare INTERNAL before any
// interceptor or handler runs; so the server's codec repairs such a
// request (each bad byte becomes U+FFFD), marks it with an unknown field
// that names the first bad field, and the interceptors refuse the marked
// request (badUTF8). Nothing repaired ever reaches a child.

// badUTF8Field is the field number of the mark: the largest allowed, which
// no message of the API uses.
const badUTF8Field = protowire.MaxValidNumber

// utf8Codec is grpc's proto codec with the repair.
type utf8Codec struct{ encoding.CodecV2 }

// Codec is the server option of the codec that repairs and marks.
func Codec() grpc.ServerOption {
	return grpc.ForceServerCodecV2(utf8Codec{encoding.GetCodecV2("proto")})
}

func (c utf8Codec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	m, ok := v.(proto.Message)
	if err == nil || !ok {
		return err
	}
	return repaired(data.Materialize(), m, err)
}

// Unmarshal is proto.Unmarshal with the repair and the mark: the decoding
// of the API's requests on the doors that are not grpc-go (the HTTP
// listener's binary Connect, gRPC-Web and gRPC, through connect-go), so
// that their interceptors refuse invalid UTF-8 as the gRPC door's do.
func Unmarshal(data []byte, m proto.Message) error {
	if err := proto.Unmarshal(data, m); err != nil {
		return repaired(data, m, err)
	}
	return nil
}

// repaired decodes data into m repaired and marked when err, the error of
// its plain decoding, is invalid UTF-8 in a string field; else it returns
// err.
func repaired(data []byte, m proto.Message, err error) error {
	if !strings.Contains(err.Error(), "invalid UTF-8") {
		return err
	}
	field := ""
	fixed, ok := repairUTF8(data, m.ProtoReflect().Descriptor(), "", &field)
	if !ok || field == "" {
		return err
	}
	fixed = protowire.AppendTag(fixed, badUTF8Field, protowire.BytesType)
	fixed = protowire.AppendString(fixed, field)
	return proto.Unmarshal(fixed, m)
}

// repairUTF8 copies the encoded message b of type md, replacing invalid
// UTF-8 in its string fields (nested messages included) and recording
// the path of the first such field. ok is false for bytes that do not
// parse, which are left to the codec's own error.
func repairUTF8(b []byte, md protoreflect.MessageDescriptor, prefix string, field *string) (out []byte, ok bool) {
	out = make([]byte, 0, len(b))
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		fd := md.Fields().ByNumber(num)
		if typ != protowire.BytesType || fd == nil || (fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.MessageKind) {
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if m < 0 {
				return nil, false
			}
			out = append(out, b[:n+m]...)
			b = b[n+m:]
			continue
		}
		v, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			return nil, false
		}
		path := prefix + string(fd.Name())
		out = protowire.AppendTag(out, num, typ)
		switch {
		case fd.Kind() == protoreflect.MessageKind:
			inner, ok := repairUTF8(v, fd.Message(), path+".", field)
			if !ok {
				return nil, false
			}
			out = protowire.AppendBytes(out, inner)
		case !utf8.Valid(v):
			if *field == "" {
				*field = path
			}
			out = protowire.AppendString(out, strings.ToValidUTF8(string(v), "\uFFFD"))
		default:
			out = protowire.AppendBytes(out, v)
		}
		b = b[n+m:]
	}
	return out, true
}

// badUTF8 returns the field named by a repaired request's mark, removing
// the mark; "" for a request that came in valid.
func badUTF8(v any) string {
	m, ok := v.(proto.Message)
	if !ok {
		return ""
	}
	r := m.ProtoReflect()
	unknown := r.GetUnknown()
	for b := unknown; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return ""
		}
		l := protowire.ConsumeFieldValue(num, typ, b[n:])
		if l < 0 {
			return ""
		}
		if num == badUTF8Field && typ == protowire.BytesType {
			field, _ := protowire.ConsumeString(b[n:])
			r.SetUnknown(nil)
			return field
		}
		b = b[n+l:]
	}
	return ""
}

// refuseBadUTF8 is the status of a repaired request: INVALID_ARGUMENT,
// INVALID_INPUT.
func refuseBadUTF8(fullMethod, field string) error {
	method := fullMethod[strings.LastIndexByte(fullMethod, '/')+1:]
	return rpcerr.ToStatus("", method, rpcerr.InvalidField("", method, field, convert.ReasonInvalidUTF8, " is not valid UTF-8"))
}

// UTF8Unary and UTF8Stream are the interceptors that refuse repaired
// requests.
func UTF8Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if field := badUTF8(req); field != "" {
		return nil, refuseBadUTF8(info.FullMethod, field)
	}
	return handler(ctx, req)
}

func UTF8Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, utf8ServerStream{ss, info.FullMethod})
}

type utf8ServerStream struct {
	grpc.ServerStream
	method string
}

func (s utf8ServerStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if field := badUTF8(m); field != "" {
		return refuseBadUTF8(s.method, field)
	}
	return nil
}
