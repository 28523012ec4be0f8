package door

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// The door's end-to-end tests, every path with real children and a real
// gRPC server, are package bridge's (TestDoorEveryPath and the others of
// door_test.go and principals_test.go); these are its parts alone, with
// a real child where a call needs one (fixture_test.go).
func TestMain(m *testing.M) {
	reaper.Main() // the test binary is the reaper of the children its tests start
	fixtures.Main(m)
}

// fixtures are the programs a test can run as a child; fixture_test.go
// registers them.
var fixtures = testkit.Fixtures{}

// Metric labels take at most maxLabelValues names per server and kind,
// and only names of calls that succeeded: a caller's or a child's
// invented names end as "_other", so the series count stays bounded.
func TestLabelCardinality(t *testing.T) {
	reg := prometheus.NewRegistry()
	o, err := NewObserver(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.label("s", access.Tool, "nope", false); got != OtherLabel {
		t.Errorf("a failed call's name = %q, want %q", got, OtherLabel)
	}
	for i := range maxLabelValues {
		if got := o.label("s", access.Tool, fmt.Sprint("t", i), true); got != fmt.Sprint("t", i) {
			t.Fatalf("name %d = %q", i, got)
		}
	}
	if got := o.label("s", access.Tool, "one-too-many", true); got != OtherLabel {
		t.Errorf("name %d = %q, want %q", maxLabelValues+1, got, OtherLabel)
	}
	if got := o.label("s", access.Tool, "t7", false); got != "t7" {
		t.Errorf("an admitted name on a failed call = %q, want it kept", got)
	}
	if got := o.label("s", access.Prompt, "p", true); got != "p" {
		t.Errorf("another kind's own bound: %q", got)
	}
	if got := o.label("other-server", access.Tool, "x", true); got != "x" {
		t.Errorf("another server's own bound: %q", got)
	}
	// Through the histogram: 150 distinct successful names make at most
	// maxLabelValues+1 series.
	for i := range 150 {
		op := &operation{o: o, server: "h", method: "tools/call", kind: access.Tool, name: fmt.Sprint("n", i), start: time.Now()}
		op.end(json.RawMessage(`{"content":[]}`), nil)
	}
	if n := testutil.CollectAndCount(o.duration); n != maxLabelValues+1 {
		t.Errorf("%d series after 150 names, want %d", n, maxLabelValues+1)
	}
}

// BenchmarkObserveOperation is the observer's own work for one request to
// a child, alone: begin, the _meta merge, the request id hook and end,
// without an observer (off), with metrics, and with tracing unsampled and
// sampled (spans made, not exported). Reproduce with
//
//	go test -run '^$' -bench 'ObserveOperation' -benchmem ./bridge/internal/door/
func BenchmarkObserveOperation(b *testing.B) {
	params := json.RawMessage(`{"name":"pid","arguments":{}}`)
	res := json.RawMessage(`{"content":[{"type":"text","text":"1"}]}`)
	for _, c := range []struct {
		name    string
		metrics bool
		sampler sdktrace.Sampler
	}{
		{"obs=off", false, nil},
		{"obs=metrics", true, nil},
		{"obs=tracing-unsampled", false, sdktrace.NeverSample()},
		{"obs=tracing-sampled", false, sdktrace.AlwaysSample()},
	} {
		b.Run(c.name, func(b *testing.B) {
			var reg prometheus.Registerer
			if c.metrics {
				reg = prometheus.NewRegistry()
			}
			var tp trace.TracerProvider
			if c.sampler != nil {
				sdk := sdktrace.NewTracerProvider(sdktrace.WithSampler(c.sampler))
				b.Cleanup(func() { sdk.Shutdown(context.Background()) })
				tp = sdk
			}
			o, err := NewObserver(reg, tp)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				op := o.begin(ctx, "s", nil, NewRequest(ViaGRPC, nil, "tools/call", params), false)
				opts := op.options(&stdio.CallOptions{})
				if opts.OnRequestID != nil {
					opts.OnRequestID(1)
				}
				op.end(res, nil)
			}
		})
	}
}

// TestParseRequest: a tunnel request read in one pass names the same
// target as NewRequest and carries its _meta when it is an object.
func TestParseRequest(t *testing.T) {
	for _, c := range []struct{ method, params, meta string }{
		{"tools/call", `{"name":"echo","arguments":{"name":"not me"},"_meta":{"progressToken":1}}`, `{"progressToken":1}`},
		{"tools/call", `{"_meta":{"a":1},"n\u0061me":"escaped"}`, `{"a":1}`},
		{"prompts/get", `{"name":"p","_meta":"not an object"}`, ``},
		{"resources/read", `{"uri":"demo://x"}`, ``},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"demo://t/{x}"},"argument":{"name":"x","value":""}}`, ``},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"}}`, ``},
		{"subscriptions/listen", `{"notifications":{"resourceSubscriptions":["a://1","a://2"]},"_meta":{}}`, `{}`},
		{"tools/list", `{}`, ``},
		{"tools/call", `not json`, ``},
		{"tools/call", `{"name":"first","_meta":{"a":1},"name":"last","_meta":{"b":2}}`, `{"b":2}`},
		{"tools/call", ` { "name" : "spaced" , "_meta" : { "a" : [1, "}"] } } `, `{ "a" : [1, "}"] }`},
	} {
		got := ParseRequest(ViaConnect, nil, c.method, json.RawMessage(c.params))
		want := NewRequest(ViaConnect, nil, c.method, json.RawMessage(c.params))
		if got.Kind != want.Kind || !slices.Equal(got.Names, want.Names) || string(got.Meta) != c.meta {
			t.Errorf("ParseRequest(%s, %s) = %v %q meta %s; want %v %q meta %s", c.method, c.params, got.Kind, got.Names, got.Meta, want.Kind, want.Names, c.meta)
		}
	}
}
