// Package demo is the content of `mcpbridge demo`, the built-in stdio MCP
// demo server (docs/operations.md): one tool, resource or prompt per
// feature of MCP, each small enough to read as an example of the runtime
// (package stdio/mcp), and with Config.Conformance the fixtures the
// official MCP conformance suite calls. The command (package main's
// demo.go) owns the flags, the process and serving.
package demo

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// Config is what the demo serves.
type Config struct {
	// Tick is the period of the timer that changes demo://counter (and,
	// with Conformance, test://watched-resource); 0 stops it.
	Tick time.Duration
	// Conformance adds the test_* fixtures of the MCP conformance suite
	// (conformance.go).
	Conformance bool
	// Versions are the protocol versions served (mcp.Config.Versions);
	// empty: every version. A single era makes a one-era peer, for
	// cross-era tests of a client or a bridge.
	Versions []string
	// Tracing traces every request (mcp.Config.TracerProvider); nil: no
	// spans.
	Tracing trace.TracerProvider
}

// Demo is the running demo server: its mcp.Server and the state of its
// timer-driven resources.
type Demo struct {
	cfg  Config
	log  *slog.Logger
	srv  *mcp.Server
	tick atomic.Int64 // ticks so far: the content of demo://counter
}

// New builds the demo server with its content and, with
// cfg.Conformance, the conformance fixtures.
func New(cfg Config, log *slog.Logger) (*Demo, error) {
	srv, err := newServer(cfg.Versions, log, cfg.Tracing)
	if err != nil {
		return nil, err
	}
	d := &Demo{cfg: cfg, log: log, srv: srv}
	d.addTools()
	d.addResources()
	d.addPrompts()
	if cfg.Conformance {
		d.addConformance()
	}
	return d, nil
}

// Server is the demo's mcp.Server, for server.Serve.
func (d *Demo) Server() *mcp.Server { return d.srv }

// TickLoop advances the counter every cfg.Tick and announces the change to
// subscribers, until ctx ends. With a zero tick it returns at once.
func (d *Demo) TickLoop(ctx context.Context) {
	if d.cfg.Tick <= 0 {
		return
	}
	t := time.NewTicker(d.cfg.Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.tick.Add(1)
			d.srv.ResourceUpdated(CounterURI)
			if d.cfg.Conformance {
				d.srv.ResourceUpdated(watchedURI)
			}
		}
	}
}

// Version is the version the demo introduces itself with: the module's
// version when built from a tagged module, else "dev".
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// newServer builds the demo's mcp.Server, tracing into tp unless it is
// nil.
func newServer(versions []string, log *slog.Logger, tp trace.TracerProvider) (*mcp.Server, error) {
	return mcp.NewServer(mcp.Implementation{
		Name:        "mcpbridge-demo",
		Title:       "mcpbridge demo server",
		Version:     Version(),
		Description: "The MCP demo server built into mcpbridge",
		WebsiteURL:  "https://github.com/mcpbridge/mcpbridge",
	}, mcp.Config{
		Versions:     versions,
		Instructions: instructions,
		// Nothing the demo returns depends on who asks.
		CacheScope:     "public",
		Logger:         log,
		TracerProvider: tp,
	})
}

const instructions = "The mcpbridge demo server. Read demo://about for what each tool, resource and prompt shows; " +
	"every tool argument has a default."

// About describes the demo's content: the text of demo://about and the
// heart of `mcpbridge demo -h`.
const About = `The built-in MCP demo server. It speaks MCP on stdin and stdout, in every
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
  build(steps, seconds, confirm)
                        a long job: steps (default 5) of seconds (default 1) each, with
                        status and progress, then (confirm) asks whether to publish; a
                        task when the client takes one
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
