package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/configfile"
	"github.com/mcpbridge/mcpbridge/internal/asynclog"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/tlsfiles"
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
	drainDelay      time.Duration
	healthListen    string
	watchConfig     time.Duration
	cpuProfile      string
	memProfile      string
	reaper          bool
	logLevel        slog.Level
	logFormat       string
	version         bool
	config          string
	reflection      string
	metricsListen   string
	httpListen      string
	corsOrigins     originsFlag
	env             envFlag
	inheritEnv      bool
	policy          string
	poolSize        int
	tunnel          string
	maxSessions     int
	tlsCert         string
	tlsKey          string
	clientCA        string
	insecure        bool
	command         []string
	set             map[string]bool // the flags given on the command line
}

// envFlag is --env, repeatable: NAME=VALUE sets a variable of the child,
// NAME passes the bridge's own value of it (nothing when it has none).
type envFlag []bridge.EnvVar

func (e *envFlag) String() string {
	names := make([]string, len(*e))
	for i, v := range *e {
		names[i] = v.Name // never the values: they may be secrets
	}
	return strings.Join(names, ",")
}

func (e *envFlag) Set(s string) error {
	name, value, hasValue := strings.Cut(s, "=")
	if name == "" || strings.ContainsRune(name, 0) {
		return fmt.Errorf("want NAME=VALUE or NAME")
	}
	if !hasValue {
		var ok bool
		if value, ok = os.LookupEnv(name); !ok {
			return nil // the bridge has none to pass
		}
	}
	*e = append(*e, bridge.EnvVar{Name: name, Value: value})
	return nil
}

// serverFlags are the flags that describe the one server of the
// command-line shorthand; --config describes servers instead.
var serverFlags = []string{"name", "protocol", "max-request-bytes", "client-capabilities", "roots", "child-log-level",
	"expose-stderr", "grace", "handshake-timeout", "max-restarts", "max-restart-backoff", "reaper", "env", "inherit-env",
	"policy", "pool-size", "max-sessions", "tunnel"}

// newServeFlags returns the flag set of `mcpbridge serve`, which sets f.
func newServeFlags() (*serveFlags, *flag.FlagSet) {
	f := &serveFlags{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:50051", "`address` to serve gRPC on (host:port, a numeric port; port 0 picks a free one)")
	fs.StringVar(&f.name, "name", "", "the fronted server's `name` (the server field and mcp-server metadata; may stay empty)")
	fs.StringVar(&f.protocol, "protocol", "auto", "MCP protocol `version`: auto (negotiate), or pin one of "+strings.Join(stdio.DefaultVersions(), ", "))
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
	fs.DurationVar(&f.drainDelay, "drain-delay", 0, "on SIGTERM, how long the bridge keeps serving calls with health NOT_SERVING, for balancers to stop sending, before it drains (docs/scaling.md)")
	fs.StringVar(&f.healthListen, "health-listen", "", "also serve grpc.health.v1 alone, in plaintext, on `address` (host:port; a bare :port is on loopback): for probes that cannot speak TLS, such as Kubernetes'")
	fs.DurationVar(&f.watchConfig, "watch-config", 0, "check the --config file this often and reload it when it changed, as when a Kubernetes ConfigMap is updated (0: only SIGHUP reloads)")
	fs.BoolVar(&f.reaper, "reaper", true, "run the child under a reaper that kills its descendants when it exits or the bridge dies (Linux)")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	fs.StringVar(&f.config, "config", "", "a YAML `file` describing the fronted servers (docs/operations.md, \"The config file\"); SIGHUP reloads it")
	fs.Var(&f.env, "env", "`NAME=VALUE` sets a variable of the child, NAME passes the bridge's own; repeatable. The child gets only these, PATH, HOME, the locale, TZ and TMPDIR")
	fs.BoolVar(&f.inheritEnv, "inherit-env", false, "give the child the bridge's whole environment (default: only --env and a safe base)")
	fs.StringVar(&f.policy, "policy", "shared", "child `policy`: shared (one child), pool (--pool-size children) or session (one per mcp-session metadata value)")
	fs.StringVar(&f.tunnel, "tunnel", "private", "what serves a Connect tunnel whose client opens with initialize: `private` (a child of its own) or shared (the policy's)")
	fs.IntVar(&f.poolSize, "pool-size", bridge.DefaultPoolMin, "the children of the pool policy")
	fs.IntVar(&f.maxSessions, "max-sessions", bridge.DefaultMaxSessions, "the most sessions at once under the session policy")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve TLS with the certificate chain in this PEM `file` (with --tls-key); re-read when it changes")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM `file` of --tls-cert's private key; re-read when it changes")
	fs.StringVar(&f.clientCA, "client-ca", "", "require client certificates issued by a CA of this PEM `file` (mTLS; needs --tls-cert); re-read when it changes")
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "serve Prometheus metrics on `address`/metrics (host:port; a bare :port is on loopback); default: none")
	fs.StringVar(&f.httpListen, "http-listen", "", "also serve HTTP on `address` (host:port; a bare :port is on loopback): MCP Streamable HTTP at /mcp/{server} and /mcp, and the gRPC API as the Connect protocol and gRPC-Web, with the same TLS, authentication and rules (docs/operations.md, \"HTTP\"); default: none")
	fs.Var(&f.corsOrigins, "http-cors-origin", "allow browser pages from this `origin` (https://host[:port], or *) to call the --http-listen listener; repeatable. Default: none, no CORS")
	fs.StringVar(&f.reflection, "reflection", "", "gRPC server `reflection`: auto (on for a loopback address, off otherwise), on or off (default: the config file's, else auto)")
	fs.BoolVar(&f.insecure, "insecure", false, "allow plaintext gRPC on an address that is not loopback (without TLS, such an address is refused)")
	fs.StringVar(&f.logFormat, "log-format", "text", "log `format` on stderr: text (slog's key=value) or json (one JSON object a line)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this `file`, for benchmarks (docs/performance.md)")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a profile of the whole run's allocations to this `file` when the bridge stops, for benchmarks")
	fs.BoolVar(&f.version, "version", false, "print mcpbridge's version and exit")
	return f, fs
}

