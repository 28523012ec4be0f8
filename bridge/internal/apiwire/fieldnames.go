package apiwire

import (
	"context"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Field names in errors, spelled as the caller's language spells them
// (bridge.proto, "Errors"). The bridge's messages and BadRequest field
// violations name fields by their proto names ("params_json"), which is
// what Python, C++, Ruby and PHP code uses; a TypeScript or Java program
// knows the field as paramsJson and a Go or C# program as ParamsJson. The
// caller's gRPC library says which it is, in the user-agent it sends.

// Style is a way to spell a proto field name.
type Style int

const (
	StyleProto  Style = iota // params_json: the proto name (AIP-193's default)
	StyleJSON                // paramsJson: the JSON name; TypeScript, JavaScript, Java, grpcurl's JSON
	StylePascal              // ParamsJson: Go and C#
)

// userAgentStyles maps the user-agent products of gRPC libraries to their
// language's spelling. The first product of the user-agent that is in the
// list decides: a library puts its own product after the application's
// (grpcurl's "grpcurl/v1.9.4 grpc-go/1.78.0": grpcurl's users write JSON),
// and a wrapper's before the core's ("grpc-python/1.51.1 grpc-c/29.0.0").
// A caller none of them names gets the proto name.
var userAgentStyles = []struct {
	prefix string
	style  Style
}{
	{"grpcurl/", StyleJSON},
	{"grpc-python", StyleProto},
	{"grpc-ruby/", StyleProto},
	{"grpc-php/", StyleProto},
	{"grpc-c++/", StyleProto},
	{"grpc-c/", StyleProto},
	{"grpc-node-js/", StyleJSON},
	{"grpc-node/", StyleJSON},
	{"connect-es/", StyleJSON},
	{"grpc-web-javascript/", StyleJSON},
	{"grpc-java-", StyleJSON},
	{"grpc-go/", StylePascal},
	{"connect-go/", StylePascal},
	{"grpc-dotnet/", StylePascal},
	{"grpc-csharp/", StylePascal},
}

// callerStyle is the field spelling of the caller of ctx.
func callerStyle(ctx context.Context) Style {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, ua := range md.Get("user-agent") {
		for _, product := range strings.Fields(ua) {
			for _, s := range userAgentStyles {
				if strings.HasPrefix(product, s.prefix) {
					return s.style
				}
			}
		}
	}
	return StyleProto
}

// Spell spells a dotted path of proto field names in style.
func Spell(path string, style Style) string {
	if style == StyleProto {
		return path
	}
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		var b strings.Builder
		upper := style == StylePascal
		for _, r := range seg {
			switch {
			case r == '_':
				upper = true
			case upper && 'a' <= r && r <= 'z':
				b.WriteRune(r - 'a' + 'A')
				upper = false
			default:
				b.WriteRune(r)
				upper = false
			}
		}
		segs[i] = b.String()
	}
	return strings.Join(segs, ".")
}

// respellFields rewrites a status that carries a google.rpc.BadRequest so
// that its field violations and messages spell the field as the caller's
// language does. Other errors pass unchanged, and so does everything for a
// caller that uses proto names.
func respellFields(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	style := callerStyle(ctx)
	if style == StyleProto {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	p := st.Proto()
	var br errdetails.BadRequest
	found := false
	for _, d := range p.GetDetails() {
		if d.MessageIs(&br) && d.UnmarshalTo(&br) == nil && len(br.GetFieldViolations()) > 0 {
			found = true
			break
		}
	}
	if !found {
		return err
	}
	// Each field named at the start of a message is respelled there too.
	fields := map[string]string{}
	respell := func(msg string) string {
		for from, to := range fields {
			if rest, ok := strings.CutPrefix(msg, from); ok && (rest == "" || strings.IndexByte(" .:", rest[0]) >= 0) {
				return to + rest
			}
		}
		return msg
	}
	for _, v := range br.GetFieldViolations() {
		fields[v.GetField()] = Spell(v.GetField(), style)
	}
	for i, d := range p.GetDetails() {
		switch {
		case d.MessageIs(&br):
			for _, v := range br.GetFieldViolations() {
				v.Description = respell(v.GetDescription())
				v.Field = fields[v.GetField()]
			}
			p.Details[i], _ = anypb.New(&br)
		case d.MessageIs(&mcpbridgev1.JsonRpcError{}):
			var je mcpbridgev1.JsonRpcError
			if d.UnmarshalTo(&je) == nil {
				je.Message = respell(je.GetMessage())
				p.Details[i], _ = anypb.New(&je)
			}
		}
	}
	p.Message = respell(p.GetMessage())
	return status.FromProto(p).Err()
}

// RespellUnary and RespellStream are the interceptors of respellFields.
func RespellUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	return resp, respellFields(ctx, err)
}

func RespellStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return respellFields(ss.Context(), handler(srv, ss))
}
