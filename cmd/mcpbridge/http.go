package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
)

// The HTTP front door (docs/operations.md, "HTTP"): the gRPC API over the
// Connect protocol and gRPC-Web, for browsers and curl, on a listener of
// its own beside gRPC. Vanguard transcodes each request into a gRPC call
// on the bridge's own grpc.Server, so it passes through the same
// interceptors as a call over gRPC: authentication, authorization,
// limits, audit, metrics and traces. Nothing here decides anything about
// a call.

// httpReadHeaderTimeout bounds how long a client may take to send a
// request's headers (a slow-loris guard); bodies and streams are bounded
// by the calls' own deadlines.
const httpReadHeaderTimeout = 10 * time.Second

// originsFlag is --http-cors-origin, repeatable.
type originsFlag []string

func (o *originsFlag) String() string { return strings.Join(*o, ",") }

func (o *originsFlag) Set(s string) error {
	if err := checkOrigin(s); err != nil {
		return err
	}
	*o = append(*o, s)
	return nil
}

// checkOrigin accepts "*" or an origin as a browser sends it:
// scheme://host[:port], without a path.
func checkOrigin(s string) error {
	if s == "*" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return errors.New("want * or an origin such as https://app.example.com")
	}
	return nil
}

// newHTTPHandler serves gs's services over Connect (JSON and binary) and
// gRPC-Web, with CORS for origins (none: no CORS headers, so browsers on
// other origins are refused by their own rules).
func newHTTPHandler(gs *grpc.Server, origins []string) (http.Handler, error) {
	// JSON as grpcurl and connect-go write it: fields at their defaults
	// left out; unknown fields ignored, so that a client built from a newer
	// proto can call an older bridge.
	codec := vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec {
		return vanguard.JSONCodec{
			MarshalOptions:   protojson.MarshalOptions{Resolver: res},
			UnmarshalOptions: protojson.UnmarshalOptions{Resolver: res, DiscardUnknown: true},
		}
	})
	t, err := vanguardgrpc.NewTranscoder(gs, codec)
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	// A POST of JSON or binary protobuf to a method's path is a Connect
	// unary call, with or without Connect-Protocol-Version: the bridge
	// serves no REST routes it could be mistaken for, and curl users need
	// not know the header.
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Connect-Protocol-Version") == "" {
			switch ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(strings.ToLower(ct)) {
			case "application/json", "application/proto":
				r.Header.Set("Connect-Protocol-Version", "1")
			}
		}
		t.ServeHTTP(w, r)
	})
	if len(origins) == 0 {
		return h, nil
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		// Authorization carries bearer tokens and API keys; mcp-session
		// picks a session child.
		AllowedHeaders: append(connectcors.AllowedHeaders(), "Authorization", "Mcp-Session"),
		ExposedHeaders: connectcors.ExposedHeaders(),
		MaxAge:         2 * 60 * 60,
	}).Handler(h), nil
}

// httpFront is the running HTTP listener.
type httpFront struct {
	srv  *http.Server
	done chan struct{}
}

// startHTTP serves h on lis, with TLS when tlsConfig is set (HTTP/1.1 and
// HTTP/2 by ALPN) and in plaintext otherwise (HTTP/1.1 and HTTP/2 without
// TLS, as curl --http2-prior-knowledge and gRPC-Web proxies speak it).
func startHTTP(lis net.Listener, h http.Handler, tlsConfig *tls.Config, log *slog.Logger) *httpFront {
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
		Handler:           h,
		Protocols:         &protocols,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	f := &httpFront{srv: srv, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("mcpbridge: the HTTP listener failed", "error", err)
		}
	}()
	return f
}

// close stops the listener and ends the connections left; the calls on
// them have ended by then (GracefulStop, or Abort).
func (f *httpFront) close() {
	f.srv.Close()
	<-f.done
}
