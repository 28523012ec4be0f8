package grpcdoor

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// connectCore is a Core whose sessions are fakeSessions of the server
// "a"; opened receives each, and a first message for another server is
// refused as Open refuses an unknown one.
func connectCore(t *testing.T) (mcpbridgev1.BridgeServiceClient, <-chan *fakeSession, <-chan string) {
	core := newCore()
	opened := make(chan *fakeSession, 4)
	firsts := make(chan string, 4)
	core.open = func(_ context.Context, server string, first []byte) (Session, error) {
		if server != "a" {
			return nil, rpcerr.ToStatus(server, connectMethod, &rpcerr.CallError{
				RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", server), Reason: rpcerr.ReasonUnknownServer})
		}
		ss := newFakeSession(server)
		firsts <- string(first)
		opened <- ss
		return ss, nil
	}
	return serve(t, core), opened, firsts
}

// TestConnect shows Connect as an adapter over a session: the first
// message opens it and is its first message, the session's messages come
// back in order, and the client's EOF ends it with OK.
func TestConnect(t *testing.T) {
	t.Parallel()
	client, opened, firsts := connectCore(t)
	ctx := testCtx(t)
	st, err := client.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*mcpbridgev1.ConnectRequest{
		{Server: "a", MessageJson: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{MessageJson: `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{Server: "a", MessageJson: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	}
	for _, m := range msgs {
		if err := st.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CloseSend(); err != nil {
		t.Fatal(err)
	}
	got, err := recvAll(st)
	if err != nil {
		t.Fatalf("Connect ended with %v, want OK", err)
	}
	if len(got) != len(msgs) {
		t.Fatalf("Connect returned %v, want %d messages", got, len(msgs))
	}
	for i, m := range got {
		if m.GetMessageJson() != msgs[i].GetMessageJson() {
			t.Errorf("message %d = %s, want %s", i, m.GetMessageJson(), msgs[i].GetMessageJson())
		}
	}
	if first := <-firsts; first != msgs[0].GetMessageJson() {
		t.Errorf("Open got %s, want the first message", first)
	}
	if ss := <-opened; !ss.isClosed() {
		t.Error("the session is not closed after Connect ended")
	}
}

// TestConnectRefusals shows Connect's refusals: a later message that names
// another server (INVALID_ARGUMENT naming the field server), Open's own
// refusal, a stream that ends before its first message, and a stream
// opened while the bridge shuts down.
func TestConnectRefusals(t *testing.T) {
	t.Parallel()
	client, opened, _ := connectCore(t)
	ctx := testCtx(t)

	t.Run("another server", func(t *testing.T) {
		st, err := client.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "a", MessageJson: `{"jsonrpc":"2.0","id":1,"method":"ping"}`}); err != nil {
			t.Fatal(err)
		}
		if m, err := st.Recv(); err != nil || m.GetMessageJson() != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
			t.Fatalf("first answer %v, %v", m, err)
		}
		if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "b", MessageJson: `{"jsonrpc":"2.0","id":2,"method":"ping"}`}); err != nil {
			t.Fatal(err)
		}
		_, err = recvAll(st)
		wantField(t, "Connect(a then b)", err, "server")
		if ss := <-opened; !ss.isClosed() {
			t.Error("the session is not closed after the refusal")
		}
	})

	t.Run("Open refuses", func(t *testing.T) {
		st, err := client.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "nope", MessageJson: `{}`}); err != nil {
			t.Fatal(err)
		}
		_, err = recvAll(st)
		wantStatus(t, "Connect(nope)", err, codes.InvalidArgument, rpcerr.ReasonUnknownServer, jsonrpc.CodeInvalidParams)
	})

	t.Run("EOF before the first message", func(t *testing.T) {
		st, err := client.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CloseSend(); err != nil {
			t.Fatal(err)
		}
		if got, err := recvAll(st); err != nil || len(got) != 0 {
			t.Errorf("Connect without a message = %v, %v; want OK and nothing", got, err)
		}
	})

	t.Run("the client cancels", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		st, err := client.Connect(cctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "a", MessageJson: `{"jsonrpc":"2.0","id":1,"method":"ping"}`}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Recv(); err != nil {
			t.Fatal(err)
		}
		ss := <-opened
		cancel()
		if _, err := recvAll(st); status.Code(err) != codes.Canceled {
			t.Errorf("Connect after the client's cancel = %v, want CANCELLED", err)
		}
		// The handler returns and closes the session.
		select {
		case <-ss.done:
		case <-ctx.Done():
			t.Error("the session was not closed after the client cancelled")
		}
	})

	t.Run("draining", func(t *testing.T) {
		st, err := client.Connect(metadata.AppendToOutgoingContext(ctx, drainedKey, "1"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = recvAll(st)
		d := wantStatus(t, "Connect(draining)", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
		if d.retry == nil {
			t.Errorf("Connect(draining) = %v without RetryInfo", err)
		}
	})
}
