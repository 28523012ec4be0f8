package pool

// This file is a server's configuration: the fields, their defaults and
// the one check of them (Normalize), and what they make: a child's
// command line, environment and stdio settings.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
	"github.com/mcpbridge/mcpbridge/stdio/sandbox"
)

// Defaults of ServerConfig.
const (
	DefaultGrace       = 5 * time.Second
	DefaultMaxRestarts = 5
	// DefaultRestartBackoff and DefaultMaxRestartBackoff are the first
	// and the longest wait before a restart.
	DefaultRestartBackoff    = supervisor.DefaultInitialBackoff
	DefaultMaxRestartBackoff = supervisor.DefaultMaxBackoff
)

// DefaultServerRequestTimeout is ServerConfig.ServerRequestTimeout's
// default: how long a request from a legacy child waits for an answer.
const DefaultServerRequestTimeout = time.Minute

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
	// Tunnel is what serves a Connect tunnel whose client opens with
	// initialize (a 2025 era client) and names no session:
	// TunnelPrivate (the default), a child of its own initialized with
	// the client's own initialize, stopped when the tunnel ends, as if
	// the client had launched the server; TunnelShared, the children of
	// the policy, initialized by the bridge. A 2026-07-28 client, whose
	// every request carries its capabilities, always shares them, and so
	// does a tunnel to a server that refuses the client's initialize.
	Tunnel TunnelMode
	// Limits bound each caller of this server, like Config.Limits for
	// the whole bridge.
	Limits door.Limits
	// Sandbox, when set, runs each of the server's children inside the
	// profile's fences (package stdio/sandbox, docs/sandbox.md), with a
	// private temporary directory of its own.
	Sandbox *sandbox.Profile
	// Tasks bound the server's live MCP tasks (docs/api.md, "Tasks"): a
	// tools/call whose task would pass Max (default 256) live tasks on the
	// server, or MaxPerPrincipal (default 64) of one authenticated
	// principal, has its task cancelled and is refused with
	// RESOURCE_EXHAUSTED and RetryInfo. A task is live from its creation
	// until the bridge sees it end or its TTL passes.
	Tasks door.TaskCaps
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
	// (default: auto, every version in stdio.DefaultVersions()). One version
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

// EnvVar is one change to the child's environment: set Name to Value, or
// remove Name when Unset is true.
type EnvVar struct {
	// Name is the variable's name.
	Name string
	// Value is its value, when it is set.
	Value string
	// Unset removes Name from the child's environment instead.
	Unset bool
}

// Policy is how a fronted server's callers map to its children.
type Policy int

const (
	// PolicyShared multiplexes every caller onto one child (the default).
	PolicyShared Policy = iota
	// PolicyPool runs Pool.Min to Pool.Max children and sends each call to
	// the least loaded ready one; a stream stays on its child.
	PolicyPool
	// PolicySession runs one child per client session, named by the
	// SessionMetadataKey request metadata.
	PolicySession
)

