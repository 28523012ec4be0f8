package bridge

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// Defaults of Config and ServerConfig.
const (
	DefaultMaxMessageBytes = 16 << 20
	DefaultDeadline        = 30 * time.Second
	DefaultMaxDeadline     = 10 * time.Minute
	DefaultGrace           = 5 * time.Second
	DefaultMaxRestarts     = 5
	// DefaultRestartBackoff and DefaultMaxRestartBackoff are the first
	// and the longest wait before a restart.
	DefaultRestartBackoff    = supervisor.DefaultInitialBackoff
	DefaultMaxRestartBackoff = supervisor.DefaultMaxBackoff
)

// DefaultServerRequestTimeout is ServerConfig.ServerRequestTimeout's
// default: how long a request from a legacy child waits for an answer.
const DefaultServerRequestTimeout = time.Minute

// Limits bound what one caller may ask: Rate requests a second (with
// Burst, default the rate rounded up), and Concurrent calls in flight.
// Zero: no limit. A caller is its principal, or, without authentication,
// its network address.
type Limits = door.Limits

// Config configures a Service. The zero value of each field means its
// default; negative sizes and durations are invalid.
type Config struct {
	// Servers are the fronted servers; at least one. Names must be unique;
	// one server may have an empty name.
	Servers []ServerConfig
	// MaxMessageBytes is the one size limit (default 16 MiB): the child's
	// stdout lines and the gRPC messages in both directions. Use
	// [Service.ServerOptions] to apply it to the grpc.Server.
	MaxMessageBytes int
	// DefaultDeadline bounds calls that arrive without a gRPC deadline
	// (default 30 s, or MaxDeadline if that is shorter); Subscribe and
	// Connect are exempt. It may not exceed MaxDeadline.
	DefaultDeadline time.Duration
	// MaxDeadline cuts longer gRPC deadlines (default 10 min).
	MaxDeadline time.Duration
	// Logger receives the bridge's structured log, children's stderr
	// included (default slog.Default()).
	Logger *slog.Logger
	// Auth authenticates every BridgeService call (health stays open);
	// nil or empty: callers are anonymous. Rules authorize them: none,
	// everything is allowed; any, what a rule allows and nothing else
	// (docs/security.md). Rules need Auth.
	Auth  *access.Authenticator
	Rules access.Rules
	// Audit, when set, receives one record per tools/call,
	// resources/read and prompts/get, whatever the path (docs/security.md,
	// "Audit"); give it a JSON handler on a sink of its own.
	Audit *slog.Logger
	// Limits bound each caller across the bridge (docs/security.md):
	// requests a second and calls in flight, per principal (per address
	// without authentication). Refused calls are RESOURCE_EXHAUSTED with
	// RetryInfo.
	Limits Limits
	// DisableReflection leaves gRPC server reflection out of
	// NewGRPCServer (it is on by default, and needs authentication like
	// the BridgeService when Auth is set).
	DisableReflection bool
	// Metrics, when set, receives the bridge's Prometheus metrics: gRPC
	// server metrics, MCP operation durations and the state of every
	// child (docs/observability.md). Serve it with promhttp. Nil: none,
	// at no cost.
	Metrics prometheus.Registerer
	// TracerProvider, when set, traces every RPC (a server span) and every
	// request to a child (a client span, whose context goes to the child
	// in params._meta), as the OpenTelemetry conventions for MCP say
	// (docs/observability.md). Nil: no tracing, at no cost.
	TracerProvider trace.TracerProvider
}

