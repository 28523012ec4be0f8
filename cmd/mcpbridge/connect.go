package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/tlsfiles"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// runConnect is `mcpbridge connect`: a stdio MCP server that is a remote
// bridge's Connect tunnel (docs/operations.md, "mcpbridge connect"). An
// MCP host that starts stdio servers (an IDE, a desktop app, the
// conformance suite's adapter) runs it as its server, and every line it
// writes to our stdin goes into the tunnel as it is, every message of the
// tunnel comes out on our stdout, one line each. The host then talks to
// the server behind the bridge as if it ran locally: the tunnel passes the
// host's own params and _meta.
//
// It dials TLS unless the address is a loopback one (--tls and --insecure
// choose), with a bearer token from a file or the environment, never from
// a flag that ps shows. When the bridge cannot be reached or refuses the
// tunnel, the host's pending requests (its initialize first) are answered
// with a JSON-RPC error that says what went wrong and what to do; the same
// goes to stderr.
//
// It ends with exit status 0 when stdin ends and the tunnel has answered
// what was in flight, and 1 when the tunnel fails.
func runConnect(args []string) error {
	f, fs := newConnectFlags()
	// Help goes to stderr: stdout is the MCP protocol.
	if err := parseFlags(fs, args, func(io.Writer) {
		fmt.Fprint(os.Stderr, "usage: mcpbridge connect [flags]\n\n"+
			"A stdio MCP server that tunnels to a remote bridge: each line on stdin goes into a\n"+
			"Connect stream, each message of the stream comes out on stdout. Point an MCP host\n"+
			"that launches stdio servers at it to use the server behind the bridge.\n\nFlags:\n")
		printDefaults(os.Stderr, fs)
	}); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usageError{err: fmt.Errorf("connect takes no arguments, got %q", fs.Args())}
	}
	opts, err := f.dialOptions()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	conn, err := grpc.NewClient(f.addr, opts...)
	if err != nil {
		return usageError{err: fmt.Errorf("--addr %q: %v", f.addr, err)}
	}
	defer conn.Close()
	ctx = metadata.NewOutgoingContext(ctx, f.outgoing())
	c := &connector{bc: mcpbridgev1.NewBridgeServiceClient(conn), server: f.server, maxBytes: f.maxBytes,
		explain: func(err error) string { return f.explain(err) }}
	return c.run(ctx, os.Stdin, os.Stdout)
}

// connectFlags are connect's flags.
type connectFlags struct {
	addr, server                 string
	tls, insecure                bool
	caFile, certFile, keyFile    string
	serverName                   string
	tokenFile, tokenEnv, session string
	metadata                     metadataFlag
	maxBytes                     int
}

// newConnectFlags returns the flag set of `mcpbridge connect`, which sets
// f.
func newConnectFlags() (*connectFlags, *flag.FlagSet) {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	f := &connectFlags{tokenEnv: "MCPBRIDGE_TOKEN"}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:50051", "the bridge's gRPC `address` (host:port)")
	fs.StringVar(&f.server, "server", "", "the fronted server's `name` (empty: the bridge's only one)")
	fs.BoolVar(&f.tls, "tls", false, "dial TLS (the default for an address that is not loopback)")
	fs.BoolVar(&f.insecure, "insecure", false, "dial plaintext even to an address that is not loopback")
	fs.StringVar(&f.caFile, "ca", "", "PEM `file` of the CAs that the bridge's certificate must chain to (default: the system's); implies --tls")
	fs.StringVar(&f.certFile, "cert", "", "PEM `file` of a client certificate, for a bridge that checks them (mTLS); needs --key, implies --tls")
	fs.StringVar(&f.keyFile, "key", "", "PEM `file` of the client certificate's private key")
	fs.StringVar(&f.serverName, "tls-server-name", "", "the `name` the bridge's certificate must carry (default: the host of --addr)")
	fs.StringVar(&f.tokenFile, "token-file", "", "`file` holding the bearer token (an API key or a JWT) sent to the bridge")
	fs.StringVar(&f.tokenEnv, "token-env", f.tokenEnv, "environment `variable` holding the bearer token, when --token-file is not given")
	fs.StringVar(&f.session, "session", "", "the mcp-session metadata: the `name` of a session of a session server")
	fs.Var(&f.metadata, "metadata", "request metadata `key=value` sent with the tunnel (repeatable; it shows in ps: put secrets in --token-file)")
	fs.IntVar(&f.maxBytes, "max-message-bytes", bridge.DefaultMaxMessageBytes, "the size limit of a message either way, in `bytes`")
	return f, fs
}

// metadataFlag is a repeatable key=value flag.
type metadataFlag []string

func (m *metadataFlag) String() string { return strings.Join(*m, ",") }

func (m *metadataFlag) Set(v string) error {
	key, _, ok := strings.Cut(v, "=")
	if !ok || key == "" {
		return fmt.Errorf("want key=value")
	}
	*m = append(*m, v)
	return nil
}

