package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/asynclog"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// defaultShutdownTimeout bounds how long a graceful shutdown waits for
// calls in flight.
const defaultShutdownTimeout = 10 * time.Second

// logFlushTimeout bounds how long the bridge waits, as it exits, for its
// log to be written.
const logFlushTimeout = 2 * time.Second

// serveFlags are the flags of `mcpbridge serve`.
type serveFlags struct {
	listen          string
	name            string
	protocol        string
	maxMessageBytes int
	maxRequestBytes int
	exposeStderr    bool
	capabilities    string
	childLogLevel   string
	roots           string
	defaultDeadline time.Duration
	maxDeadline     time.Duration
	grace           time.Duration
	handshake       time.Duration
	maxRestarts     int
	maxBackoff      time.Duration
	shutdownTimeout time.Duration
	reaper          bool
	logLevel        slog.Level
	command         []string
}

// parseServe parses and checks the arguments of `mcpbridge serve`. Every
// error it returns is a usageError.
func parseServe(args []string) (*serveFlags, error) {
	f := &serveFlags{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mcpbridge serve [flags] [--] [command [args...]]\n\n"+
			"Fronts the stdio MCP server that command starts (default: the built-in demo\n"+
			"server) with gRPC: mcpbridge.v1.BridgeService, grpc.health.v1 and server\n"+
			"reflection. SIGINT or SIGTERM shut it down gracefully; a second one forces it.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.listen, "listen", "127.0.0.1:50051", "`address` to serve gRPC on (host:port; port 0 picks a free one)")
	fs.StringVar(&f.name, "name", "", "the fronted server's `name` (the server field and mcp-server metadata; may stay empty)")
	fs.StringVar(&f.protocol, "protocol", "auto", "MCP protocol `version`: auto (negotiate), or pin one of "+strings.Join(stdio.DefaultVersions, ", "))
	fs.IntVar(&f.maxMessageBytes, "max-message-bytes", bridge.DefaultMaxMessageBytes, "the size limit of gRPC messages and of the child's lines, in `bytes`")
	fs.IntVar(&f.maxRequestBytes, "max-request-bytes", 0, "the child's own line limit, in `bytes`: longer requests are refused at the bridge (0: none)")
	fs.StringVar(&f.capabilities, "client-capabilities", bridge.DefaultCapabilities, "the client capabilities the bridge declares to the child, a JSON `object`: what it routes to callers")
	fs.StringVar(&f.roots, "roots", "", "a JSON `array` of Root objects with which the bridge itself answers the child's roots/list (default: routed to callers)")
	fs.StringVar(&f.childLogLevel, "child-log-level", "", "the logging `level` a legacy child is held at while no caller asks for more (default: the child's own)")
	fs.BoolVar(&f.exposeStderr, "expose-stderr", false, "send the child's last stderr lines to gRPC clients in GetServer (the log has them always)")
	fs.DurationVar(&f.defaultDeadline, "default-deadline", bridge.DefaultDeadline, "deadline of calls that arrive without one (not Subscribe or Connect)")
	fs.DurationVar(&f.maxDeadline, "max-deadline", bridge.DefaultMaxDeadline, "longer deadlines are cut to this")
	fs.DurationVar(&f.grace, "grace", bridge.DefaultGrace, "how long a stopping child gets after its stdin closes, and again after SIGTERM, before SIGKILL")
	fs.DurationVar(&f.handshake, "handshake-timeout", stdio.DefaultHandshakeTimeout, "how long each child gets to complete the version negotiation; calls wait at most this long for a starting child")
	fs.IntVar(&f.maxRestarts, "max-restarts", bridge.DefaultMaxRestarts, "restarts in a row before the server is FAILED and tried only every --max-restart-backoff")
	fs.DurationVar(&f.maxBackoff, "max-restart-backoff", bridge.DefaultMaxRestartBackoff, "the longest wait between restarts, and the interval of the starts tried while FAILED")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "how long a graceful shutdown waits for calls in flight")
	fs.BoolVar(&f.reaper, "reaper", true, "run the child under a reaper that kills its descendants when it exits or the bridge dies (Linux)")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{err: err, printed: true} // flag printed it, with the usage
	}
	f.command = fs.Args()

	// Explicit checks, so that a bad value is a clear error now rather
	// than a crash-looping child or a silently applied default later.
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	bad := func(name, format string, args ...any) error {
		return usageError{err: fmt.Errorf("invalid value %q for flag --%s: %s", fs.Lookup(name).Value.String(), name, fmt.Sprintf(format, args...))}
	}
	switch {
	case f.protocol != "auto" && !slices.Contains(stdio.DefaultVersions, f.protocol):
		return nil, bad("protocol", "want auto or one of %s", strings.Join(stdio.DefaultVersions, ", "))
	case f.maxMessageBytes <= 0:
		return nil, bad("max-message-bytes", "must be positive")
	case !json.Valid([]byte(f.capabilities)) || !strings.HasPrefix(strings.TrimSpace(f.capabilities), "{"):
		return nil, bad("client-capabilities", "not a JSON object")
	case f.roots != "" && (!json.Valid([]byte(f.roots)) || !strings.HasPrefix(strings.TrimSpace(f.roots), "[")):
		return nil, bad("roots", "not a JSON array")
	case f.childLogLevel != "" && !slices.Contains(protocol.LogLevels, f.childLogLevel):
		return nil, bad("child-log-level", "want one of %s", strings.Join(protocol.LogLevels, ", "))
	case f.handshake <= 0:
		return nil, bad("handshake-timeout", "must be positive")
	case f.maxRequestBytes < 0:
		return nil, bad("max-request-bytes", "must not be negative")
	case f.defaultDeadline <= 0:
		return nil, bad("default-deadline", "must be positive")
	case f.maxDeadline <= 0:
		return nil, bad("max-deadline", "must be positive")
	case f.defaultDeadline > f.maxDeadline:
		if set["default-deadline"] {
			return nil, bad("default-deadline", "longer than --max-deadline %v", f.maxDeadline)
		}
		f.defaultDeadline = f.maxDeadline // only the maximum was lowered
	case f.grace <= 0:
		return nil, bad("grace", "must be positive")
	case f.maxRestarts <= 0:
		return nil, bad("max-restarts", "must be positive")
	case f.maxBackoff < bridge.DefaultRestartBackoff:
		return nil, bad("max-restart-backoff", "must be at least %v", bridge.DefaultRestartBackoff)
	case f.shutdownTimeout <= 0:
		return nil, bad("shutdown-timeout", "must be positive")
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return nil, bad("listen", "%v", err)
	}
	return f, nil
}