// ServerConfig says how to run one fronted stdio MCP server.
type ServerConfig struct {
	// Name is what the `server` field and the `mcp-server` metadata key
	// select; it may be empty when the bridge fronts one server.
	Name string
	// Command is the executable and Args its arguments; no shell is
	// involved. Dir is the working directory.
	Command string
	Args    []string
	Dir     string
	// Env is applied over the child's base environment: the variables
	// named in BaseEnv that the bridge has, or, with InheritEnv, the
	// bridge's whole environment. A secret in the bridge's environment
	// reaches only the children given it.
	Env        []EnvVar
	InheritEnv bool
	// Policy is how callers map to children (default PolicyShared); Pool
	// and Session configure the other two.
	Policy  Policy
	Pool    PoolConfig
	Session SessionConfig
	// Limits bound each caller of this server, like Config.Limits for
	// the whole bridge.
	Limits Limits
	// AuditPayloads adds the params of each audited request (the tool's
	// arguments, the URI, the prompt's arguments) to its audit record.
	// Off by default: payloads may hold what an audit trail must not.
	AuditPayloads bool
	// DefaultDeadline and MaxDeadline override Config's for this server's
	// calls (0: Config's); Tools overrides them per tool, for tools known
	// to be long. A server's or tool's DefaultDeadline may not exceed its
	// MaxDeadline.
	DefaultDeadline, MaxDeadline time.Duration
	Tools                        map[string]Deadlines
	// Versions are the allowed protocol versions in preference order
	// (default: auto, every version in stdio.DefaultVersions). One version
	// pins it. New refuses versions stdio does not speak.
	Versions []string
	// HandshakeTimeout bounds the version negotiation of each child it
	// starts (default stdio.DefaultHandshakeTimeout, 15 s): a child that
	// has not completed it in time counts as a failed start. Calls that
	// arrive while a child starts wait for it at most this long.
	HandshakeTimeout time.Duration
	// Grace is how long a stopping child gets after its stdin closes, and
	// again after SIGTERM (default 5 s).
	Grace time.Duration
	// MaxRestarts is the crash-loop limit (default 5): the supervisor
	// restarts a child that failed to start or exited this many times in
	// a row, counting from the last child that stayed up a minute; the
	// next failure opens the circuit: the server is FAILED, calls fail at
	// once, and a start is tried every MaxRestartBackoff until one stays
	// up.
	MaxRestarts int
	// RestartBackoff is the wait before the first restart after a failure
	// (default 100 ms); it doubles with each failure in a row up to
	// MaxRestartBackoff (default 30 s), which is also the interval of the
	// starts tried while FAILED.
	RestartBackoff, MaxRestartBackoff time.Duration
	// LogLevel, when set ("debug" … "emergency"), is the logging level a
	// legacy child that declares logging is held at while no reader asks
	// for more (a Subscribe or call stream's log_level, a tunnel's
	// logging/setLevel; the most verbose of them wins while they read).
	// Default "": the child's own level until a reader asks.
	LogLevel string
	// ExposeStderr sends the last lines the server's children wrote to
	// stderr in GetServer's Child.stderr_tail. Off by default: stderr
	// may hold what callers must not see; the log has it always.
	ExposeStderr bool
	// MaxRequestBytes, when positive, is the child's own line limit: a
	// request line longer than this is refused at the bridge with
	// RESOURCE_EXHAUSTED (reason TOO_LARGE) and never written. Default 0:
	// requests up to Config.MaxMessageBytes are sent, and a child that
	// refuses one as unreadable (an error with a null id) fails the
	// longest call in flight at once.
	MaxRequestBytes int
	// ClientInfo and Capabilities are what the bridge declares to the child
	// (defaults: {"name":"mcpbridge","version":...} and
	// DefaultCapabilities, what the bridge can route to its callers).
	ClientInfo   json.RawMessage
	Capabilities json.RawMessage
	// Roots, when set, is the JSON array of Root objects
	// ([{"uri":"file:///work","name":"work"}], [] for none) with which the
	// bridge itself answers a legacy child's roots/list; the roots
	// capability is then declared to the child. Default: nil, roots/list
	// is routed like sampling and elicitation (bridge.proto).
	Roots json.RawMessage
	// ServerRequestTimeout bounds how long a request from a legacy child
	// waits for an answer from a tunnel or a stream before the child gets
	// -32603 (default 1 min).
	ServerRequestTimeout time.Duration
	// DisableReaper runs the child without a reaper. By default each child
	// runs under one (stdio.ClientConfig.Reaper) where reaper.Main was
	// called, on Linux: then no descendant of the child outlives it or the
	// bridge, however the bridge dies (docs/operations.md, "The managed
	// child"). Elsewhere, children run without one.
	DisableReaper bool

	maxLineBytes int
	logLevel     mcpbridgev1.LoggingLevel // LogLevel, parsed
}

// Deadlines are a server's or a tool's call deadlines: the default for
// calls that arrive without one and the most any call gets. 0 inherits.
type Deadlines struct {
	Default, Max time.Duration
}