// useTLS reports whether connect dials TLS: when asked to, when a TLS
// flag is given, and by default to an address that is not loopback.
func (f *connectFlags) useTLS() bool {
	switch {
	case f.tls || f.caFile != "" || f.certFile != "" || f.serverName != "":
		return true
	case f.insecure:
		return false
	}
	return !isLoopback(f.addr)
}

// dialOptions are the transport and credentials of the flags.
func (f *connectFlags) dialOptions() ([]grpc.DialOption, error) {
	bad := func(format string, args ...any) ([]grpc.DialOption, error) {
		return nil, usageError{err: fmt.Errorf(format, args...)}
	}
	switch {
	case f.maxBytes <= 0:
		return bad("invalid value %d for flag --max-message-bytes: must be positive", f.maxBytes)
	case (f.certFile == "") != (f.keyFile == ""):
		return bad("--cert and --key go together: give both for a client certificate, or neither")
	case f.insecure && (f.tls || f.caFile != "" || f.certFile != "" || f.serverName != ""):
		return bad("--insecure dials plaintext: it cannot go with --tls, --ca, --cert or --tls-server-name")
	}
	opts := []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(f.maxBytes), grpc.MaxCallSendMsgSize(f.maxBytes))}
	secure := f.useTLS()
	if secure {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.serverName}
		if f.caFile != "" {
			roots, err := tlsfiles.LoadCAs("--ca", f.caFile)
			if err != nil {
				return bad("%v", err)
			}
			cfg.RootCAs = roots
		}
		if f.certFile != "" {
			cert, err := tlsfiles.LoadKeyPair(f.certFile, f.keyFile)
			if err != nil {
				return bad("--cert, --key: %v", err)
			}
			cfg.Certificates = []tls.Certificate{*cert}
		}
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	token, err := f.token()
	if err != nil {
		return nil, err
	}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearer{token: token, secure: secure}))
	}
	return opts, nil
}

// token is the bearer token of --token-file, else of the --token-env
// variable; "" for none.
func (f *connectFlags) token() (string, error) {
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return "", usageError{err: fmt.Errorf("--token-file: %v", err)}
		}
		token := strings.TrimSpace(string(b))
		if token == "" || strings.ContainsAny(token, "\r\n") {
			return "", usageError{err: fmt.Errorf("--token-file %s: want one token on one line", f.tokenFile)}
		}
		return token, nil
	}
	if f.tokenEnv == "" {
		return "", nil
	}
	return strings.TrimSpace(os.Getenv(f.tokenEnv)), nil
}

// outgoing is the metadata of the tunnel.
func (f *connectFlags) outgoing() metadata.MD {
	md := metadata.MD{}
	for _, kv := range f.metadata {
		key, value, _ := strings.Cut(kv, "=")
		md.Append(strings.ToLower(key), value)
	}
	if f.session != "" {
		md.Set(bridge.SessionMetadataKey, f.session)
	}
	return md
}

// bearer sends the token in the authorization metadata. Over plaintext it
// goes only where the flags allow plaintext: loopback, or --insecure.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

// explain says what a failed tunnel means to whoever runs the host, and
// what to do about it.
func (f *connectFlags) explain(err error) string {
	st := status.Convert(err)
	msg := st.Message()
	where := "the bridge at " + f.addr
	switch st.Code() {
	case codes.Unavailable:
		switch {
		case strings.Contains(msg, "certificate") || strings.Contains(msg, "x509"):
			return fmt.Sprintf("%s presents a certificate this host does not trust (%s): give the CA that signed it with --ca, or the name it carries with --tls-server-name", where, msg)
		case strings.Contains(msg, "first record does not look like a TLS handshake"):
			return fmt.Sprintf("%s does not serve TLS (%s): dial it with --insecure, or serve TLS there", where, msg)
		case !f.useTLS() && (strings.Contains(msg, "EOF") || strings.Contains(msg, "server preface")):
			return fmt.Sprintf("%s closed the connection (%s): if it serves TLS, dial it with --tls", where, msg)
		case strings.Contains(msg, "shutting down"):
			return fmt.Sprintf("%s is shutting down (%s): start the host's session again in a moment", where, msg)
		case strings.Contains(msg, "could not be started") || strings.Contains(msg, "kept exiting"):
			return fmt.Sprintf("%s could not start the server (%s): the session ends; see the bridge's log, and start it again", where, msg)
		case !strings.Contains(msg, "connection error") && !strings.Contains(msg, "transport"):
			// The bridge answered: the server behind it is down.
			return fmt.Sprintf("%s has lost the server behind it (%s): the session ends; start it again once the server is back", where, msg)
		}
		return fmt.Sprintf("cannot reach %s (%s): check --addr, and that `mcpbridge serve` runs there", where, msg)
	case codes.Unauthenticated:
		return fmt.Sprintf("%s refused this host's credentials (%s): set a valid API key or JWT in $%s or --token-file, or a client certificate with --cert and --key", where, msg, f.tokenEnvName())
	case codes.PermissionDenied:
		return fmt.Sprintf("%s does not let this caller use %s (%s): ask its operator for a rule that allows it", where, serverName(f.server), msg)
	case codes.InvalidArgument:
		if several, ok := strings.CutPrefix(msg, "no server named, and this bridge "); ok {
			return fmt.Sprintf("%s %s", where, several) // it says how to name one, --server included
		}
		if strings.Contains(msg, "unknown server") {
			return fmt.Sprintf("%s fronts no %s (%s): name one of its servers with --server", where, serverName(f.server), msg)
		}
	}
	return fmt.Sprintf("%s ended the tunnel: %s: %s", where, st.Code(), msg)
}

