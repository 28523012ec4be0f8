package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// runServe is `mcpbridge serve`: the gRPC bridge in front of one stdio MCP
// server, until SIGINT or SIGTERM.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mcpbridge serve [flags] [-- command [args...]]\n\n"+
			"Fronts the stdio MCP server started by command (default: the built-in demo server) with gRPC.\n\n")
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "127.0.0.1:50051", "address to serve gRPC on")
	name := fs.String("name", "", "the fronted server's name (the `server` field and mcp-server metadata)")
	protocol := fs.String("protocol", "auto", "MCP protocol version: auto, or a pinned 2026-07-28, 2025-11-25 or 2025-06-18")
	maxMsg := fs.Int("max-message-bytes", bridge.DefaultMaxMessageBytes, "the size limit of gRPC messages and of the child's lines")
	deadline := fs.Duration("default-deadline", bridge.DefaultDeadline, "deadline of calls that arrive without one")
	maxDeadline := fs.Duration("max-deadline", bridge.DefaultMaxDeadline, "longer deadlines are cut to this")
	grace := fs.Duration("grace", bridge.DefaultGrace, "how long a stopping child gets after stdin closes, and again after SIGTERM")
	stopWait := fs.Duration("shutdown-timeout", 10*time.Second, "how long graceful shutdown waits for calls in flight")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level: %v", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	command := fs.Args()
	if len(command) == 0 {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the demo server: %v", err)
		}
		command = []string{self, "demo"}
	}
	server := bridge.ServerConfig{Name: *name, Command: command[0], Args: command[1:], Grace: *grace}
	if *protocol != "auto" {
		server.Versions = []string{*protocol}
	}
	svc, err := bridge.New(bridge.Config{
		Servers: []bridge.ServerConfig{server}, MaxMessageBytes: *maxMsg,
		DefaultDeadline: *deadline, MaxDeadline: *maxDeadline, Logger: log,
	})
	if err != nil {
		return err
	}
	defer svc.Close()

	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	gs := svc.NewGRPCServer()
	log.Info("mcpbridge: serving", "listen", lis.Addr().String(), "command", strings.Join(command, " "))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("mcpbridge: shutting down")
	svc.Shutdown() // health NOT_SERVING first, so balancers drain us
	stopped := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(*stopWait):
		gs.Stop()
	}
	return svc.Close()
}

var _ = stdio.Version20260728
