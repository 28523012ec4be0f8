package bridge

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// answerServerRequests reads server_request messages from an opted-in
// Subscribe stream until it ends and answers each with answer(sr), under
// ctx; it returns the methods it saw.
func answerServerRequests(ctx context.Context, tb testing.TB, b *streamsBridge, st grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], answer func(sr *mcpbridgev1.ServerRequest) string) <-chan []string {
	seen := make(chan []string, 1)
	go func() {
		var methods []string
		defer func() { seen <- methods }()
		for {
			m, err := st.Recv()
			if err != nil {
				return
			}
			sr := m.GetServerRequest()
			if sr == nil {
				continue
			}
			methods = append(methods, sr.GetMethod())
			_, err = b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
				Id: sr.GetId(), Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: answer(sr)},
			})
			if err != nil {
				tb.Errorf("RespondToServerRequest(%s) = %v", sr.GetMethod(), err)
			}
			// A second answer for the same id is NOT_FOUND.
			_, err = b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
				Id: sr.GetId(), Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: answer(sr)},
			})
			if err == nil || !strings.Contains(err.Error(), "NotFound") {
				tb.Errorf("second RespondToServerRequest(%s) = %v, want NOT_FOUND", sr.GetMethod(), err)
			}
		}
	}()
	return seen
}

// TestServerRequestsServerEverything answers server-everything's
// sampling, elicitation and roots requests through an opted-in Subscribe
// stream and RespondToServerRequest: the tools' results carry our answers.
func TestServerRequestsServerEverything(t *testing.T) {
	t.Parallel()
	srv := peerServer("", testkit.ServerEverything(t))
	srv.Capabilities = json.RawMessage(everythingCaps)
	b := startStreamsBridge(t, srv)
	ctx := testCtx(t)
	sctx, stop := context.WithCancel(ctx)
	st, _ := b.subscribe(sctx, t, &mcpbridgev1.SubscribeRequest{ServerRequests: true})
	seen := answerServerRequests(ctx, t, b, st, func(sr *mcpbridgev1.ServerRequest) string {
		if sr.GetServer() != "" || sr.GetExpireTime() == nil || sr.GetChildRequestIdJson() == "" {
			t.Errorf("server_request = %v: want server, expire_time and child_request_id_json set", sr)
		}
		switch sr.GetMethod() {
		case "sampling/createMessage":
			return `{"role":"assistant","content":{"type":"text","text":"sampled by the test"},"model":"test-model","stopReason":"endTurn"}`
		case "elicitation/create":
			return `{"action":"accept","content":{"name":"Ada Lovelace","check":true,"integer":7}}`
		case "roots/list":
			return `{"roots":[{"uri":"file:///answered/by/test","name":"test root"}]}`
		}
		t.Errorf("unexpected server request %s", sr.GetMethod())
		return `{}`
	})
	for _, tc := range []struct{ tool, args, want string }{
		{"trigger-sampling-request", `{"prompt":"hi","maxTokens":10}`, "sampled by the test"},
		{"trigger-elicitation-request", `{}`, "Ada Lovelace"},
		{"get-roots-list", `{}`, "file:///answered/by/test"},
	} {
		if got := b.callTool(ctx, t, "", tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s = %s, want it to contain %q", tc.tool, got, tc.want)
		}
	}
	stop()
	methods := <-seen
	for _, m := range []string{"sampling/createMessage", "elicitation/create", "roots/list"} {
		if !strings.Contains(strings.Join(methods, " "), m) {
			t.Errorf("the stream was offered %v, want %s among them", methods, m)
		}
	}
}

