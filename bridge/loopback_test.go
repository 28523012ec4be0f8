package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Helpers for tests that serve a Service over real gRPC on loopback.

// loopbackBridge serves svc's gRPC server on a loopback port and returns a
// client connection. Cleanup stops both and closes svc.
func loopbackBridge(t *testing.T, svc *Service) *grpc.ClientConn {
	t.Helper()
	return loopbackBridgeWith(t, svc, nil)
}

// loopbackBridgeWith is loopbackBridge with a chance to register more
// services before serving.
func loopbackBridgeWith(t *testing.T, svc *Service, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	t.Cleanup(func() { svc.Close() }) // after serveLoopback's cleanup
	gs := svc.NewGRPCServer()
	if register != nil {
		register(gs)
	}
	return serveLoopback(t, gs)
}

// newService starts a Service and closes it at cleanup.
func newService(t *testing.T, cfg Config) *Service {
	t.Helper()
	svc, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// logRecorder is a slog.Handler that keeps the bridge's log lines so that
// a test can wait for one.
type logRecorder struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{changed: make(chan struct{})} }

// logHandler is a view of a logRecorder with attributes from With.
type logHandler struct {
	r     *logRecorder
	attrs []slog.Attr
}

func (h logHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h logHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	rec.Attrs(add)
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	if len(h.r.lines) < 10000 { // bounded; tests log far less
		h.r.lines = append(h.r.lines, b.String())
	}
	close(h.r.changed)
	h.r.changed = make(chan struct{})
	return nil
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.r, append(slices.Clip(h.attrs), attrs...)}
}

func (h logHandler) WithGroup(string) slog.Handler { return h }

func (r *logRecorder) logger() *slog.Logger { return slog.New(logHandler{r: r}) }

// waitFor returns the first line containing every one of parts, waiting
// for it until ctx ends.
func (r *logRecorder) waitFor(ctx context.Context, t *testing.T, parts ...string) string {
	t.Helper()
	return r.waitCount(ctx, t, 1, parts...)[0]
}

// waitCount waits until at least n lines contain every one of parts, and
// returns those lines; it fails t, with the log, when ctx ends first.
func (r *logRecorder) waitCount(ctx context.Context, t *testing.T, n int, parts ...string) []string {
	t.Helper()
	for {
		r.mu.Lock()
		changed := r.changed
		var got []string
		for _, l := range r.lines {
			if containsAll(l, parts) {
				got = append(got, l)
			}
		}
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-changed:
		case <-ctx.Done():
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("%d log lines with %q, want %d: %v; the log:\n%s", len(got), parts, n, ctx.Err(), strings.Join(r.lines, "\n"))
		}
	}
}

func (r *logRecorder) has(parts ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.lines, func(l string) bool { return containsAll(l, parts) })
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// splitStatus splits err's status into its details.
func splitStatus(err error) (*status.Status, *mcpbridgev1.JsonRpcError, *errdetails.ErrorInfo, *errdetails.RetryInfo) {
	st := status.Convert(err)
	var (
		rpc  *mcpbridgev1.JsonRpcError
		info *errdetails.ErrorInfo
		ri   *errdetails.RetryInfo
	)
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *mcpbridgev1.JsonRpcError:
			rpc = d
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.RetryInfo:
			ri = d
		}
	}
	return st, rpc, info, ri
}
