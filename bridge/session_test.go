package bridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestSessionAnswersWhatCameBeforeCloseSend drives the session core
// in process, as a door does: each of many sessions is handed one request
// and closed for sending at once, and each answers that request before it
// ends (io.EOF). A message queued before CloseSend is never lost to it,
// however the session's loop sees the two.
func TestSessionAnswersWhatCameBeforeCloseSend(t *testing.T) {
	t.Parallel()
	svc, err := New(Config{Servers: []ServerConfig{typedChildServer(t, "demo", "modern")}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ctx := testCtx(t)
	for i := range 100 {
		id := strconv.Itoa(i)
		req := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + testkit.WithModernMeta(`{}`) + `}`)
		ss, err := svc.Open(context.Background(), "demo", req)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if err := ss.Send(req); err != nil {
			t.Fatalf("Send: %v", err)
		}
		ss.CloseSend()
		var got []string
		for {
			msg, err := ss.Recv(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("session %d: Recv: %v after %q", i, err, got)
			}
			got = append(got, string(msg))
		}
		ss.Close()
		if len(got) != 1 || !strings.Contains(got[0], `"id":`+id+`,"result"`) {
			t.Fatalf("session %d answered %q, want the response to its one request", i, got)
		}
	}
}