// printServeUsage writes the usage of `mcpbridge serve`, with fs's flags,
// to w.
func printServeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, "usage: mcpbridge serve [flags] [--] [command [args...]]\n"+
		"       mcpbridge [flags] [-- command [args...]]\n\n"+
		"Fronts the stdio MCP server that command starts (default: the built-in demo\n"+
		"server) with gRPC: mcpbridge.v1.BridgeService, grpc.health.v1 and server\n"+
		"reflection. Without the serve subcommand, the command must follow --.\n"+
		"SIGINT or SIGTERM shut it down gracefully; a second one forces it.\n\n"+
		"Exit status: 0 after a graceful shutdown, 1 when starting or serving failed\n"+
		"(the command cannot be run, the address cannot be listened on), 2 for a\n"+
		"mistake on the command line.\n\nFlags:\n")
	printDefaults(w, fs)
}

// parseServe parses and checks the arguments of `mcpbridge serve`;
// implicit is set when the serve subcommand was left out, which requires
// -- before the server command. Every error it returns is a usageError,
// or flag.ErrHelp after the usage was printed.
func parseServe(args []string, implicit bool) (*serveFlags, error) {
	f, fs := newServeFlags()
	if err := parseFlags(fs, args, func(w io.Writer) { printServeUsage(w, fs) }); err != nil {
		return nil, err
	}
	if f.version {
		return f, nil
	}
	f.command = fs.Args()
	if consumed := args[:len(args)-fs.NArg()]; implicit && fs.NArg() > 0 && (len(consumed) == 0 || consumed[len(consumed)-1] != "--") {
		return nil, usageError{err: fmt.Errorf("unexpected argument %q: without the serve subcommand, the server command must follow --", fs.Arg(0))}
	}

	// Explicit checks, so that a bad value is a clear error now rather
	// than a crash-looping child or a silently applied default later.
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	f.set = set
	if f.config != "" {
		if len(f.command) > 0 {
			return nil, usageError{err: fmt.Errorf("--config describes the servers: no command may follow it")}
		}
		for _, name := range serverFlags {
			if set[name] {
				return nil, usageError{err: fmt.Errorf("--%s describes the one server of the command line: with --config, set it in the file", name)}
			}
		}
	}
	if _, err := bridge.ParsePolicy(f.policy); err != nil {
		return nil, usageError{err: fmt.Errorf("invalid value %q for flag --policy: %v", f.policy, err)}
	}
	if _, err := bridge.ParseTunnelMode(f.tunnel); err != nil {
		return nil, usageError{err: fmt.Errorf("invalid value %q for flag --tunnel: %v", f.tunnel, err)}
	}
	bad := func(name, format string, args ...any) error {
		return usageError{err: fmt.Errorf("invalid value %q for flag --%s: %s", fs.Lookup(name).Value.String(), name, fmt.Sprintf(format, args...))}
	}
	switch {
	case f.protocol != "auto" && !slices.Contains(stdio.DefaultVersions(), f.protocol):
		return nil, bad("protocol", "want auto or one of %s", strings.Join(stdio.DefaultVersions(), ", "))
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
	case f.defaultDeadline > f.maxDeadline && set["default-deadline"]:
		return nil, bad("default-deadline", "longer than --max-deadline %v", f.maxDeadline)
	case f.grace <= 0:
		return nil, bad("grace", "must be positive")
	case f.maxRestarts <= 0:
		return nil, bad("max-restarts", "must be positive")
	case f.maxBackoff < bridge.DefaultRestartBackoff:
		return nil, bad("max-restart-backoff", "must be at least %v", bridge.DefaultRestartBackoff)
	case f.shutdownTimeout <= 0:
		return nil, bad("shutdown-timeout", "must be positive")
	case f.drainDelay < 0:
		return nil, bad("drain-delay", "must not be negative")
	case f.watchConfig < 0:
		return nil, bad("watch-config", "must not be negative")
	case f.watchConfig > 0 && f.config == "":
		return nil, bad("watch-config", "needs --config")
	case f.healthListen != "" && checkListen(f.healthListen) != nil:
		return nil, bad("health-listen", "%v", checkListen(f.healthListen))
	case f.metricsListen != "" && checkListen(f.metricsListen) != nil:
		return nil, bad("metrics-listen", "%v", checkListen(f.metricsListen))
	case f.httpListen != "" && checkListen(f.httpListen) != nil:
		return nil, bad("http-listen", "%v", checkListen(f.httpListen))
	case f.reflection != "" && f.reflection != "auto" && f.reflection != "on" && f.reflection != "off":
		return nil, bad("reflection", "want auto, on or off")
	case f.logFormat != "text" && f.logFormat != "json":
		return nil, bad("log-format", "want text or json")
	case f.poolSize <= 0:
		return nil, bad("pool-size", "must be positive")
	case f.maxSessions <= 0:
		return nil, bad("max-sessions", "must be positive")
	}
	// Only the maximum was lowered: the default follows it. (After the
	// checks, every one of which must run.)
	f.defaultDeadline = min(f.defaultDeadline, f.maxDeadline)
	if err := checkListen(f.listen); err != nil {
		return nil, bad("listen", "%v", err)
	}
	switch {
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return nil, usageError{err: errors.New("--tls-cert and --tls-key go together: give both to serve TLS, or neither")}
	case f.clientCA != "" && f.tlsCert == "":
		return nil, usageError{err: errors.New("--client-ca needs --tls-cert and --tls-key: client certificates are checked in a TLS handshake")}
	case f.insecure && f.tlsCert != "":
		return nil, usageError{err: errors.New("--insecure allows plaintext: it cannot go with --tls-cert")}
	}
	return f, nil
}

