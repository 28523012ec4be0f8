package seam

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestProgressReporterLimits(t *testing.T) {
	var frames []string
	p := NewProgressReporter(json.RawMessage(`"t"`), func(_ context.Context, frame []byte) error {
		frames = append(frames, string(frame))
		return nil
	})
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
	p.Close()
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