func (f *connectFlags) tokenEnvName() string {
	if f.tokenEnv == "" {
		return "MCPBRIDGE_TOKEN"
	}
	return f.tokenEnv
}

func serverName(name string) string {
	if name == "" {
		return "server without a name (the default, when it fronts one)"
	}
	return fmt.Sprintf("server %q", name)
}

// connector relays between a host's stdio and one Connect stream.
type connector struct {
	bc       mcpbridgev1.BridgeServiceClient
	server   string
	maxBytes int
	explain  func(error) string

	ctx   context.Context // run's: cancelled when connect is told to stop
	outMu sync.Mutex      // the host's stdout: the tunnel's messages and connect's own answers
	out   io.Writer

	mu      sync.Mutex
	pending map[string]bool // the host's requests sent and not yet answered, by raw id
	failed  bool            // the tunnel failed: pending requests are answered here
}

// maxPending bounds the requests connect remembers to answer when the
// tunnel fails; the bridge bounds a tunnel's requests in flight far lower.
const maxPending = 4096

// run relays lines from in into a Connect stream and the stream's messages
// to out until in ends and the stream has ended. The stream opens with the
// host's first message, so that a failure to open it answers that message.
func (c *connector) run(ctx context.Context, in io.Reader, out io.Writer) error {
	c.ctx, c.out, c.pending = ctx, out, map[string]bool{}
	lr := wire.NewReader(in, c.maxBytes)
	first, err := c.readLine(lr)
	if err != nil {
		return ignoreEOF(err)
	}
	c.track(first)
	st, err := c.bc.Connect(ctx)
	if err == nil {
		err = st.Send(&mcpbridgev1.ConnectRequest{Server: c.server, MessageJson: string(first)})
	}
	if err != nil {
		if st != nil {
			_, err = st.Recv() // the status says why
		}
		return c.fail(err)
	}
	sent := make(chan error, 1)
	go func() { // ends at stdin's EOF or a failed Send
		for {
			line, err := c.readLine(lr)
			if errors.Is(err, io.EOF) {
				sent <- st.CloseSend()
				return
			}
			if err != nil {
				sent <- err
				return
			}
			c.track(line)
			if err := st.Send(&mcpbridgev1.ConnectRequest{MessageJson: string(line)}); err != nil {
				sent <- nil // the stream failed: Recv says why
				return
			}
		}
	}()
	buf := make([]byte, 0, 64<<10)
	for {
		msg, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return <-sent
		}
		if err != nil {
			return c.fail(err)
		}
		text := msg.GetMessageJson()
		if m, err := wire.Decode([]byte(text)); err == nil && m.Kind == wire.KindResponse {
			c.mu.Lock()
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
		}
		buf = append(append(buf[:0], text...), '\n')
		if err := c.write(buf); err != nil {
			return err
		}
	}
}

// readLine reads the host's next line, skipping those over the limit.
func (c *connector) readLine(lr *wire.Reader) ([]byte, error) {
	for {
		line, err := lr.ReadLine()
		var tooLong *wire.LineTooLongError
		if errors.As(err, &tooLong) {
			fmt.Fprintf(os.Stderr, "mcpbridge connect: dropped a line over the %d-byte limit\n", tooLong.Limit)
			continue
		}
		return line, err
	}
}

// track remembers a request of the host until the tunnel answers it.
func (c *connector) track(line []byte) {
	m, err := wire.Decode(line)
	if err != nil || m.Kind != wire.KindRequest {
		return
	}
	c.mu.Lock()
	if len(c.pending) < maxPending {
		c.pending[string(m.ID)] = true
	}
	c.mu.Unlock()
}

// fail answers every pending request of the host with what err means and
// returns the error connect exits with.
func (c *connector) fail(err error) error {
	if ctx := context.Cause(c.ctx); ctx != nil {
		return ctx // connect was told to stop
	}
	why := c.explain(err)
	e := &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "mcpbridge connect: " + why,
		Data: []byte(fmt.Sprintf(`{"grpcCode":%q}`, status.Code(err).String()))}
	c.mu.Lock()
	c.failed = true
	ids := make([]string, 0, len(c.pending))
	for id := range c.pending {
		ids = append(ids, id)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, id := range ids {
		_ = c.write(wire.AppendError(nil, []byte(id), (*wire.Error)(e)))
	}
	return errors.New(why)
}

func (c *connector) write(line []byte) error {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	_, err := c.out.Write(line)
	return err
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
