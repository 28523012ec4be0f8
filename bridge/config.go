package bridge

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/stdio/sandbox"
)

// Defaults of Config.
const (
	DefaultMaxMessageBytes = 16 << 20
	DefaultDeadline        = 30 * time.Second
	DefaultMaxDeadline     = 10 * time.Minute
)

// Limits bound what one caller may ask: Rate requests a second (with
// Burst, default the rate rounded up), and Concurrent calls in flight.
// Zero: no limit. A caller is its principal, or, without authentication,
// its network address.
type Limits = door.Limits

// SandboxProfile is what a sandboxed child may do (ServerConfig.Sandbox,
// package stdio/sandbox); SandboxLimits bound its resources.
type (
	SandboxProfile = sandbox.Profile
	SandboxLimits  = sandbox.Limits
)

// The networks of a sandbox.
const (
	SandboxNetworkNone     = sandbox.NetworkNone
	SandboxNetworkLoopback = sandbox.NetworkLoopback
	SandboxNetworkHost     = sandbox.NetworkHost
)

// TaskCaps bound a server's live MCP tasks: in all and per authenticated
// principal (ServerConfig.Tasks).
type TaskCaps = door.TaskCaps

// An aggregate's configuration is package internal/aggregate's; these are
// its names in the API.
type (
	// AggregateConfig is one aggregated server: its name, its members,
	// how it keeps their names apart, and which of their tools and
	// prompts it lists.
	AggregateConfig = aggregate.Config
	// AggregateFilter picks and renames the tools or prompts an aggregate
	// lists, by the names it gives them.
	AggregateFilter = aggregate.Filter
	// AggregateOverride is what an aggregate lists of one tool or prompt
	// instead of what its member says.
	AggregateOverride = aggregate.Override
	// Conflicts is how an aggregate keeps its members' names apart.
	Conflicts = aggregate.Conflicts
)

// How an aggregate keeps its members' names apart.
const (
	// ConflictsPrefix names every tool and prompt with its member's
	// prefix (the default).
	ConflictsPrefix = aggregate.Prefix
	// ConflictsPriority keeps the members' names; the first member listing
	// a name wins.
	ConflictsPriority = aggregate.Priority
)

// ParseConflicts reads a conflicts name of the config file ("prefix",
// "priority"; "" is prefix).
func ParseConflicts(name string) (Conflicts, error) { return aggregate.ParseConflicts(name) }

// Config configures a Service. The zero value of each field means its
// default; negative sizes and durations are invalid.
type Config struct {
	// Servers are the fronted servers; at least one. Names must be unique;
	// one server may have an empty name.
	Servers []ServerConfig
	// Aggregates are the aggregated servers: each merges the tools,
	// prompts and resources of some of Servers under one name
	// (docs/aggregation.md). Their names are unique among the servers'.
	Aggregates []AggregateConfig
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

// ConfigError is a configuration that Validate, New or Reload refused,
// naming the field at fault.
type ConfigError struct {
	// Path is the field as Go spells it from Config: "MaxDeadline",
	// "Rules[2]", "Servers[1].Session.Max",
	// `Servers[0].Session.EnvFromMetadata["LD_PRELOAD"]`.
	Path string
	// Server is the name of the server the field belongs to, if any.
	Server string
	// Msg says what is wrong with it.
	Msg string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return "bridge: " + e.Msg
	}
	if e.Server != "" {
		return fmt.Sprintf("bridge: %s (server %q): %s", e.Path, e.Server, e.Msg)
	}
	return "bridge: " + e.Path + ": " + e.Msg
}

// CheckCommands reports the first server whose command cannot be started
// as its children would be (a bare name on the bridge's PATH, as
// exec.Command looks it up; a path relative to the server's Dir; the file
// executable): a *ConfigError naming Servers[i].Command. New and Reload do
// not check it, and such a server is FAILED at once, alone; a program
// that reads a configuration file (mcpbridge serve --config, at start
// and at each reload) calls it to refuse the file instead, since a
// missing executable is a mistake in the file, not a crash to restart.
func (c Config) CheckCommands() error {
	for i := range c.Servers {
		sc := &c.Servers[i]
		if err := pool.Runnable(sc); err != nil {
			return &ConfigError{Path: fmt.Sprintf("Servers[%d].Command", i), Server: sc.Name, Msg: err.Error()}
		}
	}
	return nil
}

// Validate checks cfg as New would, without starting anything. Its error
// is a *ConfigError.
func (c Config) Validate() error {
	c.Servers = append([]ServerConfig(nil), c.Servers...)
	c.Aggregates = append([]AggregateConfig(nil), c.Aggregates...)
	return c.normalize()
}