// runServe is `mcpbridge serve`: the gRPC bridge in front of one stdio MCP
// server, until SIGINT or SIGTERM. implicit is set when the serve
// subcommand was left out.
func runServe(args []string, implicit bool) error {
	// Before anything of worth is in memory: no other process of the
	// bridge's user may read it.
	if err := notDumpable(); err != nil {
		return fmt.Errorf("making the process non-dumpable: %w", err)
	}
	// Signals first: one that arrives while the child starts shuts down
	// gracefully too, instead of killing the bridge mid-start.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	f, err := parseServe(args, implicit)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if f.version {
		fmt.Println(version())
		return nil
	}
	// The log never blocks the bridge: records queue for one writer, and
	// a full queue drops (and counts) instead of waiting for stderr.
	opts := &slog.HandlerOptions{Level: f.logLevel}
	var handler slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if f.logFormat == "json" {
		handler = slog.NewJSONHandler(os.Stderr, opts)
	}
	sink := asynclog.New(handler, asynclog.DefaultQueue)
	defer sink.Close(logFlushTimeout)
	log := slog.New(sink)

	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if f.memProfile != "" {
		defer writeAllocsProfile(f.memProfile, log)
	}
	cfg, file, listen, describe, err := serveConfig(f)
	if err != nil {
		return err
	}
	logWarnings(log, file)
	cfg.Logger = log
	sec := &security{}
	defer sec.close()
	if err := sec.apply(f, file, &cfg, listen); err != nil {
		return err
	}
	// Plaintext only where the network cannot listen in, or where the
	// operator said so.
	plaintextExposed := f.tlsCert == "" && !isLoopback(listen)
	if err := refusePlaintext(f, "", listen); err != nil {
		return err
	}
	var grpcOpts []grpc.ServerOption
	var tlsConfig *tls.Config
	if f.tlsCert != "" {
		// Bad files fail now, before the listener and the children.
		files := &tlsfiles.Files{CertFile: f.tlsCert, KeyFile: f.tlsKey, ClientCAFile: f.clientCA,
			OnReload: func(files []string, err error) {
				if err != nil {
					log.Error("mcpbridge: TLS files changed but do not load; the previous ones stay", "files", files, "error", err)
				} else {
					log.Info("mcpbridge: TLS files reloaded", "files", files)
				}
			}}
		if tlsConfig, err = files.ServerConfig(); err != nil {
			return err
		}
		grpcOpts = append(grpcOpts, grpc.Creds(credentials.NewTLS(tlsConfig)))
	}
	obs := &observability{}
	defer obs.close(log)
	if err := obs.apply(ctx, f, file, &cfg, log); err != nil {
		return err
	}
	httpAddr, origins, err := httpSettings(f, file)
	if err != nil {
		return err
	}
	if httpAddr != "" {
		if err := refusePlaintext(f, "HTTP ", httpAddr); err != nil {
			return err
		}
	}
	// Listen before starting the children: a taken port is reported at
	// once. (Closing a listener that its server has closed already is
	// harmless; these closes are for the error returns.)
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	defer lis.Close()
	var httpLis net.Listener
	if httpAddr != "" {
		if httpLis, err = net.Listen("tcp", httpAddr); err != nil {
			return fmt.Errorf("http: %w", err)
		}
		defer httpLis.Close()
	}
	var healthLis net.Listener
	if f.healthListen != "" {
		if healthLis, err = net.Listen("tcp", onLoopback(f.healthListen)); err != nil {
			return fmt.Errorf("health: %w", err)
		}
		defer healthLis.Close()
	}
	svc, err := bridge.New(cfg)
	if err != nil {
		return err
	}
	defer svc.Close()
	obs.serve(log)
	if f.config != "" {
		stopReload := reloadOnHangup(f, svc, sec, listen, log)
		defer stopReload()
	}
	if plaintextExposed {
		log.Warn("mcpbridge: serving plaintext on a non-loopback address", "listen", lis.Addr().String())
	}
	serveOpts := bridge.ServeOptions{GRPC: grpcOpts, HTTPTLS: tlsConfig, DrainDelay: f.drainDelay}
	ls := bridge.Listeners{GRPC: lis, Health: healthLis}
	if httpLis != nil {
		ls.HTTP = httpLis
		serveOpts.HTTP = bridge.HTTPOptions{Origins: origins, AnyHost: !isLoopback(httpLis.Addr().String())}
		log.Info("mcpbridge: serving HTTP", "http_listen", httpLis.Addr().String(), "cors_origins", strings.Join(origins, ","))
	}
	if healthLis != nil {
		log.Info("mcpbridge: serving health", "health_listen", healthLis.Addr().String())
	}
	log.Info("mcpbridge: serving", append([]any{"listen", lis.Addr().String(), "tls", f.tlsCert != "", "mtls", f.clientCA != ""}, describe...)...)
	served := make(chan error, 1)
	go func() { served <- svc.Serve(ls, serveOpts) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	stopSignals() // a second signal takes the default action: exit at once (the children's reapers, or Pdeathsig, end them)
	log.Info("mcpbridge: shutting down; signal again to force", "drain_delay", f.drainDelay.String(), "timeout", f.shutdownTimeout.String())
	// The drain delay, then the graceful stop within the shutdown timeout
	// (docs/operations.md, "Graceful shutdown").
	stopCtx, cancel := context.WithTimeout(context.Background(), f.drainDelay+f.shutdownTimeout)
	defer cancel()
	err = svc.Shutdown(stopCtx)
	<-served
	if errors.Is(err, context.DeadlineExceeded) {
		err = nil // the calls left were ended with UNAVAILABLE, as documented
	}
	log.Info("mcpbridge: stopped")
	return err
}

// httpSettings are the HTTP listener's address and CORS origins: the
// flags', else the config file's.
func httpSettings(f *serveFlags, file *configfile.File) (addr string, origins []string, err error) {
	var fileAddr string
	if file != nil {
		fileAddr = file.HTTPListen
	}
	if addr, err = listenSetting(f, "http-listen", f.httpListen, "http_listen", fileAddr); err != nil {
		return "", nil, err
	}
	origins = f.corsOrigins
	if file != nil && !f.set["http-cors-origin"] {
		origins = nil
		for _, o := range file.HTTPCORSOrigins {
			c, err := canonicalOrigin(o)
			if err != nil {
				return "", nil, usageError{err: fmt.Errorf("%s: http_cors_origins: %q: %v", f.config, o, err)}
			}
			origins = append(origins, c)
		}
	}
	if len(origins) > 0 && addr == "" {
		return "", nil, usageError{err: errors.New("--http-cors-origin needs --http-listen: CORS is for the HTTP listener")}
	}
	return addr, origins, nil
}

// listenSetting is the address of a side listener: the flag name's value
// flagVal, else the config file's key fileVal, checked; a bare :port is on
// loopback (the address states any wider exposure, 0.0.0.0:9464). Empty:
// no listener.
func listenSetting(f *serveFlags, name, flagVal, key, fileVal string) (string, error) {
	addr := flagVal
	if addr == "" && !f.set[name] && fileVal != "" {
		if err := checkListen(fileVal); err != nil {
			return "", usageError{err: fmt.Errorf("%s: %s: %v", f.config, key, err)}
		}
		addr = fileVal
	}
	return onLoopback(addr), nil
}

