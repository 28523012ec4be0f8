package bridge

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	"github.com/mcpbridge/mcpbridge/bridge/internal/httpdoor"
)

// This file is the bridge's lifecycle, as http.Server has one
// (docs/operations.md, "Graceful shutdown"): Serve on the listeners a
// program hands it, Shutdown(ctx) for the whole graceful stop. A program
// that embeds the bridge calls the two and nothing else; mcpbridge serve
// is one such program.

// ErrServiceClosed is what Serve returns once Shutdown has stopped it.
var ErrServiceClosed = errors.New("bridge: service closed")

// Listeners are what Serve serves on. The program opens them (so that a
// taken port is its error, before any child starts) and Serve owns them.
type Listeners struct {
	// GRPC serves BridgeService, health and reflection (required).
	GRPC net.Listener
	// HTTP, when set, serves the HTTP door (NewHTTPDoor): MCP Streamable
	// HTTP at /mcp and the API as Connect and gRPC-Web.
	HTTP net.Listener
	// Health, when set, serves the gRPC health service alone, in
	// plaintext, for probes that cannot speak TLS.
	Health net.Listener
}

// ServeOptions are how Serve serves.
type ServeOptions struct {
	// GRPC are options of the gRPC server, after NewGRPCServer's own
	// (grpc.Creds for TLS, say).
	GRPC []grpc.ServerOption
	// HTTP are the HTTP door's options.
	HTTP HTTPOptions
	// HTTPTLS serves the HTTP listener with TLS (HTTP/1.1 and HTTP/2 by
	// ALPN); nil: plaintext (HTTP/1.1 and HTTP/2 without TLS).
	HTTPTLS *tls.Config
	// DrainDelay is how long Shutdown keeps serving calls after health
	// turned NOT_SERVING, while balancers catch up (docs/scaling.md).
	DrainDelay time.Duration
}

// abortWait bounds how long the calls that Abort ended get to send their
// status before Shutdown closes their connections.
const abortWait = 2 * time.Second

// serving is what one Serve runs.
type serving struct {
	gs       *grpc.Server
	door     *HTTPDoor
	hs       *http.Server
	health   *grpc.Server
	drain    time.Duration
	wg       sync.WaitGroup // the listeners' goroutines
	stopping chan struct{}  // closed when Shutdown begins
	stop     chan struct{}  // closed by Shutdown when everything has stopped
}

// Serve serves the service on l until Shutdown, then returns
// ErrServiceClosed; a listener that fails before ends Serve with its error
// (the others are stopped). It may be called once.
func (s *Service) Serve(l Listeners, o ServeOptions) error {
	if l.GRPC == nil {
		return errors.New("bridge: Serve needs a gRPC listener")
	}
	sv := &serving{gs: s.NewGRPCServer(o.GRPC...), drain: o.DrainDelay, stopping: make(chan struct{}), stop: make(chan struct{})}
	if l.HTTP != nil {
		d, err := s.NewHTTPDoor(o.HTTP)
		if err != nil {
			return err
		}
		sv.door = d
		sv.hs = httpdoor.NewServer(d, o.HTTPTLS, s.cfg.Logger)
		if o.HTTPTLS != nil {
			l.HTTP = tls.NewListener(l.HTTP, sv.hs.TLSConfig)
		}
	}
	if l.Health != nil {
		sv.health = grpc.NewServer()
		s.RegisterHealth(sv.health)
		reflection.Register(sv.health) // for grpcurl; it lists grpc.health.v1 alone
	}
	s.serveMu.Lock()
	if s.serving != nil {
		s.serveMu.Unlock()
		return errors.New("bridge: Serve called twice")
	}
	s.serving = sv
	s.serveMu.Unlock()

	failed := make(chan error, 3)
	run := func(what string, serve func() error) {
		sv.wg.Go(func() {
			if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, grpc.ErrServerStopped) {
				select {
				case failed <- fmt.Errorf("bridge: %s listener: %w", what, err):
				default:
				}
			}
		})
	}
	if sv.health != nil {
		run("health", func() error { return sv.health.Serve(l.Health) })
	}
	if sv.hs != nil {
		run("HTTP", func() error { return sv.hs.Serve(l.HTTP) })
	}
	grpcDone := make(chan error, 1)
	sv.wg.Go(func() { grpcDone <- sv.gs.Serve(l.GRPC) })
	select {
	case <-sv.stop:
		return ErrServiceClosed
	case err := <-failed:
		s.stopServing(sv)
		return err
	case err := <-grpcDone:
		select {
		case <-sv.stopping: // Shutdown stopped it
			<-sv.stop
			return ErrServiceClosed
		default:
		}
		s.stopServing(sv)
		if err == nil {
			err = errors.New("bridge: the gRPC listener stopped")
		}
		return fmt.Errorf("bridge: gRPC listener: %w", err)
	}
}

// stopServing stops what Serve runs at once, after a listener failed.
func (s *Service) stopServing(sv *serving) {
	s.Drain()
	if sv.door != nil {
		sv.door.Shutdown()
	}
	sv.gs.Stop()
	if sv.hs != nil {
		sv.hs.Close()
	}
	if sv.health != nil {
		sv.health.Stop()
	}
}

// Shutdown stops the service gracefully, in the order balancers and
// clients need (docs/operations.md, "Graceful shutdown"): health turns
// NOT_SERVING and the long-lived streams and MCP sessions end (Drain);
// calls are still served for the drain delay; then the gRPC server stops
// gracefully, waiting for the calls in flight until ctx ends, when the
// calls left end with UNAVAILABLE and RetryInfo (Abort); then the
// listeners close, the children stop (Close), and the health listener
// closes last. It returns ctx's error when calls had to be aborted, and
// Serve returns ErrServiceClosed. Without Serve it is Close.
func (s *Service) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.shutdown(ctx) })
	return s.stopErr
}

func (s *Service) shutdown(ctx context.Context) error {
	s.serveMu.Lock()
	sv := s.serving
	s.serveMu.Unlock()
	if sv == nil {
		return s.Close()
	}
	close(sv.stopping)
	s.Drain()
	if sv.door != nil {
		sv.door.Shutdown()
	}
	if sv.drain > 0 {
		t := time.NewTimer(sv.drain)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	stopped := make(chan struct{})
	go func() {
		sv.gs.GracefulStop()
		close(stopped)
	}()
	var aborted error
	select {
	case <-stopped:
	case <-ctx.Done():
		aborted = ctx.Err()
		s.cfg.Logger.Warn("mcpbridge: calls still in flight at the shutdown deadline; ending them with UNAVAILABLE")
		s.Abort()
		// Their handlers return at once with the status, which reaches
		// the callers before Stop closes the connections.
		t := time.NewTimer(abortWait)
		select {
		case <-stopped:
			t.Stop()
		case <-t.C:
			sv.gs.Stop()
			<-stopped
		}
	}
	if sv.hs != nil {
		sv.door.Close()
		sv.hs.Close()
	}
	err := s.Close()
	if sv.health != nil {
		sv.health.Stop() // last: liveness answers until the bridge is gone
	}
	close(sv.stop)
	sv.wg.Wait()
	if aborted != nil {
		return aborted
	}
	return err
}
