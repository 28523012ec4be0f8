package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	rt.handle = func(ctx context.Context, req *Request) (json.RawMessage, error) {
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

func TestProgressReporterLimits(t *testing.T) {
	var frames []string
	p := &ProgressReporter{token: json.RawMessage(`"t"`), send: func(_ context.Context, frame []byte) error {
		frames = append(frames, string(frame))
		return nil
	}}
	ctx := context.Background()
	total := 10.0
	if err := p.Report(ctx, 1e-7, &total, "é ok"); err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1e-7,"total":10,"message":"é ok"}}` + "\n"; frames[0] != want {
		t.Errorf("frame %s, want %s", frames[0], want)
	}
	for _, tt := range []struct {
		name     string
		progress float64
		total    *float64
		message  string
	}{
		{"equal", 1e-7, nil, ""},
		{"smaller", 0, nil, ""},
		{"NaN", math.NaN(), nil, ""},
		{"infinite", math.Inf(1), nil, ""},
		{"infinite total", 5, ptrTo(math.Inf(1)), ""},
		{"long message", 5, nil, strings.Repeat("m", 4097)},
		{"invalid UTF-8", 5, nil, "\xff"},
	} {
		if err := p.Report(ctx, tt.progress, tt.total, tt.message); err == nil {
			t.Errorf("Report(%s) = nil, want an error", tt.name)
		}
	}
	if err := p.Report(ctx, 2, nil, strings.Repeat("m", 4096)); err != nil {
		t.Errorf("Report(4096-byte message) = %v", err)
	}
	for i := 3; i <= 1000; i++ {
		if err := p.Report(ctx, float64(i), nil, ""); err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
	}
	if err := p.Report(ctx, 2000, nil, ""); err == nil {
		t.Error("the 1001st report succeeded")
	}
	if len(frames) != 1000 {
		t.Errorf("%d frames, want 1000", len(frames))
	}
	p.close()
	p.n = 0
	if err := p.Report(ctx, 5000, nil, ""); !errors.Is(err, errReporterClosed) {
		t.Errorf("Report after close = %v", err)
	}
	var nilReporter *ProgressReporter
	if err := nilReporter.Report(ctx, 1, nil, ""); err != nil {
		t.Errorf("nil reporter: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }
