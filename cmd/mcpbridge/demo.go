package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/demo"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// demoFlags are what the flags of `mcpbridge demo` set: the config and
// the flags checked before it is complete.
type demoFlags struct {
	cfg demo.Config
	// requestTimeout is each request's deadline (server.Config).
	requestTimeout                 time.Duration
	logLevel, versions, cpuProfile string
}

// newDemoFlags returns the flag set of `mcpbridge demo`, which sets f.
func newDemoFlags() (*demoFlags, *flag.FlagSet) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	f := &demoFlags{}
	fs.DurationVar(&f.cfg.Tick, "tick", 3*time.Second, "how often demo://counter changes and its subscribers are notified (0: never)")
	fs.BoolVar(&f.cfg.Conformance, "conformance", false, "also serve the test_* tools, resources and prompts the official MCP conformance suite calls")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 5*time.Minute, "the deadline of each request, counted from its arrival (negative: none)")
	fs.StringVar(&f.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	fs.StringVar(&f.versions, "versions", "", "the protocol versions served, comma-separated, in preference order (default: "+strings.Join(stdio.DefaultVersions(), ",")+")")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (for benchmarks)")
	return f, fs
}

// runDemo is `mcpbridge demo`, the built-in stdio MCP demo server: every
// protocol era the runtime serves (2026-07-28, 2025-11-25, 2025-06-18) on
// stdin and stdout, until stdin ends or SIGINT or SIGTERM arrives. Its
// content is package internal/demo's; -conformance adds the conformance
// suite's fixtures. When the OTEL_* environment asks for
// traces (telemetry.Configured), every request is a span exported over
// OTLP, flushed before the demo exits (docs/operations.md).
func runDemo(args []string) error {
	// First, before anything can print: from here on only server.Serve
	// writes to the protocol output, and a stray write to os.Stdout lands
	// on stderr.
	out, err := server.TakeStdout()
	if err != nil {
		return err
	}

	f, fs := newDemoFlags()
	// Help goes to stderr: stdout is the MCP protocol.
	if err := parseFlags(fs, args, func(io.Writer) { printDemoUsage(os.Stderr, fs) }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usageError{err: fmt.Errorf("demo takes no arguments, got %q", fs.Args())}
	}
	cfg := f.cfg
	if f.versions != "" {
		cfg.Versions = strings.Split(f.versions, ",")
		seen := map[string]bool{}
		for _, v := range cfg.Versions {
			if !slices.Contains(stdio.DefaultVersions(), v) || seen[v] {
				return usageError{err: fmt.Errorf("invalid value %q for flag --versions: want distinct versions among %s", f.versions, strings.Join(stdio.DefaultVersions(), ", "))}
			}
			seen[v] = true
		}
	}
	if cfg.Tick < 0 {
		return usageError{err: fmt.Errorf("invalid value %v for flag --tick: must not be negative", cfg.Tick)}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usageError{err: fmt.Errorf("invalid value %q for flag --log-level: want debug, info, warn or error", f.logLevel)}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if telemetry.Configured(os.Getenv) {
		tp, err := telemetry.NewTracerProvider(context.Background(), os.Getenv, "mcpbridge-demo", demo.Version())
		if err != nil {
			// A mistake in the environment, reported as a flag's would be.
			return usageError{err: err}
		}
		// Registered first, so it runs last: after Serve has returned and
		// the ticker stopped, at stdin EOF and after a signal alike.
		defer flushTraces(tp, log)
		cfg.Tracing = tp
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}

	d, err := demo.New(cfg, log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The ticker is runDemo's: it stops and is waited for before return.
	tickCtx, stopTick := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { d.TickLoop(tickCtx) })
	defer func() {
		stopTick()
		wg.Wait()
	}()

	log.Info("mcpbridge demo: serving MCP on stdin and stdout", "conformance", cfg.Conformance, "tick", cfg.Tick,
		"tracing", cfg.Tracing != nil)
	err = server.Serve(ctx, d.Server(), os.Stdin, out, server.Config{
		RequestTimeout: f.requestTimeout,
		Logger:         log,
	})
	if ctx.Err() != nil {
		log.Info("mcpbridge demo: stopped by a signal")
		return nil
	}
	return err
}

// traceFlushTimeout bounds the export of the spans still buffered when the
// demo exits, so that an unreachable collector delays the exit by at most
// this much.
const traceFlushTimeout = 5 * time.Second

// flushTraces shuts tp down, exporting what it still holds.
func flushTraces(tp *sdktrace.TracerProvider, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil {
		log.Warn("mcpbridge demo: the last spans were not exported", "error", err)
	}
}

// printDemoUsage writes the demo's usage and flags to w.
func printDemoUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, demoUsage)
	printDefaults(w, fs)
}

const demoUsage = "usage: mcpbridge demo [flags]\n\n" + demo.About + `
With -conformance it also serves the fixtures of the official MCP conformance
suite (@modelcontextprotocol/conformance): tools test_simple_text ...
test_input_required_result_capabilities, json_schema_2020_12_tool; resources
test://static-text, test://static-binary, test://template/{id}/data,
test://watched-resource (changes every -tick); prompts test_simple_prompt ...
test_input_required_result_prompt.

Tracing: when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
or OTEL_TRACES_EXPORTER=otlp) is set, each request is an OpenTelemetry span of
service mcpbridge-demo, exported over OTLP (OTEL_EXPORTER_OTLP_PROTOCOL grpc or
http/protobuf, the default) and flushed at exit. OTEL_SDK_DISABLED=true turns
it off.

Flags:
`

// startCPUProfile profiles the process into path until stop is called. The
// demo runs as a child of the host, so a profile of the server under load
// (BenchmarkEchoServer) is taken from inside it; the run must end at stdin
// EOF or a signal for the profile to be complete.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