// String is the policy's name in the config file.
func (p Policy) String() string {
	switch p {
	case PolicyShared:
		return "shared"
	case PolicyPool:
		return "pool"
	case PolicySession:
		return "session"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy reads a policy's name.
func ParsePolicy(name string) (Policy, error) {
	for _, p := range []Policy{PolicyShared, PolicyPool, PolicySession} {
		if p.String() == name {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown policy %q (want shared, pool or session)", name)
}

// TunnelMode is ServerConfig.Tunnel.
type TunnelMode int

const (
	// TunnelPrivate gives a 2025 era tunnel a child of its own.
	TunnelPrivate TunnelMode = iota
	// TunnelShared serves every tunnel from the policy's children.
	TunnelShared
)

// String is the mode's name in the config file.
func (m TunnelMode) String() string {
	switch m {
	case TunnelPrivate:
		return "private"
	case TunnelShared:
		return "shared"
	}
	return fmt.Sprintf("TunnelMode(%d)", int(m))
}

// ParseTunnelMode reads a tunnel mode's name.
func ParseTunnelMode(name string) (TunnelMode, error) {
	for _, m := range []TunnelMode{TunnelPrivate, TunnelShared} {
		if m.String() == name {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown tunnel mode %q (want private or shared)", name)
}

// SessionMetadataKey is the request metadata key that names a client
// session for PolicySession servers.
const SessionMetadataKey = fanout.SessionMetadataKey

// Defaults of PoolConfig and SessionConfig.
const (
	DefaultPoolMin              = 2
	DefaultPoolIdleTimeout      = 5 * time.Minute
	DefaultSessionIdleTimeout   = 10 * time.Minute
	DefaultMaxSessions          = 64
	DefaultMaxTasks             = 256
	DefaultMaxTasksPerPrincipal = 64
)

// PoolConfig configures PolicyPool.
type PoolConfig struct {
	// Min children run at all times (default 2); up to Max (default Min)
	// run while every ready child is busy. A child above Min that has been
	// idle for IdleTimeout (default 5 min) is stopped.
	Min, Max    int
	IdleTimeout time.Duration
}

// SessionConfig configures PolicySession.
type SessionConfig struct {
	// IdleTimeout stops a session's child once it has had no request,
	// stream or tunnel for this long (default 10 min).
	IdleTimeout time.Duration
	// Max is the most sessions at once (default 64); a new session beyond
	// it is refused with RESOURCE_EXHAUSTED and RetryInfo.
	Max int
	// MaxPerPrincipal is the most sessions one authenticated principal
	// may have open at once (default Max/4 rounded up), so that one
	// caller cannot take every session; a new session beyond it is
	// refused like one beyond Max. Without authentication every caller is
	// the same anonymous one, and it does not apply (sessioncap.go).
	MaxPerPrincipal int
	// EnvFromMetadata sets a session child's environment variable (the
	// key) from the request metadata key (the value, lower case) of the
	// session's first request: per-user credentials, for example. Values
	// are never logged. A variable whose metadata is absent is not set.
	// Variables that change what the child loads or runs (LD_PRELOAD,
	// PATH, NODE_OPTIONS and the others CheckSessionEnvName refuses) are
	// refused here, as are the caller's own credentials (CheckSessionEnvKey),
	// and a session whose value holds a control character
	// is refused with INVALID_ARGUMENT before its child starts.
	EnvFromMetadata map[string]string
}

// Command is the command line of one child, without a shell: the
// executable is looked up as exec.Command does (a bare name on PATH, a
// relative path against Dir), and its environment is the base (BaseEnv,
// or the bridge's whole environment with InheritEnv) with Env applied,
// then extra (a session's own values). Its stderr goes to stderr.
func Command(s *ServerConfig, stderr io.Writer, extra []EnvVar) *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	base := os.Environ()
	if !s.InheritEnv {
		base = slices.DeleteFunc(base, func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return !slices.Contains(BaseEnv[:], name)
		})
	}
	cmd.Env = childEnv(base, append(slices.Clip(s.Env), extra...))
	cmd.Stderr = stderr
	return cmd
}

// SandboxedCommand is Command inside the server's sandbox, when it has
// one. Its fences (nil without a sandbox) are completed with Started once
// the child runs, name the fence that ended it (ExitFence), and are
// removed with Release, with the child's private temporary directory,
// once it has ended.
func SandboxedCommand(s *ServerConfig, stderr io.Writer, extra []EnvVar) (*exec.Cmd, *Fences, error) {
	cmd := Command(s, stderr, extra)
	if s.Sandbox == nil || cmd.Err != nil {
		return cmd, nil, nil
	}
	tmp, err := os.MkdirTemp("", "mcpbridge-"+sandboxSafe(s.Name)+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("the sandbox's temporary directory: %w", err)
	}
	fences, err := sandbox.Wrap(cmd, *s.Sandbox, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	return cmd, &Fences{Fences: fences, tmp: tmp}, nil
}

// Fences are a sandboxed child's fences outside its process, and its
// private temporary directory.
type Fences struct {
	*sandbox.Fences
	tmp string
}

// Release removes what the fences hold; nil does nothing.
func (f *Fences) Release() {
	if f != nil {
		f.Fences.Release()
		os.RemoveAll(f.tmp)
	}
}

// sandboxSafe is a server's name as a file name's part.
func sandboxSafe(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == '.' {
			return '_'
		}
		return r
	}, name)
}

// Runnable reports why the command of s cannot be started, as Command
// starts it: a bare name not found on the bridge's PATH (exec.Command's
// lookup), a path (relative to Dir, if set) that is not there, a
// directory or not executable, or a Dir that is not a directory. nil when
// it can be started.
func Runnable(s *ServerConfig) error {
	cmd := Command(s, io.Discard, nil)
	if cmd.Err != nil {
		var ee *exec.Error
		if errors.As(cmd.Err, &ee) {
			return fmt.Errorf("%q cannot be run: %w", s.Command, ee.Err)
		}
		return fmt.Errorf("%q cannot be run: %w", s.Command, cmd.Err)
	}
	if s.Dir != "" {
		if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("%q cannot be run: its directory %q is not a directory", s.Command, s.Dir)
		}
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && s.Dir != "" {
		path = filepath.Join(s.Dir, path)
	}
	if _, err := exec.LookPath(path); err != nil { // a path: the file itself, executable
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return fmt.Errorf("%q cannot be run: %w", s.Command, err)
	}
	return nil
}

// BaseEnv names the variables of the bridge's environment that every child
// gets (when the bridge has them) unless its server inherits the whole
// environment: what programs need to find their tools, home, locale, time
// zone and temporary directory, and nothing that usually holds a secret.
// It is an array, so that no caller can append to it or share its storage.
var BaseEnv = [...]string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// client is the stdio configuration of one child.
func (s *ServerConfig) client(log *slog.Logger) stdio.ClientConfig {
	return stdio.ClientConfig{MaxLineBytes: s.maxLineBytes, MaxRequestBytes: s.MaxRequestBytes, Logger: log, Reaper: !s.DisableReaper && reaper.Available()}
}

func (s *ServerConfig) connect() stdio.ConnectConfig {
	return stdio.ConnectConfig{Versions: s.Versions, ClientInfo: s.ClientInfo, Capabilities: Capabilities(s), HandshakeTimeout: s.HandshakeTimeout}
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

// DefaultCapabilities are the client capabilities the bridge declares to a
// child by default: what it can route to its callers. A legacy child's
// sampling/createMessage, elicitation/create and roots/list reach a
// caller's stream or tunnel (bridge.proto, "Server requests"); a 2026
// child's input requests reach the caller in input_required results.
// Declaring them lets a child that checks capabilities offer its tools
// that need them.
const DefaultCapabilities = `{"elicitation":{},"roots":{},"sampling":{}}`

// Capabilities is what the bridge declares to the child: Capabilities
// (default DefaultCapabilities), plus roots when the bridge answers
// roots/list itself.
func Capabilities(s *ServerConfig) json.RawMessage {
	caps := s.Capabilities
	if caps == nil {
		caps = json.RawMessage(DefaultCapabilities)
	}
	if s.Roots == nil {
		return caps
	}
	return withRoots(caps)
}

// withRoots is caps with the roots capability.
func withRoots(caps json.RawMessage) json.RawMessage {
	if _, ok := rawjson.Member(caps, "roots"); ok {
		return caps
	}
	out, err := rawjson.SetMember(caps, "roots", json.RawMessage(`{}`))
	if err != nil {
		return caps // not an object: Connect reports it
	}
	return out
}

// FieldError is a field of a ServerConfig that Normalize refused. Field
// is its path from the ServerConfig as Go spells it ("Grace",
// "Session.Max", `Tools["slow"]`, "Env[2]"); "" is the whole.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Normalize checks s and fills in its defaults, the one place where a
// server's settings are checked: maxLine is the bridge's message size
// limit, parent the bridge's deadlines. Negative sizes and durations are
// invalid. The error is a *FieldError.
func Normalize(s *ServerConfig, maxLine int, parent Deadlines) error {
	if s.Command == "" {
		return fieldErr("Command", "a command is required")
	}
	for i, e := range s.Env {
		if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") {
			return fieldErr(fmt.Sprintf("Env[%d]", i), "%q is not an environment variable name", e.Name)
		}
	}
	// Checked here, not at the first start: a bad version would
	// otherwise fail every start until the crash-loop limit.
	for i, v := range s.Versions {
		if !protocol.Supported(v) {
			return fieldErr(fmt.Sprintf("Versions[%d]", i), "unsupported protocol version %q (supported: %s)", v, strings.Join(protocol.Versions, ", "))
		}
	}
	if s.Limits.Rate < 0 || s.Limits.Burst < 0 || s.Limits.Concurrent < 0 {
		return fieldErr("Limits", "must not be negative")
	}
	if s.Tasks.Max < 0 || s.Tasks.MaxPerPrincipal < 0 {
		return fieldErr("Tasks", "must not be negative")
	}
	if s.Tasks.Max == 0 {
		s.Tasks.Max = DefaultMaxTasks
	}
	if s.Tasks.MaxPerPrincipal == 0 {
		s.Tasks.MaxPerPrincipal = min(DefaultMaxTasksPerPrincipal, s.Tasks.Max)
	}
	for _, d := range []struct {
		field string
		v     *time.Duration
		def   time.Duration
	}{
		{"Grace", &s.Grace, DefaultGrace},
		{"RestartBackoff", &s.RestartBackoff, DefaultRestartBackoff},
		{"MaxRestartBackoff", &s.MaxRestartBackoff, DefaultMaxRestartBackoff},
		{"HandshakeTimeout", &s.HandshakeTimeout, stdio.DefaultHandshakeTimeout},
		{"ServerRequestTimeout", &s.ServerRequestTimeout, DefaultServerRequestTimeout},
	} {
		if *d.v < 0 {
			return fieldErr(d.field, "must not be negative")
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if s.MaxRestarts <= 0 {
		s.MaxRestarts = DefaultMaxRestarts
	}
	if s.MaxRestartBackoff < s.RestartBackoff {
		return fieldErr("MaxRestartBackoff", "%v is shorter than the first backoff %v", s.MaxRestartBackoff, s.RestartBackoff)
	}
	if s.LogLevel != "" {
		if s.logLevel = convert.Level(s.LogLevel); s.logLevel == 0 {
			return fieldErr("LogLevel", "unknown level %q (want one of %s)", s.LogLevel, strings.Join(protocol.LogLevels, ", "))
		}
	}
	if s.MaxRequestBytes < 0 {
		return fieldErr("MaxRequestBytes", "must not be negative")
	}
	s.maxLineBytes = maxLine
	if s.Roots != nil {
		roots, err := rawjson.Compact(s.Roots)
		if err != nil || len(roots) == 0 || roots[0] != '[' {
			return fieldErr("Roots", "must be a JSON array of roots")
		}
		s.Roots = roots
	}
	if err := normalizeDeadlines(s, parent); err != nil {
		return err
	}
	return normalizePolicy(s)
}

// normalizeDeadlines resolves the server's and its tools' deadlines.
func normalizeDeadlines(s *ServerConfig, parent Deadlines) error {
	resolve := func(field string, d *Deadlines, parent Deadlines) error {
		if d.Default < 0 || d.Max < 0 {
			return fieldErr(field, "a deadline is negative")
		}
		if d.Max == 0 {
			d.Max = parent.Max
		}
		if d.Default == 0 {
			d.Default = min(parent.Default, d.Max)
		}
		if d.Default > d.Max {
			return fieldErr(field, "the default deadline %v is longer than the maximum %v", d.Default, d.Max)
		}
		return nil
	}
	own := Deadlines{s.DefaultDeadline, s.MaxDeadline}
	if err := resolve("DefaultDeadline", &own, parent); err != nil {
		return err
	}
	s.DefaultDeadline, s.MaxDeadline = own.Default, own.Max
	tools := make(map[string]Deadlines, len(s.Tools))
	for _, name := range slices.Sorted(maps.Keys(s.Tools)) {
		d := s.Tools[name]
		if err := resolve("Tools["+strconv.Quote(name)+"]", &d, own); err != nil {
			return err
		}
		tools[name] = d
	}
	s.Tools = tools
	return nil
}

// normalizePolicy checks the policy settings and fills in their defaults.
func normalizePolicy(s *ServerConfig) error {
	if s.Policy != PolicyPool && s.Pool != (PoolConfig{}) {
		return fieldErr("Pool", "pool settings need the pool policy")
	}
	if s.Policy != PolicySession && (s.Session.Max != 0 || s.Session.MaxPerPrincipal != 0 || s.Session.IdleTimeout != 0 || s.Session.EnvFromMetadata != nil) {
		return fieldErr("Session", "session settings need the session policy")
	}
	switch s.Policy {
	case PolicyShared:
	case PolicyPool:
		p := &s.Pool
		if p.Min < 0 || p.Max < 0 || p.IdleTimeout < 0 {
			return fieldErr("Pool", "must not be negative")
		}
		if p.Min == 0 {
			p.Min = DefaultPoolMin
		}
		if p.Max == 0 {
			p.Max = p.Min
		}
		if p.Max < p.Min {
			return fieldErr("Pool.Max", "%d is below the pool's min %d", p.Max, p.Min)
		}
		if p.IdleTimeout == 0 {
			p.IdleTimeout = DefaultPoolIdleTimeout
		}
	case PolicySession:
		c := &s.Session
		if c.Max < 0 || c.MaxPerPrincipal < 0 || c.IdleTimeout < 0 {
			return fieldErr("Session", "must not be negative")
		}
		if c.Max == 0 {
			c.Max = DefaultMaxSessions
		}
		// MaxPerPrincipal defaults to Max/4 rounded up (16 of the
		// default 64), at least 1, so that four principals at their cap
		// fill the server (sessioncap.go).
		if c.MaxPerPrincipal == 0 {
			c.MaxPerPrincipal = max(1, (c.Max+3)/4)
		}
		if c.MaxPerPrincipal > c.Max {
			return fieldErr("Session.MaxPerPrincipal", "%d is above the session max %d", c.MaxPerPrincipal, c.Max)
		}
		if c.IdleTimeout == 0 {
			c.IdleTimeout = DefaultSessionIdleTimeout
		}
		env := make(map[string]string, len(c.EnvFromMetadata))
		for _, name := range slices.Sorted(maps.Keys(c.EnvFromMetadata)) {
			field := "Session.EnvFromMetadata[" + strconv.Quote(name) + "]"
			if err := CheckSessionEnvName(name); err != nil {
				return fieldErr(field, "%v", err)
			}
			key := c.EnvFromMetadata[name]
			if key == "" {
				return fieldErr(field, "the metadata key is empty")
			}
			if err := CheckSessionEnvKey(key); err != nil {
				return fieldErr(field, "%v", err)
			}
			env[name] = strings.ToLower(key)
		}
		c.EnvFromMetadata = env
	default:
		return fieldErr("Policy", "unknown policy %d", int(s.Policy))
	}
	if s.Tunnel != TunnelPrivate && s.Tunnel != TunnelShared {
		return fieldErr("Tunnel", "unknown tunnel mode %d", int(s.Tunnel))
	}
	return nil
}

// DeadlinesOf are the deadlines of a call of tool ("" for any other call)
// on a normalized server.
func DeadlinesOf(s *ServerConfig, tool string) Deadlines {
	if d, ok := s.Tools[tool]; ok && tool != "" {
		return d
	}
	return Deadlines{s.DefaultDeadline, s.MaxDeadline}
}

// LogLevel is s.LogLevel, parsed by Normalize: the level a legacy child
// is held at while no reader asks for more; 0 for the child's own.
func LogLevel(s *ServerConfig) mcpbridgev1.LoggingLevel { return s.logLevel }
