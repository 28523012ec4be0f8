// Package telemetry configures OpenTelemetry tracing from the standard
// OTEL_* environment variables, for the bridge and for the demo server.
// Trace context in an MCP request's params._meta is package
// internal/tracemeta's, which needs only the OpenTelemetry API, so that the
// stdio MCP runtime can use it without the SDK and exporters this package
// links.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
)

// Configured reports whether the environment asks for traces: an OTLP
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp. Tracing
// is off otherwise, and always when OTEL_SDK_DISABLED is true or
// OTEL_TRACES_EXPORTER is none.
func Configured(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// NewTracerProvider returns an SDK TracerProvider that exports over OTLP
// in batches. The exporters read their endpoint, headers, TLS and timeout
// from the OTEL_EXPORTER_OTLP_* variables themselves; the protocol is
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL, "grpc"
// or "http/protobuf" (the default, as the specification says). The SDK reads
// OTEL_TRACES_SAMPLER and its argument, OTEL_BSP_*, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES; service names the service when
// OTEL_SERVICE_NAME does not. Shut it down to flush what is buffered.
func NewTracerProvider(ctx context.Context, getenv func(string) string, service, version string) (*sdktrace.TracerProvider, error) {
	name := "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	protocol := getenv(name)
	if protocol == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		protocol = getenv(name)
	}
	var exp sdktrace.SpanExporter
	var err error
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("%s %q is not supported (grpc or http/protobuf)", name, protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
	}
	// Later resources win. resource.Default() names every service
	// "unknown_service:<program>", so service must come after it, and the
	// environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) after that.
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(semconv.ServiceName(service), semconv.ServiceVersion(version)))
	if err == nil || errors.Is(err, resource.ErrPartialResource) || errors.Is(err, resource.ErrSchemaURLConflict) {
		res, err = resource.Merge(res, resource.Environment())
	}
	if err != nil && !errors.Is(err, resource.ErrPartialResource) && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("the trace resource: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}
