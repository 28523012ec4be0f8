package bridge

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Invalid input gets a google.rpc.BadRequest whose field violation names
// the field as the caller's language spells it, judged by the user-agent
// its gRPC library sends, with a reason that tells invalid JSON from JSON
// of the wrong kind; the message and the JsonRpcError say the same.
func TestFieldViolations(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	svc, err := New(Config{Servers: []ServerConfig{typedChildServer(t, "a", "modern"), typedChildServer(t, "b", "modern")}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	addr := serveLoopbackAddr(t, svc.NewGRPCServer())

	type call func(mcpbridgev1.BridgeServiceClient) error
	callRaw := func(params string) call {
		return func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.Call(ctx, &mcpbridgev1.CallRequest{Server: "a", Method: "tools/list", ParamsJson: params})
			return err
		}
	}
	respond := func(data string) call {
		return func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Server: "a", Id: "x",
				Outcome: &mcpbridgev1.RespondToServerRequestRequest_Error{Error: &mcpbridgev1.JsonRpcError{Code: -1, DataJson: data}}})
			return err
		}
	}
	cases := []struct {
		name        string
		call        call
		field       string // the proto path
		reason      string
		msg         string // the message, after the field
		proto, json string // the field as Python and TypeScript spell it
		pascal      string // as Go spells it
	}{
		{"invalid JSON", callRaw("{"), "params_json", "INVALID_JSON", " is not valid JSON: unexpected end of JSON input",
			"params_json", "paramsJson", "ParamsJson"},
		{"JSON of the wrong kind", callRaw("[1]"), "params_json", "WRONG_JSON_TYPE", " must be a JSON object, not an array",
			"params_json", "paramsJson", "ParamsJson"},
		{"nested JSON of the wrong kind", callRaw(`{"_meta":3}`), "params_json", "WRONG_JSON_TYPE", "._meta must be a JSON object, not a number",
			"params_json", "paramsJson", "ParamsJson"},
		{"a required field", func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "a"})
			return err
		}, "name", "REQUIRED", " is required", "name", "name", "Name"},
		{"a nested field", respond("{"), "error.data_json", "INVALID_JSON", " is not valid JSON: unexpected end of JSON input",
			"error.data_json", "error.dataJson", "Error.DataJson"},
		{"a server to choose", func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.ListTools(ctx, &mcpbridgev1.ListToolsRequest{})
			return err
		}, "server", "REQUIRED", "", "server", "server", "Server"},
	}
	for _, ua := range []struct{ agent, style string }{
		{"", "pascal"}, // grpc-go alone
		{"grpc-python/1.51.1 grpc-c/29.0.0 (linux; chttp2)", "proto"},
		{"grpc-node-js/1.14.7", "json"},
		{"connect-es/2.1.1", "json"},
		{"grpcurl/v1.9.4", "json"},
		{"some-app/1.0", "pascal"}, // and grpc-go's own product after it
	} {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithUserAgent(ua.agent))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		client := mcpbridgev1.NewBridgeServiceClient(conn)
		for _, tc := range cases {
			want := map[string]string{"proto": tc.proto, "json": tc.json, "pascal": tc.pascal}[ua.style]
			err := tc.call(client)
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument {
				t.Errorf("%s, %q: %v, want INVALID_ARGUMENT", tc.name, ua.agent, err)
				continue
			}
			var br *errdetails.BadRequest
			var je *mcpbridgev1.JsonRpcError
			for _, d := range st.Details() {
				switch d := d.(type) {
				case *errdetails.BadRequest:
					br = d
				case *mcpbridgev1.JsonRpcError:
					je = d
				}
			}
			if br == nil || len(br.GetFieldViolations()) != 1 || je == nil {
				t.Errorf("%s, %q: details %v, want one field violation and a JsonRpcError", tc.name, ua.agent, st.Details())
				continue
			}
			v := br.GetFieldViolations()[0]
			if v.GetField() != want || v.GetReason() != tc.reason {
				t.Errorf("%s, %q: violation %v, want field %q, reason %s", tc.name, ua.agent, v, want, tc.reason)
			}
			if tc.msg != "" && (st.Message() != want+tc.msg || je.GetMessage() != st.Message() || v.GetDescription() != st.Message()) {
				t.Errorf("%s, %q: message %q, JsonRpcError %q, description %q; want %q", tc.name, ua.agent,
					st.Message(), je.GetMessage(), v.GetDescription(), want+tc.msg)
			}
		}
	}
}