// onLoopback puts a bare :port on loopback.
func onLoopback(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// refusePlaintext refuses to serve what (gRPC: "", or "HTTP ") in
// plaintext on addr when addr is not loopback, unless --insecure says to.
func refusePlaintext(f *serveFlags, what, addr string) error {
	if f.tlsCert != "" || f.insecure || isLoopback(addr) {
		return nil
	}
	return usageError{err: fmt.Errorf("refusing to serve plaintext %son %s, which is not a loopback address: add --tls-cert and --tls-key to serve TLS, or --insecure to serve plaintext anyway", what, addr)}
}

// serveConfig is the bridge's configuration: the --config file, with the
// service-wide flags given on the command line winning, or the one server
// the flags and the command describe. It returns the address to listen on
// and what the start-up log line says of the servers.
func serveConfig(f *serveFlags) (cfg bridge.Config, file *configfile.File, listen string, describe []any, err error) {
	listen = f.listen
	if f.config != "" {
		cfg, file, err = configfile.Load(f.config)
		if err != nil {
			return cfg, nil, "", nil, usageError{err: err}
		}
		if file.Listen != "" && !f.set["listen"] {
			listen = file.Listen
		}
		if err := checkListen(listen); err != nil {
			return cfg, nil, "", nil, usageError{err: fmt.Errorf("%s: listen: %v", f.config, err)}
		}
		f.applyServiceFlags(&cfg)
		names := make([]string, len(cfg.Servers))
		for i, sc := range cfg.Servers {
			names[i] = sc.Name
		}
		return cfg, file, listen, []any{"config", f.config, "servers", names}, nil
	}
	command := f.command
	if len(command) > 0 {
		// A command that cannot be run fails now, not in a restart loop.
		// As exec.Command would: a name with a slash as given, relative
		// to the working directory, which the child shares; any other
		// name on PATH.
		if _, err := exec.LookPath(command[0]); err != nil {
			var ee *exec.Error
			if errors.As(err, &ee) {
				err = ee.Err
			}
			return cfg, nil, "", nil, fmt.Errorf("cannot run the server command %q: %w", command[0], err)
		}
	} else {
		self, err := os.Executable()
		if err != nil {
			return cfg, nil, "", nil, fmt.Errorf("finding the demo server: %v", err)
		}
		command = []string{self, "demo"}
	}
	server := bridge.ServerConfig{Name: f.name, Command: command[0], Args: command[1:], Grace: f.grace,
		MaxRestarts: f.maxRestarts, MaxRestartBackoff: f.maxBackoff, MaxRequestBytes: f.maxRequestBytes, HandshakeTimeout: f.handshake, ExposeStderr: f.exposeStderr,
		Capabilities: json.RawMessage(f.capabilities), LogLevel: f.childLogLevel,
		Env: f.env, InheritEnv: f.inheritEnv,
		DisableReaper: !f.reaper}
	server.Policy, _ = bridge.ParsePolicy(f.policy)     // checked by parseServe
	server.Tunnel, _ = bridge.ParseTunnelMode(f.tunnel) // likewise
	// Each policy's settings, and only its own.
	switch server.Policy {
	case bridge.PolicyPool:
		server.Pool = bridge.PoolConfig{Min: f.poolSize}
	case bridge.PolicySession:
		server.Session = bridge.SessionConfig{Max: f.maxSessions}
	}
	if f.protocol != "auto" {
		server.Versions = []string{f.protocol}
	}
	if f.roots != "" {
		server.Roots = json.RawMessage(f.roots)
	}
	cfg = bridge.Config{Servers: []bridge.ServerConfig{server}}
	f.applyServiceFlags(&cfg)
	return cfg, nil, listen, []any{"command", strings.Join(command, " "), "protocol", f.protocol, "policy", f.policy,
		"reaper", f.reaper && reaper.Available()}, nil
}

// applyServiceFlags sets the service-wide settings of the flags: all of
// them without --config, those given on the command line with it.
func (f *serveFlags) applyServiceFlags(cfg *bridge.Config) {
	given := func(name string) bool { return f.config == "" || f.set[name] }
	if given("max-message-bytes") {
		cfg.MaxMessageBytes = f.maxMessageBytes
	}
	if given("default-deadline") {
		cfg.DefaultDeadline = f.defaultDeadline
	}
	if given("max-deadline") {
		cfg.MaxDeadline = f.maxDeadline
		if !f.set["default-deadline"] && cfg.DefaultDeadline > cfg.MaxDeadline {
			cfg.DefaultDeadline = cfg.MaxDeadline
		}
	}
}

// reloadOnHangup reloads the config file at every SIGHUP until stop: a
// file that fails to load or validate is logged and changes nothing.
func reloadOnHangup(f *serveFlags, svc *bridge.Service, sec *security, listen string, log *slog.Logger) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	finished := make(chan struct{})
	var watching sync.WaitGroup
	if f.watchConfig > 0 {
		watching.Go(func() { watchFile(f.config, f.watchConfig, hup, done) })
	}
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-hup:
			}
			cfg, file, err := configfile.Load(f.config)
			if err == nil {
				logWarnings(log, file)
				f.applyServiceFlags(&cfg)
				cfg.Logger = log
				cfg.Audit = svc.Audit() // the sink stays: a new one needs a restart
				err = sec.apply(f, file, &cfg, listen)
			}
			if err == nil {
				err = svc.Reload(cfg)
			}
			if err != nil {
				log.Error("mcpbridge: reload refused; the running configuration stays", "error", err)
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
		<-finished
		watching.Wait()
	}
}

