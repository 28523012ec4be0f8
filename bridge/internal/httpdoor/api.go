package httpdoor

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
)

// newAPIHandler serves gs's services over Connect (JSON and binary) and
// gRPC-Web, with CORS for origins.
func newAPIHandler(gs *grpc.Server, origins []string) (http.Handler, error) {
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

// httpReadHeaderTimeout bounds how long a client of the HTTP listener
// may take to send a request's headers (a slow-loris guard); the door
// bounds a body of one message (Options.BodyTimeout), and streams are
// bounded by the calls' own deadlines.
const httpReadHeaderTimeout = 10 * time.Second

// NewServer is the HTTP listener's server for h: with TLS when
// tlsConfig is set (HTTP/1.1 and HTTP/2 by ALPN, the client CA pool of
// the configuration in force), in plaintext otherwise (HTTP/1.1 and
// HTTP/2 without TLS, as curl --http2-prior-knowledge and gRPC-Web
// proxies speak it).
func NewServer(h http.Handler, tlsConfig *tls.Config, log *slog.Logger) *http.Server {
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
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	return &http.Server{
		Handler:           h,
		Protocols:         &protocols,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