// normalize checks the configuration and fills in the defaults, the one
// place where that happens. Negative sizes and durations are invalid.
func (c *Config) normalize() error {
	if len(c.Servers) == 0 {
		return fmt.Errorf("bridge: no servers configured")
	}
	switch {
	case c.MaxMessageBytes < 0:
		return fmt.Errorf("bridge: MaxMessageBytes is negative")
	case c.DefaultDeadline < 0:
		return fmt.Errorf("bridge: DefaultDeadline is negative")
	case c.MaxDeadline < 0:
		return fmt.Errorf("bridge: MaxDeadline is negative")
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MaxDeadline == 0 {
		c.MaxDeadline = DefaultMaxDeadline
	}
	if c.DefaultDeadline == 0 {
		c.DefaultDeadline = min(DefaultDeadline, c.MaxDeadline)
	}
	if c.DefaultDeadline > c.MaxDeadline {
		return fmt.Errorf("bridge: DefaultDeadline %v is longer than MaxDeadline %v", c.DefaultDeadline, c.MaxDeadline)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if err := c.checkAccess(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range c.Servers {
		s := &c.Servers[i]
		if s.Command == "" {
			return fmt.Errorf("bridge: server %q has no command", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("bridge: server name %q is used twice", s.Name)
		}
		seen[s.Name] = true
		// Checked here, not at the first start: a bad version would
		// otherwise fail every start until the crash-loop limit.
		for _, v := range s.Versions {
			if !protocol.Supported(v) {
				return fmt.Errorf("bridge: server %q: unsupported protocol version %q (supported: %s)", s.Name, v, strings.Join(protocol.Versions, ", "))
			}
		}
		if s.Grace < 0 {
			return fmt.Errorf("bridge: server %q: Grace is negative", s.Name)
		}
		if s.Grace == 0 {
			s.Grace = DefaultGrace
		}
		if s.MaxRestarts <= 0 {
			s.MaxRestarts = DefaultMaxRestarts
		}
		if s.RestartBackoff < 0 || s.MaxRestartBackoff < 0 {
			return fmt.Errorf("bridge: server %q: a restart backoff is negative", s.Name)
		}
		if s.RestartBackoff == 0 {
			s.RestartBackoff = DefaultRestartBackoff
		}
		if s.MaxRestartBackoff == 0 {
			s.MaxRestartBackoff = DefaultMaxRestartBackoff
		}
		if s.MaxRestartBackoff < s.RestartBackoff {
			return fmt.Errorf("bridge: server %q: MaxRestartBackoff %v is shorter than RestartBackoff %v", s.Name, s.MaxRestartBackoff, s.RestartBackoff)
		}
		if s.LogLevel != "" {
			if s.logLevel = convert.Level(s.LogLevel); s.logLevel == 0 {
				return fmt.Errorf("bridge: server %q: unknown LogLevel %q (want one of %s)", s.Name, s.LogLevel, strings.Join(protocol.LogLevels, ", "))
			}
		}
		if s.HandshakeTimeout < 0 {
			return fmt.Errorf("bridge: server %q: HandshakeTimeout is negative", s.Name)
		}
		if s.HandshakeTimeout == 0 {
			s.HandshakeTimeout = stdio.DefaultHandshakeTimeout
		}
		if s.MaxRequestBytes < 0 {
			return fmt.Errorf("bridge: server %q: MaxRequestBytes is negative", s.Name)
		}
		s.maxLineBytes = c.MaxMessageBytes
		if err := s.normalizeRequests(); err != nil {
			return err
		}
		if err := s.normalizeDeadlines(c); err != nil {
			return err
		}
		if err := s.normalizePolicy(); err != nil {
			return err
		}
	}
	return nil
}

// normalizeDeadlines resolves the server's and its tools' deadlines.
func (s *ServerConfig) normalizeDeadlines(c *Config) error {
	resolve := func(what string, d *Deadlines, parent Deadlines) error {
		if d.Default < 0 || d.Max < 0 {
			return fmt.Errorf("bridge: server %q: %s has a negative deadline", s.Name, what)
		}
		if d.Max == 0 {
			d.Max = parent.Max
		}
		if d.Default == 0 {
			d.Default = min(parent.Default, d.Max)
		}
		if d.Default > d.Max {
			return fmt.Errorf("bridge: server %q: %s's default deadline %v is longer than its maximum %v", s.Name, what, d.Default, d.Max)
		}
		return nil
	}
	own := Deadlines{s.DefaultDeadline, s.MaxDeadline}
	if err := resolve("the server", &own, Deadlines{c.DefaultDeadline, c.MaxDeadline}); err != nil {
		return err
	}
	s.DefaultDeadline, s.MaxDeadline = own.Default, own.Max
	tools := make(map[string]Deadlines, len(s.Tools))
	for name, d := range s.Tools {
		if err := resolve("tool "+strconv.Quote(name), &d, own); err != nil {
			return err
		}
		tools[name] = d
	}
	s.Tools = tools
	return nil
}

// deadlines are the deadlines of a call of tool ("" for any other call).
func (s *ServerConfig) deadlines(tool string) Deadlines {
	if d, ok := s.Tools[tool]; ok && tool != "" {
		return d
	}
	return Deadlines{s.DefaultDeadline, s.MaxDeadline}
}

// command is the command line of one child, without a shell: the
// executable is looked up as exec.Command does (a bare name on PATH, a
// relative path against Dir), and its environment is the base (BaseEnv,
// or the bridge's whole environment with InheritEnv) with Env applied,
// then extra (a session's own values). Its stderr goes to stderr.
func (s *ServerConfig) command(stderr io.Writer, extra []EnvVar) *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	base := os.Environ()
	if !s.InheritEnv {
		base = slices.DeleteFunc(base, func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return !slices.Contains(BaseEnv, name)
		})
	}
	cmd.Env = childEnv(base, append(slices.Clip(s.Env), extra...))
	cmd.Stderr = stderr
	return cmd
}

// BaseEnv names the variables of the bridge's environment that every child
// gets (when the bridge has them) unless its server inherits the whole
// environment: what programs need to find their tools, home, locale, time
// zone and temporary directory, and nothing that usually holds a secret.
var BaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// client is the stdio configuration of one child.
func (s *ServerConfig) client(log *slog.Logger) stdio.ClientConfig {
	return stdio.ClientConfig{MaxLineBytes: s.maxLineBytes, MaxRequestBytes: s.MaxRequestBytes, Logger: log, Reaper: !s.DisableReaper && reaper.Available()}
}

func (s *ServerConfig) connect() stdio.ConnectConfig {
	return stdio.ConnectConfig{Versions: s.Versions, ClientInfo: s.ClientInfo, Capabilities: s.capabilities(), HandshakeTimeout: s.HandshakeTimeout}
}

// childEnv applies changes in order over base; the last entry for a name
// wins.
func childEnv(base []string, changes []EnvVar) []string {
	if len(changes) == 0 {
		return base
	}
	env := make([]string, 0, len(base)+len(changes))
	drop := make(map[string]bool, len(changes))
	for _, c := range changes {
		drop[c.Name] = true
	}
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			env = append(env, kv)
		}
	}
	final := make(map[string]EnvVar, len(changes))
	var order []string
	for _, c := range changes {
		if _, seen := final[c.Name]; !seen {
			order = append(order, c.Name)
		}
		final[c.Name] = c
	}
	for _, name := range order {
		if c := final[name]; !c.Unset {
			env = append(env, name+"="+c.Value)
		}
	}
	return env
}