// normalize checks the configuration and fills in the defaults, the one
// place where that happens (a server's own settings: pool.Normalize).
// Negative sizes and durations are invalid.
func (c *Config) normalize() error {
	bad := func(path, format string, args ...any) error {
		return &ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if len(c.Servers) == 0 {
		return bad("Servers", "no servers configured")
	}
	for _, f := range []struct {
		name string
		neg  bool
	}{
		{"MaxMessageBytes", c.MaxMessageBytes < 0}, {"DefaultDeadline", c.DefaultDeadline < 0}, {"MaxDeadline", c.MaxDeadline < 0},
		{"Limits", c.Limits.Rate < 0 || c.Limits.Burst < 0 || c.Limits.Concurrent < 0},
	} {
		if f.neg {
			return bad(f.name, "must not be negative")
		}
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
		return bad("DefaultDeadline", "%v is longer than the maximum deadline %v", c.DefaultDeadline, c.MaxDeadline)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	for i := range c.Rules {
		if err := c.Rules[i : i+1].Check(); err != nil {
			return bad("Rules["+strconv.Itoa(i)+"]", "%v", err)
		}
	}
	if len(c.Rules) > 0 && !c.Auth.Enabled() {
		return bad("Rules", "authorization rules need authentication (API keys, JWT, OAuth or mTLS)")
	}
	seen := map[string]int{}
	for i := range c.Servers {
		s := &c.Servers[i]
		path := "Servers[" + strconv.Itoa(i) + "]"
		if j, dup := seen[s.Name]; dup {
			return &ConfigError{Path: path + ".Name", Server: s.Name, Msg: fmt.Sprintf("the name %q is already used by Servers[%d]", s.Name, j)}
		}
		seen[s.Name] = i
		if err := pool.Normalize(s, c.MaxMessageBytes, pool.Deadlines{Default: c.DefaultDeadline, Max: c.MaxDeadline}); err != nil {
			fe := err.(*pool.FieldError)
			if fe.Field != "" {
				path += "." + fe.Field
			}
			return &ConfigError{Path: path, Server: s.Name, Msg: fe.Msg}
		}
	}
	return c.normalizeAggregates(seen)
}

// normalizeAggregates checks the aggregates (aggregate.NormalizeAll)
// against the servers, by name.
func (c *Config) normalizeAggregates(servers map[string]int) error {
	i, err := aggregate.NormalizeAll(c.Aggregates, servers)
	if err == nil {
		return nil
	}
	fe := err.(*aggregate.FieldError)
	return &ConfigError{Path: fmt.Sprintf("Aggregates[%d].%s", i, fe.Field), Server: c.Aggregates[i].Name, Msg: fe.Msg}
}

// A server's configuration is the child pool's (package internal/pool);
// these are its names in the API.
type (
	// ServerConfig says how to run one fronted stdio MCP server: the
	// command, its environment, the child policy, restarts, deadlines,
	// limits and what the bridge declares to it.
	ServerConfig = pool.ServerConfig
	// Deadlines are a server's or a tool's call deadlines: the default
	// for calls that arrive without one and the most any call gets. 0
	// inherits.
	Deadlines = pool.Deadlines
	// EnvVar is one change to the child's environment: set Name to
	// Value, or remove Name when Unset is true.
	EnvVar = pool.EnvVar
	// Policy is how a fronted server's callers map to its children.
	Policy = pool.Policy
	// PoolConfig configures PolicyPool.
	PoolConfig = pool.PoolConfig
	// SessionConfig configures PolicySession.
	SessionConfig = pool.SessionConfig
	// TunnelMode is what serves a 2025 era Connect tunnel
	// (ServerConfig.Tunnel): a child of its own, or the policy's.
	TunnelMode = pool.TunnelMode
)

// The tunnel modes.
const (
	// TunnelPrivate gives a tunnel whose client opens with initialize a
	// child of its own, initialized with that initialize (the default).
	TunnelPrivate = pool.TunnelPrivate
	// TunnelShared serves every tunnel from the policy's children.
	TunnelShared = pool.TunnelShared
)

// ParseTunnelMode reads a tunnel mode's name: private or shared.
func ParseTunnelMode(name string) (TunnelMode, error) { return pool.ParseTunnelMode(name) }

// The policies (docs/architecture.md, "Child policies").
const (
	// PolicyShared multiplexes every caller onto one child (the default).
	PolicyShared = pool.PolicyShared
	// PolicyPool runs Pool.Min to Pool.Max children and sends each call
	// to the least loaded ready one; a stream stays on its child.
	PolicyPool = pool.PolicyPool
	// PolicySession runs one child per client session, named by the
	// SessionMetadataKey request metadata.
	PolicySession = pool.PolicySession
)

// Defaults of ServerConfig, PoolConfig and SessionConfig.
const (
	DefaultGrace                = pool.DefaultGrace
	DefaultMaxRestarts          = pool.DefaultMaxRestarts
	DefaultRestartBackoff       = pool.DefaultRestartBackoff
	DefaultMaxRestartBackoff    = pool.DefaultMaxRestartBackoff
	DefaultServerRequestTimeout = pool.DefaultServerRequestTimeout
	DefaultPoolMin              = pool.DefaultPoolMin
	DefaultPoolIdleTimeout      = pool.DefaultPoolIdleTimeout
	DefaultSessionIdleTimeout   = pool.DefaultSessionIdleTimeout
	DefaultMaxSessions          = pool.DefaultMaxSessions
	DefaultMaxTasks             = pool.DefaultMaxTasks
	DefaultMaxTasksPerPrincipal = pool.DefaultMaxTasksPerPrincipal
	// DefaultCapabilities are the client capabilities the bridge
	// declares to a child by default: what it can route to its callers.
	DefaultCapabilities = pool.DefaultCapabilities
	// SessionMetadataKey is the request metadata key that names a client
	// session for PolicySession servers.
	SessionMetadataKey = pool.SessionMetadataKey
)

// ParsePolicy reads a policy's name: shared, pool or session.
func ParsePolicy(name string) (Policy, error) { return pool.ParsePolicy(name) }

// CheckSessionEnvName reports whether a session's variable may take its
// value from request metadata (SessionConfig.EnvFromMetadata): nil, or
// why not. docs/security.md, "Hardening", lists the refused names.
func CheckSessionEnvName(name string) error { return pool.CheckSessionEnvName(name) }
