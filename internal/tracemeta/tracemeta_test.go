package tracemeta_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/tracemeta"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID  = "00f067aa0ba902b7"
)

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, meta     string
		wantValid      bool
		wantState      string
		wantBaggageKey string
	}{
		{"traceparent", `{"traceparent":"00-` + traceID + `-` + spanID + `-01"}`, true, "", ""},
		{"all three", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"00-` + traceID + `-` + spanID + `-01",` +
			`"tracestate":"rojo=00f067aa0ba902b7","baggage":"userId=alice"}`, true, "rojo=00f067aa0ba902b7", "alice"},
		{"escaped", `{"traceparent":"00-` + traceID + `-` + spanID + `-\u00301"}`, true, "", ""},
		{"not a string", `{"traceparent":7}`, false, "", ""},
		{"malformed", `{"traceparent":"00-zz-` + spanID + `-01"}`, false, "", ""},
		{"none", `{"progressToken":1}`, false, "", ""},
		{"no meta", ``, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tracemeta.Extract(context.Background(), json.RawMessage(tc.meta))
			sc := trace.SpanContextFromContext(ctx)
			if sc.IsValid() != tc.wantValid {
				t.Fatalf("Extract(%s): span context valid = %v, want %v", tc.meta, sc.IsValid(), tc.wantValid)
			}
			if !tc.wantValid {
				return
			}
			if sc.TraceID().String() != traceID || sc.SpanID().String() != spanID || !sc.IsRemote() || !sc.IsSampled() {
				t.Errorf("Extract(%s) = %v, want remote sampled %s/%s", tc.meta, sc, traceID, spanID)
			}
			if got := sc.TraceState().String(); got != tc.wantState {
				t.Errorf("tracestate = %q, want %q", got, tc.wantState)
			}
			if got := baggage.FromContext(ctx).Member("userId").Value(); got != tc.wantBaggageKey {
				t.Errorf("baggage userId = %q, want %q", got, tc.wantBaggageKey)
			}
		})
	}
}

// What AppendInject writes, Extract reads back, into no _meta or beside
// the members of one.
func TestInjectExtract(t *testing.T) {
	if got := tracemeta.AppendInject(context.Background(), nil); got != nil {
		t.Errorf("AppendInject without a span = %s, want nil", got)
	}
	in := tracemeta.Extract(context.Background(), json.RawMessage(`{"traceparent":"00-`+traceID+`-`+spanID+`-01","baggage":"k=v"}`))
	for _, meta := range []json.RawMessage{nil, json.RawMessage(`{"k":1}`)} {
		members := tracemeta.AppendInject(in, meta)
		var got map[string]any
		if err := json.Unmarshal(members, &got); err != nil || got["traceparent"] != "00-"+traceID+"-"+spanID+"-01" || (meta != nil && got["k"] != 1.0) {
			t.Errorf("AppendInject(%s) = %s", meta, members)
		}
		out := tracemeta.Extract(context.Background(), members)
		if !trace.SpanContextFromContext(out).Equal(trace.SpanContextFromContext(in)) || baggage.FromContext(out).Member("k").Value() != "v" {
			t.Errorf("Extract(AppendInject(x)) = %v, want %v", trace.SpanContextFromContext(out), trace.SpanContextFromContext(in))
		}
	}
}
