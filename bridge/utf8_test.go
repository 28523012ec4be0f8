package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/apiwire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// rawCodec sends pre-encoded bytes as they are, so that a test can send
// what a well-behaved client's marshaller would refuse to produce.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return proto.Unmarshal(data.Materialize(), v.(proto.Message))
}

func (rawCodec) Name() string { return "proto" }

// field returns the number of msg's field name.
func field(msg proto.Message, name string) protowire.Number {
	return msg.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name)).Number()
}

// Invalid UTF-8 in a string field, at the top of a request or deep inside
// a Struct, is refused like any bad input: INVALID_ARGUMENT, reason
// INVALID_INPUT, naming the field; it never reaches the child, and the
// bridge keeps serving; on the HTTP listener's binary Connect too.
func TestInvalidUTF8IsBadInput(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "", time.Second)}, Logger: slog.New(slog.DiscardHandler)})
	cc := loopbackBridge(t, svc)
	bc := mcpbridgev1.NewBridgeServiceClient(cc)

	bad := "caf\xe9"
	name := protowire.AppendString(protowire.AppendTag(nil, field(&mcpbridgev1.CallToolRequest{}, "name"), protowire.BytesType), bad)

	// arguments {"k": "caf\xe9"}: Struct.fields[k] = Value{string_value}.
	value := protowire.AppendString(protowire.AppendTag(nil, field(&structpb.Value{}, "string_value"), protowire.BytesType), bad)
	entry := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "k")
	entry = protowire.AppendBytes(protowire.AppendTag(entry, 2, protowire.BytesType), value)
	st := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), entry)
	args := protowire.AppendString(protowire.AppendTag(nil, field(&mcpbridgev1.CallToolRequest{}, "name"), protowire.BytesType), "echo")
	args = protowire.AppendBytes(protowire.AppendTag(args, field(&mcpbridgev1.CallToolRequest{}, "arguments"), protowire.BytesType), st)

	for _, tc := range []struct {
		name, method, field string
		req                 []byte
		stream              bool
	}{
		{"unary, top-level field", "/mcpbridge.v1.BridgeService/CallTool", "name", name, false},
		{"unary, inside a Struct", "/mcpbridge.v1.BridgeService/CallTool", "arguments.fields.value.string_value", args, false},
		{"server stream", "/mcpbridge.v1.BridgeService/CallToolStream", "name", name, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.stream {
				var s grpc.ClientStream
				s, err = cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, tc.method, grpc.ForceCodecV2(rawCodec{}))
				if err == nil {
					if err = s.SendMsg(tc.req); err == nil {
						s.CloseSend()
						err = s.RecvMsg(&mcpbridgev1.CallToolStreamResponse{})
					}
				}
			} else {
				err = cc.Invoke(ctx, tc.method, tc.req, &mcpbridgev1.CallToolResponse{}, grpc.ForceCodecV2(rawCodec{}))
			}
			rpc, info := statusDetails(t, err, codes.InvalidArgument)
			// A Go caller: the field as Go spells it (fieldnames.go).
			if want := fmt.Sprintf("%s is not valid UTF-8", apiwire.Spell(tc.field, apiwire.StylePascal)); rpc.GetMessage() != want || info.GetReason() != "INVALID_INPUT" {
				t.Errorf("status %v, reason %s; want %q, INVALID_INPUT", err, info.GetReason(), want)
			}
		})
	}
	// The HTTP listener's binary forms decode as the gRPC door does: the
	// same refusal, with the same words, as a Connect error.
	base := serveHTTPDoor(t, svc, HTTPOptions{})
	code, _, body := doorPost(t, base+"/mcpbridge.v1.BridgeService/CallTool", "application/proto", string(name))
	if code != http.StatusBadRequest || !strings.Contains(body, `"invalid_argument"`) || !strings.Contains(body, "name is not valid UTF-8") || !strings.Contains(body, "INVALID_INPUT") {
		t.Errorf("CallTool as binary Connect with invalid UTF-8: %d %s, want 400 invalid_argument naming the field, INVALID_INPUT", code, body)
	}
	echoWorks(ctx, t, bc, "after invalid UTF-8")
}
