package grpcdoor

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// TestServerRequestRoundTrip answers a legacy child's elicitation offered
// on the call stream that caused it, with a result on CallToolStream and
// with an error on CallStream: each answer reaches the child, whose tool
// result follows; a second answer for the same id is NOT_FOUND.
//
// Its children are its own: it must be the only caller they ask.
func TestServerRequestRoundTrip(t *testing.T) {
	t.Parallel()
	_, client := twoEras(t, startEras(t))
	ctx := testCtx(t)

	t.Run("CallToolStream", func(t *testing.T) {
		st, err := client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "legacy", Name: "ask", ServerRequests: true})
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		sr := m.GetServerRequest()
		if sr.GetMethod() != "elicitation/create" || sr.GetServer() != "legacy" || !strings.Contains(sr.GetParamsJson(), "Who are you?") {
			t.Fatalf("first message %v, want the child's elicitation/create", m)
		}
		answer := &mcpbridgev1.RespondToServerRequestRequest{Server: "legacy", Id: sr.GetId(),
			Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"name":"Ada"}}`}}
		if _, err := client.RespondToServerRequest(ctx, answer); err != nil {
			t.Fatalf("RespondToServerRequest = %v", err)
		}
		msgs, err := recvAll(st)
		if err != nil || len(msgs) != 1 || text(t, msgs[0].GetResult()) != "hello Ada" {
			t.Errorf("after the answer: %v, %v; want the result hello Ada", msgs, err)
		}
		_, err = client.RespondToServerRequest(ctx, answer)
		wantStatus(t, "a second answer", err, codes.NotFound, rpcerr.ReasonInvalidInput, jsonrpc.CodeResourceNotFound)
	})

	t.Run("CallStream", func(t *testing.T) {
		st, err := client.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "legacy", Method: "tools/call", ParamsJson: `{"name":"ask"}`, ServerRequests: true})
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		sr := m.GetServerRequest()
		if sr.GetMethod() != "elicitation/create" {
			t.Fatalf("first message %v, want the child's elicitation/create", m)
		}
		// Any server: the id alone finds the request.
		_, err = client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Id: sr.GetId(),
			Outcome: &mcpbridgev1.RespondToServerRequestRequest_Error{Error: &mcpbridgev1.JsonRpcError{Code: -1, Message: "user refused", DataJson: `{"why":"no"}`}}})
		if err != nil {
			t.Fatalf("RespondToServerRequest(error) = %v", err)
		}
		msgs, err := recvAll(st)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("after the answer: %v, %v; want the result", msgs, err)
		}
		var res struct {
			IsError bool
			Content []struct{ Text string }
		}
		if err := json.Unmarshal([]byte(msgs[0].GetResult().GetResultJson()), &res); err != nil || !res.IsError {
			t.Errorf("result %s, want the tool's error", msgs[0].GetResult().GetResultJson())
		}
	})

	t.Run("a 2026 child asks with input_required", func(t *testing.T) {
		st, err := client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "modern", Name: "ask", ServerRequests: true})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := recvAll(st)
		if err != nil || len(msgs) != 1 || msgs[0].GetResult().GetInputRequired().GetInputRequests().GetFields()["who"] == nil {
			t.Errorf("ask on a 2026 child: %v, %v; want one result, input_required", msgs, err)
		}
	})
}

// testRespondRefusals shows the answers RespondToServerRequest refuses
// before looking for the request, and the NOT_FOUND of an id that no
// stream was offered.
func testRespondRefusals(t *testing.T, servers []*pool.Server) {
	_, client := twoEras(t, servers)
	ctx := testCtx(t)
	result := func(s string) *mcpbridgev1.RespondToServerRequestRequest_ResultJson {
		return &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: s}
	}
	for _, tc := range []struct {
		req   *mcpbridgev1.RespondToServerRequestRequest
		field string
	}{
		{&mcpbridgev1.RespondToServerRequestRequest{Id: "x"}, "outcome"},
		{&mcpbridgev1.RespondToServerRequestRequest{Outcome: result(`{}`)}, "id"},
		{&mcpbridgev1.RespondToServerRequestRequest{Id: "x", Outcome: result(`{"roots":`)}, "result_json"},
		{&mcpbridgev1.RespondToServerRequestRequest{Id: "x", Outcome: result(`[1]`)}, "result_json"},
		{&mcpbridgev1.RespondToServerRequestRequest{Id: "x", Outcome: &mcpbridgev1.RespondToServerRequestRequest_Error{Error: &mcpbridgev1.JsonRpcError{Message: "no code"}}}, "error.code"},
		{&mcpbridgev1.RespondToServerRequestRequest{Id: "x", Outcome: &mcpbridgev1.RespondToServerRequestRequest_Error{Error: &mcpbridgev1.JsonRpcError{Code: -1, DataJson: "{"}}}, "error.data_json"},
	} {
		_, err := client.RespondToServerRequest(ctx, tc.req)
		wantField(t, "RespondToServerRequest("+tc.req.String()+")", err, tc.field)
	}
	for _, server := range []string{"", "legacy"} {
		_, err := client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Server: server, Id: "sr-unknown", Outcome: result(`{}`)})
		d := wantStatus(t, "RespondToServerRequest(unknown id)", err, codes.NotFound, rpcerr.ReasonInvalidInput, jsonrpc.CodeResourceNotFound)
		if !strings.Contains(d.st.Message(), "is waiting for this answer") {
			t.Errorf("RespondToServerRequest(unknown id) = %q, want it to say no request is waiting", d.st.Message())
		}
	}
	// An id of another replica's form says so.
	_, err := client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Id: "sr-0123456789ab-1", Outcome: result(`{}`)})
	d := wantStatus(t, "RespondToServerRequest(another replica's id)", err, codes.NotFound, rpcerr.ReasonInvalidInput, jsonrpc.CodeResourceNotFound)
	if !strings.Contains(d.st.Message(), "another bridge replica") {
		t.Errorf("RespondToServerRequest(another replica's id) = %q, want it to name another replica", d.st.Message())
	}
}