// normalizeRequests checks Roots and fills in ServerRequestTimeout's
// default; Config.normalize calls it.
func (s *ServerConfig) normalizeRequests() error {
	if s.ServerRequestTimeout <= 0 {
		s.ServerRequestTimeout = DefaultServerRequestTimeout
	}
	if s.Roots == nil {
		return nil
	}
	roots, err := rawjson.Compact(s.Roots)
	if err != nil || len(roots) == 0 || roots[0] != '[' {
		return fmt.Errorf("bridge: server %q: Roots must be a JSON array of roots", s.Name)
	}
	s.Roots = roots
	return nil
}

// DefaultCapabilities are the client capabilities the bridge declares to a
// child by default: what it can route to its callers. A legacy child's
// sampling/createMessage, elicitation/create and roots/list reach a
// caller's stream or tunnel (bridge.proto, "Server requests"); a 2026
// child's input requests reach the caller in input_required results.
// Declaring them lets a child that checks capabilities offer its tools
// that need them.
const DefaultCapabilities = `{"elicitation":{},"roots":{},"sampling":{}}`

// capabilities is what the bridge declares to the child: Capabilities
// (default DefaultCapabilities), plus roots when the bridge answers
// roots/list itself.
func (s *ServerConfig) capabilities() json.RawMessage {
	caps := s.Capabilities
	if caps == nil {
		caps = json.RawMessage(DefaultCapabilities)
	}
	if s.Roots == nil {
		return caps
	}
	if _, ok := rawjson.Member(caps, "roots"); ok {
		return caps
	}
	out, err := rawjson.SetMember(caps, "roots", json.RawMessage(`{}`))
	if err != nil {
		return caps // not an object: Connect reports it
	}
	return out
}
