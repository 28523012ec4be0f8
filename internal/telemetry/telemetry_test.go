package telemetry_test

import (
	"context"
	"os"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The service is named by the caller unless the environment names it:
// OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, win; the SDK's
// default "unknown_service:…" never does.
func TestNewTracerProviderResource(t *testing.T) {
	for _, tc := range []struct {
		name, serviceName, attributes string
		want                          string
	}{
		{"the caller's", "", "", "svc"},
		{"OTEL_SERVICE_NAME", "env-svc", "service.name=attr-svc", "env-svc"},
		{"OTEL_RESOURCE_ATTRIBUTES", "", "service.name=attr-svc,deployment.environment.name=test", "attr-svc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_SERVICE_NAME", tc.serviceName)
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tc.attributes)
			tp, err := telemetry.NewTracerProvider(context.Background(), os.Getenv, "svc", "1.2.3")
			if err != nil {
				t.Fatal(err)
			}
			defer tp.Shutdown(context.Background())
			_, span := tp.Tracer("t").Start(context.Background(), "s")
			defer span.End()
			res := span.(sdktrace.ReadOnlySpan).Resource().Set()
			got, _ := res.Value("service.name")
			version, _ := res.Value("service.version")
			if got.AsString() != tc.want || version.AsString() != "1.2.3" {
				t.Errorf("service.name %q, service.version %q; want %q and 1.2.3", got.AsString(), version.AsString(), tc.want)
			}
		})
	}
}

func TestNewTracerProviderProtocol(t *testing.T) {
	for _, tc := range []struct {
		protocol, tracesProtocol string
		wantErr                  string
	}{
		{"", "", ""},
		{"grpc", "", ""},
		{"http/protobuf", "", ""},
		{"grpc", "http/protobuf", ""},
		{"http/json", "", `OTEL_EXPORTER_OTLP_PROTOCOL "http/json" is not supported`},
		{"grpc", "thrift", `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL "thrift" is not supported`},
	} {
		env := map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": tc.protocol, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": tc.tracesProtocol}
		tp, err := telemetry.NewTracerProvider(context.Background(), func(k string) string { return env[k] }, "svc", "1")
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("protocol %q/%q: %v", tc.protocol, tc.tracesProtocol, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("protocol %q/%q: error %v, want %s", tc.protocol, tc.tracesProtocol, err, tc.wantErr)
		}
		if tp != nil {
			tp.Shutdown(context.Background())
		}
	}
}
