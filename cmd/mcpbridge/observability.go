package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/configfile"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// observability is serve's metrics endpoint and tracing
// (docs/observability.md): /metrics on --metrics-listen (or the config
// file's metrics_listen), and OpenTelemetry tracing when the OTEL_*
// environment asks for it.
type observability struct {
	lis    net.Listener
	http   *http.Server
	served chan struct{}
	tp     *sdktrace.TracerProvider
}

// flushTimeout bounds the export of the spans still buffered at exit.
const flushTimeout = 5 * time.Second

// apply sets up what the flags, the file and the environment ask for, and
// puts it in cfg. The metrics listener is opened now, so that a taken port
// fails the start.
func (o *observability) apply(ctx context.Context, f *serveFlags, file *configfile.File, cfg *bridge.Config, log *slog.Logger) error {
	if telemetry.Configured(os.Getenv) {
		tp, err := telemetry.NewTracerProvider(ctx, os.Getenv, "mcpbridge", version())
		if err != nil {
			return usageError{err: err}
		}
		o.tp, cfg.TracerProvider = tp, tp
		log.Info("mcpbridge: tracing", "endpoint", redactURL(firstSet("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")),
			"protocol", firstSet("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	var fileAddr string
	if file != nil {
		fileAddr = file.MetricsListen
	}
	// A bare :port is loopback: the endpoint has no authentication, so
	// exposing it is a decision the address states (0.0.0.0:9464).
	addr, err := listenSetting(f, "metrics-listen", f.metricsListen, "metrics_listen", fileAddr)
	if err != nil || addr == "" {
		return err
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cfg.Metrics = reg
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelError),
		Registry:            reg, // promhttp's own metrics
		MaxRequestsInFlight: 4,
		Timeout:             30 * time.Second,
	}))
	o.lis, o.http = lis, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return nil
}

// serve starts serving /metrics, once the Service has registered its
// metrics.
func (o *observability) serve(log *slog.Logger) {
	if o.lis == nil {
		return
	}
	exposed := !isLoopback(o.lis.Addr().String())
	log.Info("mcpbridge: serving metrics", "listen", o.lis.Addr().String(), "path", "/metrics", "loopback", !exposed)
	o.served = make(chan struct{})
	go func() {
		defer close(o.served)
		if err := o.http.Serve(o.lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("mcpbridge: the metrics endpoint stopped", "error", err)
		}
	}()
}

// close stops the endpoint and flushes the spans still buffered.
func (o *observability) close(log *slog.Logger) {
	if o.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = o.http.Shutdown(ctx)
		cancel()
		if o.served != nil {
			<-o.served
		} else {
			o.lis.Close()
		}
	}
	if o.tp != nil {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		if err := o.tp.Shutdown(ctx); err != nil {
			log.Warn("mcpbridge: exporting the last spans failed", "error", err)
		}
	}
}

// firstSet is the value of the first of the environment variables that is
// set.
func firstSet(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// redactURL drops the user information of a URL, which may hold a
// secret, for the log.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	return u.String()
}
