package main

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/mcphttp"
)

// The HTTP front door (docs/operations.md, "HTTP") is the bridge's
// (bridge.HTTPDoor): its guard, its MCP endpoint and its API. What lives
// here is the listener: TLS, the protocols, the header timeout.

// httpReadHeaderTimeout bounds how long a client may take to send a
// request's headers (a slow-loris guard); the door bounds a body of one
// message (bridge.HTTPOptions' BodyTimeout), and streams are bounded by
// the calls' own deadlines.
const httpReadHeaderTimeout = 10 * time.Second

// originsFlag is --http-cors-origin, repeatable.
type originsFlag []string

func (o *originsFlag) String() string { return strings.Join(*o, ",") }

func (o *originsFlag) Set(s string) error {
	c, err := canonicalOrigin(s)
	if err != nil {
		return err
	}
	*o = append(*o, c)
	return nil
}

// canonicalOrigin accepts "*" or an origin, scheme://host[:port] without
// a path, and returns it as browsers send it (mcphttp.CanonicalOrigin), so
// that https://App.example/ matches what a page on it sends.
func canonicalOrigin(s string) (string, error) {
	if s == "*" {
		return s, nil
	}
	c, ok := mcphttp.CanonicalOrigin(s)
	if !ok {
		return "", errors.New("want * or an origin such as https://app.example.com")
	}
	return c, nil
}

// httpFront is the running HTTP listener.
type httpFront struct {
	srv  *http.Server
	door *bridge.HTTPDoor
	done chan struct{}
}

// startHTTP serves h on lis, with TLS when tlsConfig is set (HTTP/1.1 and
// HTTP/2 by ALPN) and in plaintext otherwise (HTTP/1.1 and HTTP/2 without
// TLS, as curl --http2-prior-knowledge and gRPC-Web proxies speak it).
func startHTTP(lis net.Listener, door *bridge.HTTPDoor, tlsConfig *tls.Config, log *slog.Logger) *httpFront {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	if tlsConfig != nil {
		protocols.SetHTTP2(true)
		alpn := []string{"h2", "http/1.1"}
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = alpn
		if get := tlsConfig.GetConfigForClient; get != nil { // mTLS: the current CA pool's configuration
			tlsConfig.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
				c, err := get(hello)
				if c != nil {
					c = c.Clone()
					c.NextProtos = alpn
				}
				return c, err
			}
		}
		lis = tls.NewListener(lis, tlsConfig)
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	srv := &http.Server{
		Handler:           door,
		Protocols:         &protocols,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	f := &httpFront{srv: srv, door: door, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("mcpbridge: the HTTP listener failed", "error", err)
		}
	}()
	return f
}

// shutdown ends the MCP sessions and streams, and their tunnels, at the
// start of the bridge's shutdown, as the bridge ends its long-lived
// streams; later MCP requests get 503. The Connect and gRPC-Web calls go
// on until GracefulStop.
func (f *httpFront) shutdown() { f.door.Shutdown() }

// close stops the listener and ends the connections left; the calls on
// them have ended by then (GracefulStop, or Abort).
func (f *httpFront) close() {
	f.door.Close()
	f.srv.Close()
	<-f.done
}