// TestServerRequestsNobody shows that with no tunnel and no opted-in
// stream the child gets -32601 at once, and that a configured roots list
// is answered by the bridge itself.
func TestServerRequestsNobody(t *testing.T) {
	t.Parallel()
	srv := peerServer("", testkit.ServerEverything(t))
	srv.Capabilities = json.RawMessage(`{"sampling":{}}`)
	srv.Roots = json.RawMessage(`[{"uri":"file:///configured","name":"configured"}]`)
	srv.ServerRequestTimeout = time.Hour // an answer after a wait would time the test out
	b := startStreamsBridge(t, srv)
	ctx := testCtx(t)
	// A stream that did not opt in is not asked.
	st, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	_ = st
	if got := b.callTool(ctx, t, "", "trigger-sampling-request", `{"prompt":"hi","maxTokens":10}`); !strings.Contains(got, "-32601") {
		t.Errorf("trigger-sampling-request with nobody to ask = %s, want the child to have got -32601", got)
	}
	if got := b.callTool(ctx, t, "", "get-roots-list", `{}`); !strings.Contains(got, "file:///configured") {
		t.Errorf("get-roots-list = %s, want the configured root", got)
	}
}

// TestServerRequestsFixture covers what real servers do not show on
// demand, with the fixture's ask tool.
func TestServerRequestsFixture(t *testing.T) {
	t.Parallel()
	legacy := streamsFixtureServer(t, "legacy", "legacy")
	legacy.ServerRequestTimeout = 300 * time.Millisecond
	b := startStreamsBridge(t, legacy, streamsFixtureServer(t, "modern", "modern"))
	ctx := testCtx(t)
	ask := func(server, method, params string) string {
		return toolText(t, b.callTool(ctx, t, server, "ask", `{"method":"`+method+`","params":`+params+`}`))
	}

	t.Run("ping is answered by the bridge", func(t *testing.T) {
		if got := ask("legacy", "ping", `{}`); got != `{"result":{}}` {
			t.Errorf("ping = %s, want {} as the result", got)
		}
	})

	t.Run("nobody to ask", func(t *testing.T) {
		got := ask("legacy", "sampling/createMessage", `{"messages":[],"maxTokens":1}`)
		if !strings.Contains(got, `"code":-32601`) {
			t.Errorf("sampling with nobody to ask = %s, want -32601", got)
		}
	})

	// The bridge declared roots to its own connection: with nobody to
	// ask, a client with no workspace open has no roots (not -32601, which
	// says roots/list is unknown). docs/protocol.md, "Roots".
	t.Run("roots with nobody to ask", func(t *testing.T) {
		if got := ask("legacy", "roots/list", `{}`); got != `{"result":{"roots":[]}}` {
			t.Errorf("roots/list with nobody to ask = %s, want no roots", got)
		}
	})

	t.Run("a 2026 child gets -32601", func(t *testing.T) {
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		b.subscribe(sctx, t, &mcpbridgev1.SubscribeRequest{Server: "modern", ServerRequests: true})
		if got := ask("modern", "roots/list", `{}`); !strings.Contains(got, `"code":-32601`) {
			t.Errorf("roots/list from a 2026 child = %s, want -32601", got)
		}
	})

	t.Run("an error answer", func(t *testing.T) {
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		st, _ := b.subscribe(sctx, t, &mcpbridgev1.SubscribeRequest{Server: "legacy", ServerRequests: true})
		done := make(chan string, 1)
		go func() {
			done <- ask("legacy", "elicitation/create", `{"message":"m","requestedSchema":{"type":"object"}}`)
		}()
		sr := nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetServerRequest() != nil }).GetServerRequest()
		if sr.GetServer() != "legacy" || sr.GetChildRequestIdJson() != `"q-`+strings.TrimPrefix(sr.GetChildRequestIdJson(), `"q-`) {
			t.Errorf("server_request = %v", sr)
		}
		_, err := b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
			Server: "legacy", Id: sr.GetId(),
			Outcome: &mcpbridgev1.RespondToServerRequestRequest_Error{Error: &mcpbridgev1.JsonRpcError{Code: -1, Message: "user refused", DataJson: `{"why": "no"}`}},
		})
		if err != nil {
			t.Fatalf("RespondToServerRequest(error) = %v", err)
		}
		if got, want := <-done, `{"error":{"code":-1,"message":"user refused","data":{"why":"no"}}}`; got != want {
			t.Errorf("the child got %s, want %s", got, want)
		}
	})

	t.Run("unanswered requests expire", func(t *testing.T) {
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		st, _ := b.subscribe(sctx, t, &mcpbridgev1.SubscribeRequest{Server: "legacy", ServerRequests: true})
		done := make(chan string, 1)
		go func() { done <- ask("legacy", "roots/list", `{}`) }()
		sr := nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetServerRequest() != nil }).GetServerRequest()
		if got := <-done; !strings.Contains(got, `"code":-32603`) {
			t.Errorf("an unanswered request = %s, want -32603", got)
		}
		_, err := b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
			Id: sr.GetId(), Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"roots":[]}`},
		})
		wantCode(t, "RespondToServerRequest after expiry", err, codes.NotFound)
	})

	t.Run("every receiver ended", func(t *testing.T) {
		noExpiry := streamsFixtureServer(t, "", "legacy")
		noExpiry.ServerRequestTimeout = time.Hour
		b := startStreamsBridge(t, noExpiry)
		sctx, stop := context.WithCancel(ctx)
		st, _ := b.subscribe(sctx, t, &mcpbridgev1.SubscribeRequest{ServerRequests: true})
		done := make(chan string, 1)
		go func() {
			done <- toolText(t, b.callTool(ctx, t, "", "ask", `{"method":"roots/list","params":{}}`))
		}()
		nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetServerRequest() != nil })
		stop()
		if got := <-done; !strings.Contains(got, `"code":-32603`) {
			t.Errorf("a request whose only stream ended = %s, want -32603", got)
		}
	})

	t.Run("bad answers are refused", func(t *testing.T) {
		for _, req := range []*mcpbridgev1.RespondToServerRequestRequest{
			{Id: "x"},
			{Id: "x", Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `[1]`}},
			{Id: "x", Outcome: &mcpbridgev1.RespondToServerRequestRequest_Error{Error: &mcpbridgev1.JsonRpcError{Message: "no code"}}},
			{Server: "nope", Id: "x", Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{}`}},
		} {
			_, err := b.client.RespondToServerRequest(ctx, req)
			wantCode(t, "RespondToServerRequest("+req.String()+")", err, codes.InvalidArgument)
		}
		// Invalid JSON and a JSON value of the wrong kind are told apart
		// (the field as a Go caller spells it: fieldnames.go).
		for text, want := range map[string]string{`{"roots":`: "ResultJson is not valid JSON", `[1]`: "must be a JSON object, not an array"} {
			_, err := b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
				Id: "x", Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: text}})
			if !strings.Contains(status.Convert(err).Message(), want) {
				t.Errorf("RespondToServerRequest(%s) = %v, want %q", text, err, want)
			}
		}
		_, err := b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
			Id: "sr-unknown", Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{}`},
		})
		wantCode(t, "RespondToServerRequest(unknown id)", err, codes.NotFound)
	})
}

// TestServerRequestOnCallToolStream shows a call that opted in with
// server_requests being offered the request its own tool makes: it is the
// only call in flight, so it alone is asked, and its answer reaches the
// child before the result ends the stream.
func TestServerRequestOnCallToolStream(t *testing.T) {
	t.Parallel()
	srv := peerServer("", testkit.ServerEverything(t))
	srv.Capabilities = json.RawMessage(everythingCaps)
	b := startStreamsBridge(t, srv)
	ctx := testCtx(t)
	args, _ := structpb.NewStruct(map[string]any{})
	stream, err := b.client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Name: "trigger-elicitation-request", Arguments: args, ServerRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for {
		msg, err := stream.Recv()
		if err != nil {
			t.Fatalf("Recv: %v (asked %d times)", err, asked)
		}
		if sr := msg.GetServerRequest(); sr != nil {
			asked++
			if sr.GetMethod() != "elicitation/create" {
				t.Fatalf("server_request method %q", sr.GetMethod())
			}
			if _, err := b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
				Id: sr.GetId(), Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"name":"Grace Hopper","check":true,"integer":3}}`},
			}); err != nil {
				t.Fatalf("RespondToServerRequest: %v", err)
			}
			continue
		}
		res := msg.GetResult()
		if res == nil {
			continue // progress or logs
		}
		var text strings.Builder
		for _, c := range res.GetContent() {
			text.WriteString(c.GetText().GetText())
		}
		if asked != 1 || !strings.Contains(text.String(), "Grace Hopper") {
			t.Errorf("result %q after %d server requests; want the answer in it after exactly 1", text.String(), asked)
		}
		return
	}
}

