package otlptest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/internal/testkit/otlptest"
)

const waitLimit = 30 * time.Second

// The OpenTelemetry SDK's own OTLP exporters, configured from nothing but
// Env (through internal/telemetry, as the demo server is), deliver a parent
// and a child span over each protocol, with their ids, kinds, attributes,
// status and service.
func TestReceiveFromSDK(t *testing.T) {
	for _, protocol := range []string{otlptest.GRPC, otlptest.HTTPProtobuf} {
		t.Run(protocol, func(t *testing.T) {
			r := otlptest.Start(t)
			for _, kv := range r.Env(protocol) {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			t.Setenv("OTEL_SERVICE_NAME", "")
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
			ctx := context.Background()
			tp, err := telemetry.NewTracerProvider(ctx, os.Getenv, "otlptest-svc", "1.2.3")
			if err != nil {
				t.Fatal(err)
			}
			tracer := tp.Tracer("otlptest-scope")
			pctx, parent := tracer.Start(ctx, "parent", trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("s", "text"), attribute.Int("i", 7), attribute.Bool("b", true),
					attribute.Float64("f", 1.5), attribute.StringSlice("a", []string{"x", "y"})))
			_, child := tracer.Start(pctx, "child")
			child.SetStatus(codes.Error, "it broke")
			child.End()
			parent.End()

			// The batch leaves after Env's 50 ms, without a flush.
			wctx, cancel := context.WithTimeout(ctx, waitLimit)
			defer cancel()
			spans := r.WaitFor(wctx, t, func(s []otlptest.Span) bool { return len(s) >= 2 })
			if err := tp.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			byName := map[string]otlptest.Span{}
			for _, s := range spans {
				byName[s.Name] = s
			}
			p, c := byName["parent"], byName["child"]
			psc := parent.SpanContext()
			want := otlptest.Span{
				TraceID: psc.TraceID().String(), SpanID: psc.SpanID().String(), Name: "parent", Kind: trace.SpanKindServer,
				Attributes: map[string]string{"s": "text", "i": "7", "b": "true", "f": "1.5", "a": "[x,y]"},
				Service:    "otlptest-svc", Scope: "otlptest-scope",
			}
			if diff := cmp.Diff(want, p); diff != "" {
				t.Errorf("parent span (-want +got):\n%s", diff)
			}
			want = otlptest.Span{
				TraceID: psc.TraceID().String(), SpanID: child.SpanContext().SpanID().String(), ParentSpanID: psc.SpanID().String(),
				Name: "child", Kind: trace.SpanKindInternal, Attributes: map[string]string{},
				StatusCode: codes.Error, StatusMessage: "it broke", Service: "otlptest-svc", Scope: "otlptest-scope",
			}
			if diff := cmp.Diff(want, c); diff != "" {
				t.Errorf("child span (-want +got):\n%s", diff)
			}
			if len(spans) != 2 || r.Dropped() != 0 {
				t.Errorf("received %d spans, dropped %d; want 2 and 0", len(spans), r.Dropped())
			}
		})
	}
}

// exportRequest is an ExportTraceServiceRequest of n spans of service svc.
func exportRequest(svc string, n int) *collectortrace.ExportTraceServiceRequest {
	spans := make([]*tracepb.Span, n)
	for i := range spans {
		spans[i] = &tracepb.Span{TraceId: bytes.Repeat([]byte{1}, 16), SpanId: []byte{0, 0, 0, 0, 0, 0, 0, byte(i + 1)}, Name: "s"}
	}
	return &collectortrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: svc}}}}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}},
	}}}
}