// watchFile sends on changed, without waiting, whenever the file at path
// changed since the last look, every interval until done: its size or
// modification time, or another file took its path (a Kubernetes ConfigMap
// is updated by swapping a symbolic link to a new directory).
func watchFile(path string, interval time.Duration, changed chan<- os.Signal, done <-chan struct{}) {
	last, _ := os.Stat(path)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		cur, err := os.Stat(path)
		if err != nil || (last != nil && tlsfiles.SameStat(last, cur)) {
			continue // gone for a moment, or unchanged
		}
		last = cur
		select {
		case changed <- syscall.SIGHUP:
		default: // a reload is pending already
		}
	}
}

// logWarnings logs what in the config file (nil: none) loads but may not
// mean what it says.
func logWarnings(log *slog.Logger, file *configfile.File) {
	if file == nil {
		return
	}
	for _, w := range file.Warnings() {
		log.Warn("mcpbridge: the config file may not say what it means", "warning", w)
	}
}

// isLoopback reports whether listen, a host:port address, is on loopback
// only: localhost, or a host whose every address is in 127.0.0.0/8 or is
// ::1. An empty host, 0.0.0.0 and :: are every interface; a host name
// that does not resolve is not loopback.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil || host == "" {
		return false
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().IsLoopback()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return false
		}
	}
	return true
}

// checkListen checks a host:port address with a numeric port.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return errors.New("the port must be a number from 0 to 65535")
	}
	return nil
}

// writeAllocsProfile writes the allocations of the whole run (the "allocs"
// profile, sampled at the runtime's default rate) to path: for benchmarks
// (docs/performance.md).
func writeAllocsProfile(path string, log *slog.Logger) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		log.Error("mcpbridge: writing --memprofile", "error", err)
	}
}
