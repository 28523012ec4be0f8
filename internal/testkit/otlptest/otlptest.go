// Package otlptest is an OpenTelemetry collector for tests: a real OTLP
// trace receiver on loopback that speaks both transports an OTLP exporter
// may be configured with, and keeps the spans it receives for the test to
// read.
//
//   - gRPC: the collector's TraceService.Export
//     (opentelemetry.proto.collector.trace.v1), what OTEL_EXPORTER_OTLP_PROTOCOL=grpc
//     sends;
//   - HTTP: POST /v1/traces with an application/x-protobuf
//     ExportTraceServiceRequest body, gzipped or not, what
//     http/protobuf (the specification's default) sends.
//
// A test starts one with [Start], gives a child process [Receiver.Env] (or
// points an exporter at [Receiver.GRPCEndpoint] or
// [Receiver.HTTPEndpoint]), and reads what arrived with [Receiver.Spans],
// or waits for it with [Receiver.WaitFor], which wakes at each export
// rather than polling. The messages are the upstream protobuf types of
// go.opentelemetry.io/proto/otlp, decoded as a collector decodes them, so a
// span the receiver reports is one a real collector would have accepted.
package otlptest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // OTEL_EXPORTER_OTLP_COMPRESSION=gzip over gRPC
	"google.golang.org/protobuf/proto"
)

// The protocols of OTEL_EXPORTER_OTLP_PROTOCOL that the receiver serves.
const (
	GRPC         = "grpc"
	HTTPProtobuf = "http/protobuf"
)

// MaxSpans bounds what a Receiver keeps. The spans beyond it are counted
// ([Receiver.Dropped]) and reported to the exporter as rejected, as a
// collector reports a partial success.
const MaxSpans = 10_000

// maxBody bounds one OTLP/HTTP request body, decompressed.
const maxBody = 32 << 20

// Span is one received span, flattened with what its resource and scope
// say.
type Span struct {
	// TraceID, SpanID and ParentSpanID are lowercase hex; ParentSpanID is
	// "" for a root span.
	TraceID, SpanID, ParentSpanID string
	Name                          string
	Kind                          trace.SpanKind
	// Attributes are the span's own attributes, their values as text:
	// strings as they are, numbers and booleans as strconv formats them,
	// arrays as [a,b], bytes as hex.
	Attributes map[string]string
	// StatusCode and StatusMessage are the span's status.
	StatusCode    codes.Code
	StatusMessage string
	// Service is the service.name of the span's resource.
	Service string
	// Scope is the name of the instrumentation scope that made the span.
	Scope string
}

// Receiver is a running OTLP trace receiver. Its methods are safe for
// concurrent use.
type Receiver struct {
	grpcAddr, httpAddr string

	mu      sync.Mutex
	spans   []Span
	dropped int
	// changed is closed, and replaced, whenever spans arrive: WaitFor
	// waits on it.
	changed chan struct{}
}

// Start starts a Receiver on two loopback ports, one per transport. The
// test's cleanup stops it and waits for its goroutines.
func Start(tb testing.TB) *Receiver {
	tb.Helper()
	r := &Receiver{changed: make(chan struct{})}

	glis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("otlptest: %v", err)
	}
	hlis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		glis.Close()
		tb.Fatalf("otlptest: %v", err)
	}
	r.grpcAddr, r.httpAddr = glis.Addr().String(), hlis.Addr().String()

	gs := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(gs, traceService{r: r})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.serveHTTP)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	// The serving goroutines are Start's; the cleanup stops them and waits.
	var wg sync.WaitGroup
	wg.Go(func() { _ = gs.Serve(glis) })
	wg.Go(func() { _ = hs.Serve(hlis) })
	tb.Cleanup(func() {
		gs.Stop()
		hs.Close()
		wg.Wait()
	})
	return r
}

// GRPCEndpoint returns the gRPC receiver's address as an
// OTEL_EXPORTER_OTLP_ENDPOINT value: "http://127.0.0.1:PORT" (the http
// scheme makes the exporter connect without TLS).
func (r *Receiver) GRPCEndpoint() string { return "http://" + r.grpcAddr }

// HTTPEndpoint returns the OTLP/HTTP receiver's base URL as an
// OTEL_EXPORTER_OTLP_ENDPOINT value, "http://127.0.0.1:PORT"; the
// exporter appends /v1/traces.
func (r *Receiver) HTTPEndpoint() string { return "http://" + r.httpAddr }

// Env returns the OTEL_* variables that make a child process's OTLP trace
// exporter send every span here over protocol ([GRPC] or [HTTPProtobuf]),
// promptly: its batches leave after 50 ms rather than the default 5 s.
// Append them after the rest of the child's environment so that they win.
// It panics on another protocol.
func (r *Receiver) Env(protocol string) []string {
	var endpoint string
	switch protocol {
	case GRPC:
		endpoint = r.GRPCEndpoint()
	case HTTPProtobuf:
		endpoint = r.HTTPEndpoint()
	default:
		panic("otlptest: Env: unknown protocol " + strconv.Quote(protocol))
	}
	return []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol,
		"OTEL_BSP_SCHEDULE_DELAY=50",
		"OTEL_TRACES_SAMPLER=always_on",
	}
}

// Spans returns a copy of every span received so far, in arrival order.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return clone(r.spans)
}