// runServe is `mcpbridge serve`: the gRPC bridge in front of one stdio MCP
// server, until SIGINT or SIGTERM.
func runServe(args []string) error {
	// Signals first: one that arrives while the child starts shuts down
	// gracefully too, instead of killing the bridge mid-start.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	f, err := parseServe(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// The log never blocks the bridge: records queue for one writer, and
	// a full queue drops (and counts) instead of waiting for stderr.
	sink := asynclog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: f.logLevel}), asynclog.DefaultQueue)
	defer sink.Close(logFlushTimeout)
	log := slog.New(sink)

	command := f.command
	if len(command) == 0 {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the demo server: %v", err)
		}
		command = []string{self, "demo"}
	}
	// Listen before starting the child: a taken port is reported at once.
	lis, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	server := bridge.ServerConfig{Name: f.name, Command: command[0], Args: command[1:], Grace: f.grace,
		MaxRestarts: f.maxRestarts, MaxRestartBackoff: f.maxBackoff, MaxRequestBytes: f.maxRequestBytes, HandshakeTimeout: f.handshake, ExposeStderr: f.exposeStderr,
		Capabilities:  json.RawMessage(f.capabilities),
		DisableReaper: !f.reaper}
	if f.protocol != "auto" {
		server.Versions = []string{f.protocol}
	}
	if f.roots != "" {
		server.Roots = json.RawMessage(f.roots)
	}
	svc, err := bridge.New(bridge.Config{
		Servers: []bridge.ServerConfig{server}, MaxMessageBytes: f.maxMessageBytes,
		DefaultDeadline: f.defaultDeadline, MaxDeadline: f.maxDeadline, Logger: log,
	})
	if err != nil {
		lis.Close()
		return err
	}
	defer svc.Close()

	gs := svc.NewGRPCServer()
	log.Info("mcpbridge: serving", "listen", lis.Addr().String(), "command", strings.Join(command, " "), "protocol", f.protocol,
		"reaper", f.reaper && reaper.Available())
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }() // returns once gs stops
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	stopSignals() // a second signal takes the default action: exit at once (the children's reapers, or Pdeathsig, end them)
	log.Info("mcpbridge: shutting down; signal again to force", "timeout", f.shutdownTimeout.String())

	// docs/operations.md, "Graceful shutdown": health NOT_SERVING first so
	// that balancers drain the bridge, then GracefulStop with a deadline,
	// then the children.
	svc.Shutdown()
	stopped := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(stopped)
	}()
	t := time.NewTimer(f.shutdownTimeout)
	select {
	case <-stopped:
		t.Stop()
	case <-t.C:
		log.Warn("mcpbridge: calls still in flight at the shutdown timeout; cancelling them")
		gs.Stop()
		<-stopped
	}
	<-served
	err = svc.Close()
	log.Info("mcpbridge: stopped")
	return err
}