// post sends body to the receiver's /v1/traces and returns the status and
// the decoded response (zero unless 200).
func post(t *testing.T, r *otlptest.Receiver, contentType, encoding string, body []byte) (int, *collectortrace.ExportTraceServiceResponse) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.HTTPEndpoint()+"/v1/traces", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out collectortrace.ExportTraceServiceResponse
	if resp.StatusCode == http.StatusOK {
		if got := resp.Header.Get("Content-Type"); got != "application/x-protobuf" {
			t.Errorf("response Content-Type %q, want application/x-protobuf", got)
		}
		if err := proto.Unmarshal(data, &out); err != nil {
			t.Fatalf("response body: %v", err)
		}
	}
	return resp.StatusCode, &out
}

// OTLP/HTTP by hand: a gzipped body is accepted, JSON and garbage are
// refused with the specification's statuses, and beyond MaxSpans spans are
// counted, not kept, and reported as a partial success.
func TestHTTP(t *testing.T) {
	r := otlptest.Start(t)
	plain, err := proto.Marshal(exportRequest("plain", 2))
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	raw, _ := proto.Marshal(exportRequest("zipped", 1))
	zw.Write(raw)
	zw.Close()

	for _, tc := range []struct {
		name, contentType, encoding string
		body                        []byte
		want                        int
	}{
		{"protobuf", "application/x-protobuf", "", plain, http.StatusOK},
		{"gzip", "application/x-protobuf", "gzip", zipped.Bytes(), http.StatusOK},
		{"json", "application/json", "", []byte(`{}`), http.StatusUnsupportedMediaType},
		{"garbage", "application/x-protobuf", "", []byte{0xff, 0xff, 0xff}, http.StatusBadRequest},
		{"bad gzip", "application/x-protobuf", "gzip", plain, http.StatusBadRequest},
		{"zstd", "application/x-protobuf", "zstd", plain, http.StatusUnsupportedMediaType},
	} {
		if code, _ := post(t, r, tc.contentType, tc.encoding, tc.body); code != tc.want {
			t.Errorf("POST %s: status %d, want %d", tc.name, code, tc.want)
		}
	}
	var services []string
	for _, s := range r.Spans() {
		services = append(services, s.Service)
	}
	if diff := cmp.Diff([]string{"plain", "plain", "zipped"}, services); diff != "" {
		t.Errorf("services of the spans kept (-want +got):\n%s", diff)
	}

	// MaxSpans more: 3 are kept already, so the last 3 are rejected.
	big, _ := proto.Marshal(exportRequest("big", otlptest.MaxSpans))
	code, resp := post(t, r, "application/x-protobuf", "", big)
	if code != http.StatusOK || resp.GetPartialSuccess().GetRejectedSpans() != 3 {
		t.Errorf("POST past the bound: status %d, partial success %v; want 200 and 3 rejected", code, resp.GetPartialSuccess())
	}
	if n, d := len(r.Spans()), r.Dropped(); n != otlptest.MaxSpans || d != 3 {
		t.Errorf("kept %d spans, dropped %d; want %d and 3", n, d, otlptest.MaxSpans)
	}
}

// fatalTB records the failure that ends WaitFor.
type fatalTB struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.msg = format
	f.mu.Unlock()
	runtime.Goexit()
}

// WaitFor wakes at each arrival, and fails (rather than hangs) when its
// ctx ends first.
func TestWaitFor(t *testing.T) {
	r := otlptest.Start(t)
	got := make(chan int, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		got <- len(r.WaitFor(ctx, t, func(s []otlptest.Span) bool { return len(s) == 3 }))
	}()
	for _, n := range []int{1, 2} {
		raw, _ := proto.Marshal(exportRequest("w", n))
		post(t, r, "application/x-protobuf", "", raw)
	}
	if n := <-got; n != 3 {
		t.Errorf("WaitFor returned %d spans, want 3", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.WaitFor(ctx, tb, func([]otlptest.Span) bool { return false })
		t.Error("WaitFor returned although nothing satisfied it")
	}()
	<-done
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if !strings.Contains(tb.msg, "did not arrive") {
		t.Errorf("WaitFor with an ended ctx failed with %q", tb.msg)
	}
}