// Dropped returns how many spans arrived after MaxSpans had been kept.
func (r *Receiver) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// WaitFor waits until ok, given every span received so far, returns true,
// and returns those spans. It checks at once and again at each export that
// brings spans. When ctx ends first it fails tb with the spans it saw, so
// it must be called from the test's goroutine.
func (r *Receiver) WaitFor(ctx context.Context, tb testing.TB, ok func([]Span) bool) []Span {
	tb.Helper()
	for {
		r.mu.Lock()
		spans, changed := clone(r.spans), r.changed
		r.mu.Unlock()
		if ok(spans) {
			return spans
		}
		select {
		case <-changed:
		case <-ctx.Done():
			var b strings.Builder
			for _, s := range spans {
				b.WriteString("\n  " + s.String())
			}
			tb.Fatalf("otlptest: the spans awaited did not arrive (%v); %d received:%s", context.Cause(ctx), len(spans), b.String())
			return nil
		}
	}
}

// String describes s on one line, for failure messages.
func (s Span) String() string {
	return strconv.Quote(s.Name) + " " + s.Kind.String() + " trace " + s.TraceID + " span " + s.SpanID +
		" parent " + s.ParentSpanID + " service " + strconv.Quote(s.Service)
}

func clone(spans []Span) []Span { return append([]Span(nil), spans...) }

// add keeps the spans of one export request, up to MaxSpans, and wakes the
// waiters. It returns how many it rejected.
func (r *Receiver) add(req *collectortrace.ExportTraceServiceRequest) (rejected int64) {
	var in []Span
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = text(kv.GetValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				in = append(in, flatten(sp, service, ss.GetScope().GetName()))
			}
		}
	}
	if len(in) == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	room := max(MaxSpans-len(r.spans), 0)
	if len(in) > room {
		rejected = int64(len(in) - room)
		r.dropped += len(in) - room
		in = in[:room]
	}
	if len(in) > 0 {
		r.spans = append(r.spans, in...)
		close(r.changed)
		r.changed = make(chan struct{})
	}
	return rejected
}

func flatten(sp *tracepb.Span, service, scope string) Span {
	s := Span{
		TraceID:       hex.EncodeToString(sp.GetTraceId()),
		SpanID:        hex.EncodeToString(sp.GetSpanId()),
		ParentSpanID:  hex.EncodeToString(sp.GetParentSpanId()),
		Name:          sp.GetName(),
		Kind:          trace.SpanKind(sp.GetKind()), // the same numbers: 1 internal ... 5 consumer
		Attributes:    make(map[string]string, len(sp.GetAttributes())),
		StatusMessage: sp.GetStatus().GetMessage(),
		Service:       service,
		Scope:         scope,
	}
	for _, kv := range sp.GetAttributes() {
		s.Attributes[kv.GetKey()] = text(kv.GetValue())
	}
	switch sp.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_OK:
		s.StatusCode = codes.Ok
	case tracepb.Status_STATUS_CODE_ERROR:
		s.StatusCode = codes.Error
	}
	return s
}

// text is an attribute value as Span.Attributes holds it.
func text(v *commonpb.AnyValue) string {
	switch v := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return v.StringValue
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(v.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(v.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(v.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(v.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, len(v.ArrayValue.GetValues()))
		for i, e := range v.ArrayValue.GetValues() {
			parts[i] = text(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *commonpb.AnyValue_KvlistValue:
		parts := make([]string, len(v.KvlistValue.GetValues()))
		for i, kv := range v.KvlistValue.GetValues() {
			parts[i] = kv.GetKey() + "=" + text(kv.GetValue())
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return ""
}

// partial is the response that reports rejected spans, nil when none were.
func partial(rejected int64) *collectortrace.ExportTracePartialSuccess {
	if rejected == 0 {
		return nil
	}
	return &collectortrace.ExportTracePartialSuccess{
		RejectedSpans: rejected,
		ErrorMessage:  "otlptest: more than " + strconv.Itoa(MaxSpans) + " spans received",
	}
}

// traceService is the gRPC TraceService.
type traceService struct {
	collectortrace.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	return &collectortrace.ExportTraceServiceResponse{PartialSuccess: partial(s.r.add(req))}, nil
}

// serveHTTP is POST /v1/traces, as the OTLP/HTTP specification has it for
// binary protobuf: 415 for another content type (this receiver does not
// take JSON), 400 for a body that does not decode, else 200 with an
// ExportTraceServiceResponse.
func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "otlptest: want Content-Type application/x-protobuf, got "+strconv.Quote(ct), http.StatusUnsupportedMediaType)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, maxBody)
	switch enc := req.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, "otlptest: "+err.Error(), http.StatusBadRequest)
			return
		}
		defer zr.Close()
		body = io.LimitReader(zr, maxBody+1)
	default:
		http.Error(w, "otlptest: unsupported Content-Encoding "+strconv.Quote(enc), http.StatusUnsupportedMediaType)
		return
	}
	data, err := io.ReadAll(body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || len(data) > maxBody:
		http.Error(w, "otlptest: request body too large", http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "otlptest: "+err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, "otlptest: "+err.Error(), http.StatusBadRequest)
		return
	}
	out, err := proto.Marshal(&collectortrace.ExportTraceServiceResponse{PartialSuccess: partial(r.add(&msg))})
	if err != nil {
		http.Error(w, "otlptest: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}