// TestServerRequestAnswerBoundToSession: on a bridge without
// authentication every caller is the same principal, so the id and the
// session bind an answer to its request. A legacy child, shared by two
// sessions, asks during session A's CallToolStream while session B has an
// opted-in Subscribe open: B's answer, and one with no mcp-session, are
// NOT_FOUND with exactly what an unknown id gets (nothing tells B the id
// is real), the request still waits, and A's answer, with the request's
// routing_key, reaches the child.
func TestServerRequestAnswerBoundToSession(t *testing.T) {
	t.Parallel()
	legacy := streamsFixtureServer(t, "legacy", "legacy")
	legacy.ServerRequestTimeout = testWait
	b := startStreamsBridge(t, legacy)
	ctx := testCtx(t)
	sessionA, sessionB := withSession(ctx, "session-a"), withSession(ctx, "session-b")
	bctx, stopB := context.WithCancel(sessionB)
	defer stopB()
	b.subscribe(bctx, t, &mcpbridgev1.SubscribeRequest{Server: "legacy", ServerRequests: true})

	args, _ := structpb.NewStruct(map[string]any{"method": "elicitation/create",
		"params": map[string]any{"message": "A's question", "requestedSchema": map[string]any{"type": "object"}}})
	stream, err := b.client.CallToolStream(sessionA, &mcpbridgev1.CallToolStreamRequest{Server: "legacy", Name: "ask", Arguments: args, ServerRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	var sr *mcpbridgev1.ServerRequest
	for sr == nil {
		msg, err := stream.Recv()
		if err != nil {
			t.Fatalf("CallToolStream(ask): %v before the server request", err)
		}
		sr = msg.GetServerRequest()
	}
	if sr.GetRoutingKey() != "session-a" || !regexp.MustCompile(`^sr-[0-9a-f]{12}-[0-9a-f]{32}$`).MatchString(sr.GetId()) {
		t.Fatalf("server_request id %q, routing_key %q; want an id of 128 random bits and session-a", sr.GetId(), sr.GetRoutingKey())
	}
	answer := func(ctx context.Context, id string) error {
		_, err := b.client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Server: "legacy", Id: id,
			Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"who":"the answerer"}}`}})
		return err
	}
	// What a caller learns, its id masked: an id of this bridge that
	// nobody was asked is the reference.
	told := func(err error, id string) string {
		return strings.ReplaceAll(prototext.Format(status.Convert(err).Proto()), id, "<id>")
	}
	unknown := sr.GetId()[:len("sr-")+13] + strings.Repeat("0", 32)
	unknownErr := answer(sessionB, unknown)
	wantCode(t, "an answer for an id nobody was asked", unknownErr, codes.NotFound)
	for who, ctx := range map[string]context.Context{"session B": sessionB, "no session": ctx} {
		err := answer(ctx, sr.GetId())
		wantCode(t, "the answer of "+who, err, codes.NotFound)
		if got, want := told(err, sr.GetId()), told(unknownErr, unknown); got != want {
			t.Errorf("the answer of %s is refused with\n%s\nwant what an unknown id gets:\n%s", who, got, want)
		}
	}
	if err := answer(withSession(ctx, sr.GetRoutingKey()), sr.GetId()); err != nil {
		t.Fatalf("session A's answer, with the routing_key: %v", err)
	}
	for {
		msg, err := stream.Recv()
		if err != nil {
			t.Fatalf("CallToolStream(ask): %v before the result", err)
		}
		if res := msg.GetResult(); res != nil {
			if got := res.GetContent()[0].GetText().GetText(); !strings.Contains(got, "the answerer") {
				t.Errorf("the child got %s, want session A's answer", got)
			}
			return
		}
	}
}
