package bridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// honestHarness is a bridge whose grpc.Server has, through
// NewGRPCServer's opts, an interceptor that keeps a copy of every
// CallTool response it sees (and redacts the argument "secret" in place
// when there is one), and a payload logger that keeps what it logs; the
// bridge is served over gRPC and through its HTTP door.
type honestHarness struct {
	bc   mcpbridgev1.BridgeServiceClient
	base string // the HTTP door

	mu     sync.Mutex
	seen   []*mcpbridgev1.CallToolResponse // by the interceptor, after it redacted
	logged []proto.Message                 // by the payload log
}

func startHonestBridge(t *testing.T) *honestHarness {
	t.Helper()
	h := &honestHarness{}
	svc, err := New(Config{Servers: []ServerConfig{typedChildServer(t, "modern", "modern")}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { svc.Close() })
	intercept := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		if r, ok := resp.(*mcpbridgev1.CallToolResponse); ok {
			// In place, deep inside: what a redacting interceptor does.
			if args := r.GetStructuredContent().GetStructValue().GetFields()["arguments"].GetStructValue().GetFields(); args["secret"] != nil {
				args["secret"] = structpb.NewStringValue("[redacted]")
			}
			h.mu.Lock()
			h.seen = append(h.seen, proto.Clone(r).(*mcpbridgev1.CallToolResponse))
			h.mu.Unlock()
		}
		return resp, err
	}
	payloads := logging.LoggerFunc(func(_ context.Context, _ logging.Level, _ string, fields ...any) {
		for i := 0; i+1 < len(fields); i += 2 {
			if m, ok := fields[i+1].(proto.Message); ok && fields[i] == "grpc.response.content" {
				h.mu.Lock()
				h.logged = append(h.logged, proto.Clone(m))
				h.mu.Unlock()
			}
		}
	})
	own := []grpc.UnaryServerInterceptor{
		logging.UnaryServerInterceptor(payloads, logging.WithLogOnEvents(logging.PayloadSent)),
		intercept,
	}
	gs := svc.NewGRPCServer(grpc.ChainUnaryInterceptor(own...))
	h.bc = mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, gs))
	d, err := svc.NewHTTPDoor(HTTPOptions{Unary: own})
	if err != nil {
		t.Fatalf("NewHTTPDoor: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: d, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		hs.Serve(lis)
	}()
	t.Cleanup(func() { // before serveLoopback's, which stops gs
		d.Close()
		hs.Close()
		<-served
	})
	h.base = "http://" + lis.Addr().String()
	return h
}

// last returns what the interceptor and the payload log saw of the last
// call.
func (h *honestHarness) last(t *testing.T) (seen *mcpbridgev1.CallToolResponse, logged proto.Message) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.seen) == 0 || len(h.logged) != len(h.seen) {
		t.Fatalf("the interceptor saw %d responses, the payload log %d", len(h.seen), len(h.logged))
	}
	return h.seen[len(h.seen)-1], h.logged[len(h.logged)-1]
}

// post sends body to the door's CallTool path and returns the answer's
// body.
func (h *honestHarness) post(t *testing.T, contentType string, body []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.base+"/mcpbridge.v1.BridgeService/CallTool", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", contentType, resp.StatusCode, b)
	}
	return b
}

// CallTool's response is one message under every transport: the
// interceptor a library user adds through NewGRPCServer's opts, and a
// payload log, see Meta and StructuredContent set, as real fields, and
// proto.Equal to what the client decodes, over gRPC, the Connect protocol
// (JSON) and gRPC-Web; an interceptor's change inside StructuredContent is
// what every client reads. Before, the interceptor saw both fields nil
// (their bytes were in the message's unknown fields), and the payload
// log did too.
func TestCallToolHonest(t *testing.T) {
	h := startHonestBridge(t)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	args := map[string]any{"message": "hello", "secret": "s3cr3t", "n": 1.5, "list": []any{true, nil, "é"}}

	check := func(who string, got *mcpbridgev1.CallToolResponse) {
		t.Helper()
		seen, logged := h.last(t)
		if seen.GetMeta() == nil || seen.GetStructuredContent() == nil {
			t.Fatalf("%s: the interceptor saw Meta %v and StructuredContent %v, want both set", who, seen.GetMeta(), seen.GetStructuredContent())
		}
		if u := seen.ProtoReflect().GetUnknown(); len(u) != 0 {
			t.Errorf("%s: the interceptor saw %d bytes of unknown fields", who, len(u))
		}
		if !proto.Equal(seen, got) {
			t.Errorf("%s: the interceptor saw a message that is not what the client reads (-interceptor +client):\n%s", who, cmp.Diff(seen, got, protocmp.Transform()))
		}
		if !proto.Equal(logged, got) {
			t.Errorf("%s: the payload log has a message that is not what the client reads (-log +client):\n%s", who, cmp.Diff(logged, got, protocmp.Transform()))
		}
		if s := got.GetStructuredContent().GetStructValue().GetFields()["arguments"].GetStructValue().GetFields()["secret"].GetStringValue(); s != "[redacted]" {
			t.Errorf("%s: the client reads the secret as %q, want the interceptor's redaction", who, s)
		}
		if n := got.GetMeta().GetFields()["seen"].GetNumberValue(); n < 1 {
			t.Errorf("%s: the client reads meta %v, want the child's seen count", who, got.GetMeta())
		}
	}

	// gRPC.
	grpcGot, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Arguments: mustStruct(t, args)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	check("gRPC", grpcGot)

	// The Connect protocol, JSON, as curl sends it.
	body, err := protojson.Marshal(&mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Arguments: mustStruct(t, args)})
	if err != nil {
		t.Fatal(err)
	}
	connectGot := &mcpbridgev1.CallToolResponse{}
	if b := h.post(t, "application/json", body); protojson.Unmarshal(b, connectGot) != nil {
		t.Fatalf("the Connect answer is not a CallToolResponse: %s", b)
	}
	check("Connect JSON", connectGot)

	// gRPC-Web, binary: one data frame each way.
	msg, err := proto.Marshal(&mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Arguments: mustStruct(t, args)})
	if err != nil {
		t.Fatal(err)
	}
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	b := h.post(t, "application/grpc-web+proto", append(frame, msg...))
	if len(b) < 5 || b[0] != 0 || int(binary.BigEndian.Uint32(b[1:5])) > len(b)-5 {
		t.Fatalf("the gRPC-Web answer has no data frame first: %q", b)
	}
	webGot := &mcpbridgev1.CallToolResponse{}
	if err := proto.Unmarshal(b[5:5+binary.BigEndian.Uint32(b[1:5])], webGot); err != nil {
		t.Fatal(err)
	}
	check("gRPC-Web", webGot)

	// The same content whichever way it went: only the child's count of
	// calls differs.
	for who, got := range map[string]*mcpbridgev1.CallToolResponse{"Connect JSON": connectGot, "gRPC-Web": webGot} {
		if diff := cmp.Diff(grpcGot, got, protocmp.Transform(), protocmp.IgnoreFields(&mcpbridgev1.CallToolResponse{}, "meta")); diff != "" {
			t.Errorf("%s reads another result than gRPC (-gRPC +%s):\n%s", who, who, diff)
		}
		if !strings.Contains(got.GetContent()[0].GetText().GetText(), `"secret":"s3cr3t"`) {
			t.Errorf("%s: the text block %q is not the child's", who, got.GetContent()[0].GetText().GetText())
		}
	}
}
