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
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// demoConfig is what the flags of `mcpbridge demo` set.
type demoConfig struct {
	// tick is the period of the timer that changes demo://counter (and,
	// with conformance, test://watched-resource); 0 stops it.
	tick time.Duration
	// conformance adds the test_* fixtures of the MCP conformance suite
	// (demo_conformance.go).
	conformance bool
	// requestTimeout is each request's deadline (server.Config).
	requestTimeout time.Duration
	// versions are the protocol versions served (mcp.Config.Versions);
	// empty: every version. A single era makes a one-era peer, for
	// cross-era tests of a client or a bridge.
	versions []string
	// tracing traces every request (mcp.Config.TracerProvider); nil
	// when the OTEL_* environment does not ask for traces.
	tracing trace.TracerProvider
}

// demoFlags are what the flags of `mcpbridge demo` set: the config and
// the flags checked before it is complete.
type demoFlags struct {
	cfg                            demoConfig
	logLevel, versions, cpuProfile string
}

// newDemoFlags returns the flag set of `mcpbridge demo`, which sets f.
func newDemoFlags() (*demoFlags, *flag.FlagSet) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	f := &demoFlags{}
	fs.DurationVar(&f.cfg.tick, "tick", 3*time.Second, "how often demo://counter changes and its subscribers are notified (0: never)")
	fs.BoolVar(&f.cfg.conformance, "conformance", false, "also serve the test_* tools, resources and prompts the official MCP conformance suite calls")
	fs.DurationVar(&f.cfg.requestTimeout, "request-timeout", 5*time.Minute, "the deadline of each request, counted from its arrival (negative: none)")
	fs.StringVar(&f.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	fs.StringVar(&f.versions, "versions", "", "the protocol versions served, comma-separated, in preference order (default: "+strings.Join(stdio.DefaultVersions(), ",")+")")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (for benchmarks)")
	return f, fs
}

// runDemo is `mcpbridge demo`, the built-in stdio MCP demo server: every
// protocol era the runtime serves (2026-07-28, 2025-11-25, 2025-06-18) on
// stdin and stdout, until stdin ends or SIGINT or SIGTERM arrives. Its
// content is in demo_content.go; -conformance adds the conformance suite's
// fixtures (demo_conformance.go). When the OTEL_* environment asks for
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
		cfg.versions = strings.Split(f.versions, ",")
		seen := map[string]bool{}
		for _, v := range cfg.versions {
			if !slices.Contains(stdio.DefaultVersions(), v) || seen[v] {
				return usageError{err: fmt.Errorf("invalid value %q for flag --versions: want distinct versions among %s", f.versions, strings.Join(stdio.DefaultVersions(), ", "))}
			}
			seen[v] = true
		}
	}
	if cfg.tick < 0 {
		return usageError{err: fmt.Errorf("invalid value %v for flag --tick: must not be negative", cfg.tick)}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usageError{err: fmt.Errorf("invalid value %q for flag --log-level: want debug, info, warn or error", f.logLevel)}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if telemetry.Configured(os.Getenv) {
		tp, err := telemetry.NewTracerProvider(context.Background(), os.Getenv, "mcpbridge-demo", demoVersion())
		if err != nil {
			// A mistake in the environment, reported as a flag's would be.
			return usageError{err: err}
		}
		// Registered first, so it runs last: after Serve has returned and
		// the ticker stopped, at stdin EOF and after a signal alike.
		defer flushTraces(tp, log)
		cfg.tracing = tp
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}

	d, err := newDemo(cfg, log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The ticker is runDemo's: it stops and is waited for before return.
	tickCtx, stopTick := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { d.tickLoop(tickCtx) })
	defer func() {
		stopTick()
		wg.Wait()
	}()

	log.Info("mcpbridge demo: serving MCP on stdin and stdout", "conformance", cfg.conformance, "tick", cfg.tick,
		"tracing", cfg.tracing != nil)
	err = server.Serve(ctx, d.srv, os.Stdin, out, server.Config{
		RequestTimeout: cfg.requestTimeout,
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

// demoAbout describes the demo's content: the text of demo://about and the
// heart of `mcpbridge demo -h`.
const demoAbout = `The built-in MCP demo server. It speaks MCP on stdin and stdout, in every
protocol era (2026-07-28, and 2025-11-25 or 2025-06-18 after initialize;
-versions serves fewer), logs on stderr, and exits when stdin ends. Every tool argument has a default,
so each tool can be called without arguments.

Tools:
  echo(message)         returns message (default "hello"), as text and as structured content
  progress(seconds, steps)
                        works for seconds (default 2), reporting progress after each of
                        steps equal steps (default 4)
  large_result(bytes)   returns one text block of that many bytes (default 100000)
  fail(message)         always fails: an isError result carrying message
  ask(question)         asks the user through elicitation (a one-field form)
  exit(code)            exits the process at once with code (default 1), for crash tests
  whoami()              the process id, host name and DEMO_SESSION variable of the
                        process that answered: where a balancer sent the call
Resources:
  demo://about          this text
  demo://counter        changes every -tick; subscribe to it to be notified
  demo://pixel.png      a 1x1 PNG image (a blob)
  demo://greeting/{name}
                        a template, with completion of name
Prompts:
  greet(name, style)    with completion of both arguments
`

const demoUsage = "usage: mcpbridge demo [flags]\n\n" + demoAbout + `
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

// demoVersion is the version the demo introduces itself with: the module's
// version when built from a tagged module, else "dev".
func demoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// newDemoServer builds the demo's mcp.Server, tracing into tp unless it is
// nil.
func newDemoServer(versions []string, log *slog.Logger, tp trace.TracerProvider) (*mcp.Server, error) {
	return mcp.NewServer(mcp.Implementation{
		Name:        "mcpbridge-demo",
		Title:       "mcpbridge demo server",
		Version:     demoVersion(),
		Description: "The MCP demo server built into mcpbridge",
		WebsiteURL:  "https://github.com/mcpbridge/mcpbridge",
	}, mcp.Config{
		Versions:     versions,
		Instructions: demoInstructions,
		// Nothing the demo returns depends on who asks.
		CacheScope:     "public",
		Logger:         log,
		TracerProvider: tp,
	})
}

const demoInstructions = "The mcpbridge demo server. Read demo://about for what each tool, resource and prompt shows; " +
	"every tool argument has a default."

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
