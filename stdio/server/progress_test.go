package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// Server: progress ordering (docs/stdio.md, scenarios 90-92).

func TestServeProgressOrdering(t *testing.T) { // scenario 90
	finals := map[string]string{
		"complete":       `"result":{"resultType":"complete","done":true}`,
		"error":          `"error":{"code":-32602,"message":"Progress failed"}`,
		"input_required": `"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list","params":{}}}}`,
	}
	for _, token := range []string{`"token"`, `0`} {
		for _, outcome := range []string{"complete", "error", "input_required"} {
			t.Run(token+" "+outcome, func(t *testing.T) {
				params := fmt.Sprintf(`{"steps":[0,0.5],"total":1,"outcome":%q,"_meta":{"progressToken":%s}}`, outcome, token)
				lines, err := serveString(t, newFakeRuntime(), Config{}, reqLine(1, "progress", params)+"\n")
				if err != nil {
					t.Fatalf("Serve = %v", err)
				}
				want := []string{
					`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":0,"total":1}}`,
					`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":0.5,"total":1}}`,
					`{"jsonrpc":"2.0","id":1,` + finals[outcome] + `}`,
				}
				if diff := cmp.Diff(want, lines); diff != "" {
					t.Errorf("frames (-want +got):\n%s", diff)
				}
			})
		}
	}
	t.Run("no token", func(t *testing.T) {
		lines, _ := serveString(t, newFakeRuntime(), Config{}, reqLine(1, "progress", `{"steps":[0,0.5]}`)+"\n")
		if want := []string{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","done":true}}`}; !cmp.Equal(want, lines) {
			t.Errorf("frames %q, want only the final %q", lines, want)
		}
	})
}

func TestServeProgressConcurrent(t *testing.T) { // scenario 91
	h := startServe(t, newFakeRuntime(), Config{})
	for i := range 12 {
		h.sendLine(reqLine(i, "progress", fmt.Sprintf(`{"steps":[1,2],"_meta":{"progressToken":"t%d"}}`, i)))
	}
	seen := map[string][]string{}
	for range 36 {
		w := h.nextMsg()
		if w.Method == "notifications/progress" {
			var p struct {
				ProgressToken string
				Progress      float64
				Meta          json.RawMessage `json:"_meta"`
			}
			json.Unmarshal(w.Params, &p)
			if p.Meta != nil || w.ID != nil {
				t.Errorf("progress frame %s carries an id or _meta", w.line)
			}
			id := strings.TrimPrefix(p.ProgressToken, "t")
			seen[id] = append(seen[id], fmt.Sprintf("progress %v", p.Progress))
		} else {
			seen[string(w.ID)] = append(seen[string(w.ID)], "final")
		}
	}
	for i := range 12 {
		if diff := cmp.Diff([]string{"progress 1", "progress 2", "final"}, seen[fmt.Sprint(i)]); diff != "" {
			t.Errorf("request %d frames (-want +got):\n%s", i, diff)
		}
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q", h.err, rest)
	}
}

func TestServeProgressAfterCancel(t *testing.T) { // scenario 92
	rt := newFakeRuntime()
	reportErr := make(chan error, 1)
	rt.handle = func(ctx context.Context, req *seam.Request) (json.RawMessage, error) {
		if err := req.Progress.Report(ctx, 0, nil, "started"); err != nil {
			return nil, err
		}
		<-rt.gate("a") // ignores ctx
		reportErr <- req.Progress.Report(ctx, 0.5, nil, "")
		req.Notify(ctx, "notifications/message", json.RawMessage(`{"level":"info","data":"late"}`))
		return json.RawMessage(`{"late":true}`), nil
	}
	synced := make(chan struct{}, 1)
	rt.notify = func(context.Context, string, json.RawMessage) { synced <- struct{}{} }
	h := startServe(t, rt, Config{})
	h.sendLine(reqLine(1, "work", `{"_meta":{"progressToken":"p"}}`))
	if got := h.next(); got != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":0,"message":"started"}}` {
		t.Errorf("first frame %s", got)
	}
	h.sendLine(cancelLine(1, ""))
	h.sendLine(notifLine("notifications/sync", `{}`))
	<-synced
	rt.open("a")
	if err := <-reportErr; err == nil {
		t.Error("Report after the cancellation succeeded")
	}
	rt.waitEvent(t, "end")
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q: nothing more for the cancelled id", h.err, rest)
	}
}
