// Package configfile reads the YAML configuration file of `mcpbridge serve
// --config` into a bridge.Config (docs/operations.md, "The config file").
// Every error names the file, the line and the field.
package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	units "github.com/docker/go-units"
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
)

// File is the file's top level.
type File struct {
	// Listen is the address to serve gRPC on; the --listen flag, when
	// given, wins.
	Listen string `yaml:"listen"`
	// MetricsListen is where /metrics is served (docs/observability.md);
	// the --metrics-listen flag, when given, wins. Empty: no metrics.
	MetricsListen string `yaml:"metrics_listen"`
	// HTTPListen is where the gRPC API is also served over Connect and
	// gRPC-Web (docs/operations.md, "HTTP"); the --http-listen flag, when
	// given, wins. Empty: no HTTP listener.
	HTTPListen string `yaml:"http_listen"`
	// HTTPCORSOrigins are the browser origins allowed to call the HTTP
	// listener; --http-cors-origin, when given, wins. Empty: no CORS.
	HTTPCORSOrigins []string      `yaml:"http_cors_origins"`
	MaxMessageBytes int           `yaml:"max_message_bytes"`
	DefaultDeadline time.Duration `yaml:"default_deadline"`
	MaxDeadline     time.Duration `yaml:"max_deadline"`
	// Reflection is "auto" (default: on when listening on loopback), "on"
	// or "off".
	Reflection string `yaml:"reflection"`
	Auth       *Auth  `yaml:"auth"`
	Rules      []Rule `yaml:"rules"`
	Limits     Limits `yaml:"limits"`
	// Audit is where the audit log goes: a file path (appended to), or
	// "stderr"; empty: no audit log.
	Audit string `yaml:"audit"`
	// Sandbox is every server's sandbox unless a server declares its own
	// (docs/sandbox.md).
	Sandbox *Sandbox `yaml:"sandbox"`
	Servers []Server `yaml:"servers"`

	warnings []string
	// aggregates are the index in Servers of each of the configuration's
	// aggregates, for the location of their errors.
	aggregates []int
}

// Warnings are what in the file loads but may not mean what it says,
// each located like an Error: a rule that names no tools, resources or
// prompts grants none of them. The caller logs them.
func (f *File) Warnings() []string { return f.warnings }

// Limits bound each caller (docs/security.md, "Limits").
type Limits struct {
	Rate       float64 `yaml:"rate"`
	Burst      int     `yaml:"burst"`
	Concurrent int     `yaml:"concurrent"`
}

func (l Limits) bridge() bridge.Limits {
	return bridge.Limits{Rate: l.Rate, Burst: l.Burst, Concurrent: l.Concurrent}
}

// Auth is how callers authenticate (docs/security.md).
type Auth struct {
	APIKeys []APIKey `yaml:"api_keys"`
	JWT     *JWT     `yaml:"jwt"`
	// OAuth makes the bridge an OAuth resource server
	// (docs/authorization.md).
	OAuth *OAuth `yaml:"oauth"`
	// MTLS takes a verified client certificate's common name as the
	// principal (the listener needs --client-ca).
	MTLS bool `yaml:"mtls"`
}

// APIKey is a bearer key, stored as its SHA-256.
type APIKey struct {
	Principal string   `yaml:"principal"`
	SHA256    string   `yaml:"sha256"`
	Groups    []string `yaml:"groups"`
}

// JWT is how bearer JWTs are checked.
type JWT struct {
	JWKSURL        string        `yaml:"jwks_url"`
	JWKSFile       string        `yaml:"jwks_file"`
	CAFile         string        `yaml:"ca_file"` // a CA for jwks_url beyond the system's
	Issuer         string        `yaml:"issuer"`
	Audience       string        `yaml:"audience"`
	Leeway         time.Duration `yaml:"leeway"`
	PrincipalClaim string        `yaml:"principal_claim"`
	GroupsClaim    string        `yaml:"groups_claim"`
}

// OAuth is the bridge as an OAuth resource server: the authorization
// server's issuer, the bridge's resource identifier and what each scope
// grants.
type OAuth struct {
	Issuer         string        `yaml:"issuer"`
	Resource       string        `yaml:"resource"`
	Scopes         Scopes        `yaml:"scopes"`
	CAFile         string        `yaml:"ca_file"` // a CA for the issuer beyond the system's
	Leeway         time.Duration `yaml:"leeway"`
	PrincipalClaim string        `yaml:"principal_claim"`
	GroupsClaim    string        `yaml:"groups_claim"`
}

// Scopes are what each scope grants, in the file's order: a mapping of
// scope name to a ScopeGrant.
type Scopes []access.Scope

// ScopeGrant is what one scope grants, as a rule names it.
type ScopeGrant struct {
	Servers   []string `yaml:"servers"`
	Tools     []string `yaml:"tools"`
	Resources []string `yaml:"resources"`
	Prompts   []string `yaml:"prompts"`
}

// YAMLShape is the shape Scopes take in the file (for the docs' test of
// the keys): a mapping of names to grants, kept in order.
func (Scopes) YAMLShape() map[string]ScopeGrant { return nil }

// UnmarshalYAML reads the scopes' mapping in order.
func (sc *Scopes) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: scopes must be a mapping of scope name to what it grants", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		// Unknown keys refused, as KnownFields does for the rest of the
		// file (a node's Decode does not).
		grant := n.Content[i+1].Content
		for j := 0; j < len(grant); j += 2 {
			if k := grant[j]; !slices.Contains([]string{"servers", "tools", "resources", "prompts"}, k.Value) {
				return fmt.Errorf("line %d: field %s not found in a scope (servers, tools, resources, prompts)", k.Line, k.Value)
			}
		}
		var g ScopeGrant
		if err := n.Content[i+1].Decode(&g); err != nil {
			return err
		}
		*sc = append(*sc, access.Scope{Name: n.Content[i].Value, Servers: g.Servers, Tools: g.Tools, Resources: g.Resources, Prompts: g.Prompts})
	}
	return nil
}

// Rule allows callers to use servers, tools, resources and prompts
// (access.Rule): a list left out grants none of its kind, and the file
// loads with a warning that says so.
type Rule struct {
	Principals []string          `yaml:"principals"`
	Groups     []string          `yaml:"groups"`
	Claims     map[string]string `yaml:"claims"`
	Scopes     []string          `yaml:"scopes"`
	Servers    []string          `yaml:"servers"`
	Tools      []string          `yaml:"tools"`
	Resources  []string          `yaml:"resources"`
	Prompts    []string          `yaml:"prompts"`
}

// AccessConfig is the file's authentication, for access.New; the JWKS
// HTTP client is the caller's to set (ca_file).
func (f *File) AccessConfig() access.Config {
	var c access.Config
	if f.Auth == nil {
		return c
	}
	for _, k := range f.Auth.APIKeys {
		c.APIKeys = append(c.APIKeys, access.APIKey{Principal: k.Principal, SHA256: k.SHA256, Groups: k.Groups})
	}
	if j := f.Auth.JWT; j != nil {
		c.JWT = &access.JWTConfig{JWKSURL: j.JWKSURL, JWKSFile: j.JWKSFile, Issuer: j.Issuer, Audience: j.Audience,
			Leeway: j.Leeway, PrincipalClaim: j.PrincipalClaim, GroupsClaim: j.GroupsClaim}
	}
	if o := f.Auth.OAuth; o != nil {
		c.OAuth = &access.OAuthConfig{Issuer: o.Issuer, Resource: o.Resource, Scopes: o.Scopes, Leeway: o.Leeway,
			PrincipalClaim: o.PrincipalClaim, GroupsClaim: o.GroupsClaim}
	}
	c.MTLS = f.Auth.MTLS
	return c
}

// Server is one fronted server.
type Server struct {
	Name                 string             `yaml:"name"`
	Command              []string           `yaml:"command"`
	Dir                  string             `yaml:"dir"`
	Env                  map[string]*string `yaml:"env"`
	InheritEnv           bool               `yaml:"inherit_env"`
	Protocol             string             `yaml:"protocol"`
	HandshakeTimeout     time.Duration      `yaml:"handshake_timeout"`
	DefaultDeadline      time.Duration      `yaml:"default_deadline"`
	MaxDeadline          time.Duration      `yaml:"max_deadline"`
	Tools                map[string]Tool    `yaml:"tools"`
	MaxRequestBytes      int                `yaml:"max_request_bytes"`
	ClientCapabilities   map[string]any     `yaml:"client_capabilities"`
	Roots                []map[string]any   `yaml:"roots"`
	LogLevel             string             `yaml:"log_level"`
	ExposeStderr         bool               `yaml:"expose_stderr"`
	ServerRequestTimeout time.Duration      `yaml:"server_request_timeout"`
	Reaper               *bool              `yaml:"reaper"`
	Restart              Restart            `yaml:"restart"`
	Limits               Limits             `yaml:"limits"`
	AuditPayloads        bool               `yaml:"audit_payloads"`
	Policy               string             `yaml:"policy"`
	Tunnel               string             `yaml:"tunnel"`
	Pool                 Pool               `yaml:"pool"`
	Session              Session            `yaml:"session"`
	Tasks                Tasks              `yaml:"tasks"`
	// Sandbox runs the server's children inside fences (docs/sandbox.md);
	// it replaces the file's sandbox for this server.
	Sandbox *Sandbox `yaml:"sandbox"`
	// Aggregate, instead of a command, makes the server an aggregate of
	// other servers of the file (docs/aggregation.md).
	Aggregate *Aggregate `yaml:"aggregate"`
}

// Aggregate is an aggregated server: the servers it merges and how.
type Aggregate struct {
	Servers   []string        `yaml:"servers"`
	Conflicts string          `yaml:"conflicts"`
	Prefix    string          `yaml:"prefix"`
	Tools     AggregateFilter `yaml:"tools"`
	Prompts   AggregateFilter `yaml:"prompts"`
}

// AggregateFilter picks and renames an aggregate's tools or prompts, by
// the names the aggregate gives them.
type AggregateFilter struct {
	Include   []string                     `yaml:"include"`
	Exclude   []string                     `yaml:"exclude"`
	Overrides map[string]AggregateOverride `yaml:"overrides"`
}

// AggregateOverride renames or redescribes one tool or prompt.
type AggregateOverride struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// Tool is a tool's own deadlines.
type Tool struct {
	DefaultDeadline time.Duration `yaml:"default_deadline"`
	MaxDeadline     time.Duration `yaml:"max_deadline"`
}

// Restart is the restart policy of a server's children.
type Restart struct {
	MaxRestarts int           `yaml:"max_restarts"`
	MaxBackoff  time.Duration `yaml:"max_backoff"`
	Grace       time.Duration `yaml:"grace"`
}

// Pool configures the pool policy.
type Pool struct {
	Min         int           `yaml:"min"`
	Max         int           `yaml:"max"`
	IdleTimeout time.Duration `yaml:"idle_timeout"`
}

// Sandbox is a sandbox profile (package stdio/sandbox): every key left
// out keeps its hardened default. disabled: true runs the server without
// one, where the file's default would give it one.
type Sandbox struct {
	Disabled      bool              `yaml:"disabled"`
	Filesystem    SandboxFilesystem `yaml:"filesystem"`
	Network       string            `yaml:"network"`
	LoopbackPorts []int             `yaml:"loopback_ports"`
	Limits        SandboxLimits     `yaml:"limits"`
}

// SandboxFilesystem are the paths a sandboxed child may read and write,
// beyond the defaults (docs/sandbox.md).
type SandboxFilesystem struct {
	Read  []string `yaml:"read"`
	Write []string `yaml:"write"`
}

// SandboxLimits bound a sandboxed child; a limit left out is the
// default, 0 is none.
type SandboxLimits struct {
	Memory     *Size `yaml:"memory"`
	Processes  *int  `yaml:"processes"`
	OpenFiles  *int  `yaml:"open_files"`
	CPUSeconds *int  `yaml:"cpu_seconds"`
}

// Size is a number of bytes, written as a number or with a binary unit
// (docker/go-units' RAMInBytes): 512MiB, 512M, 2GiB, 64k.
type Size int64

// YAMLShape is the shape of a Size in the file (for the docs' test).
func (Size) YAMLShape() string { return "" }

// UnmarshalYAML reads a size with its unit.
func (sz *Size) UnmarshalYAML(n *yaml.Node) error {
	v, err := units.RAMInBytes(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a size (a whole number of bytes, or with a binary unit: 512MiB, 512M, 2GiB)", n.Line, n.Value)
	}
	*sz = Size(v)
	return nil
}

// Defaults of a sandbox's limits (docs/sandbox.md).
const (
	defaultSandboxMemory    = 2 << 30
	defaultSandboxProcesses = 256
	defaultSandboxOpenFiles = 1024
)

// profile is the sandbox profile the file declares.
func (sb *Sandbox) profile() (*bridge.SandboxProfile, error) {
	if sb == nil || sb.Disabled {
		return nil, nil
	}
	p := &bridge.SandboxProfile{Read: sb.Filesystem.Read, Write: sb.Filesystem.Write,
		Limits: bridge.SandboxLimits{Memory: defaultSandboxMemory, Processes: defaultSandboxProcesses, OpenFiles: defaultSandboxOpenFiles}}
	switch sb.Network {
	case "", "none":
		p.Network = bridge.SandboxNetworkNone
	case "loopback":
		p.Network, p.LoopbackPorts = bridge.SandboxNetworkLoopback, sb.LoopbackPorts
	case "host":
		p.Network = bridge.SandboxNetworkHost
	default:
		return nil, fmt.Errorf("network %q is not none, loopback or host", sb.Network)
	}
	for _, port := range sb.LoopbackPorts {
		if p.Network != bridge.SandboxNetworkLoopback || port < 1 || port > 65535 {
			return nil, fmt.Errorf("loopback_ports: %d: ports are 1 to 65535, with network: loopback", port)
		}
	}
	if l := sb.Limits.Memory; l != nil {
		p.Limits.Memory = int64(*l)
	}
	for _, l := range []struct {
		v   *int
		dst *int
	}{{sb.Limits.Processes, &p.Limits.Processes}, {sb.Limits.OpenFiles, &p.Limits.OpenFiles}, {sb.Limits.CPUSeconds, &p.Limits.CPUSeconds}} {
		if l.v != nil {
			if *l.v < 0 {
				return nil, fmt.Errorf("limits must not be negative")
			}
			*l.dst = *l.v
		}
	}
	return p, nil
}

// Tasks bound a server's live MCP tasks.
type Tasks struct {
	Max             int `yaml:"max"`
	MaxPerPrincipal int `yaml:"max_per_principal"`
}

// Session configures the session policy.
type Session struct {
	IdleTimeout     time.Duration     `yaml:"idle_timeout"`
	Max             int               `yaml:"max"`
	MaxPerPrincipal int               `yaml:"max_per_principal"`
	EnvFromMetadata map[string]string `yaml:"env_from_metadata"`
}

// Error is a problem in the file, located.
type Error struct {
	File  string
	Line  int    // 0 when unknown
	Field string // e.g. servers[1].pool.min; "" for the whole file
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads and checks the file at path and returns the bridge
// configuration it describes (Logger unset) and the file itself. Beyond
// Parse, it checks that every server's command can be run here
// (bridge.Config.CheckCommands): a command that is not there is a mistake
// in the file, refused at start and at a reload, not a child to restart.
func Load(path string) (bridge.Config, *File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return bridge.Config{}, nil, &Error{File: path, Msg: err.Error()}
	}
	cfg, f, err := Parse(path, data)
	if err != nil {
		return cfg, f, err
	}
	if err := cfg.CheckCommands(); err != nil {
		var ce *bridge.ConfigError
		if !errors.As(err, &ce) {
			return bridge.Config{}, nil, &Error{File: path, Msg: err.Error()}
		}
		var root yaml.Node
		_ = yaml.Unmarshal(data, &root) // Parse read it
		loc := locator{path: path, root: root.Content[0]}
		return bridge.Config{}, nil, loc.err(ce.Msg, f.keys(ce.Path)...)
	}
	return cfg, f, nil
}

// yamlLine finds "line N: message" in a yaml error.
var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlType is the Go type yaml names in its errors: not the user's concern.
var yamlType = regexp.MustCompile(` in type [\w.]+`)

// Parse is Load for a file's contents; path only names it in errors.
func Parse(path string, data []byte) (bridge.Config, *File, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return bridge.Config{}, nil, yamlError(path, err)
	}
	if len(root.Content) == 0 {
		return bridge.Config{}, nil, &Error{File: path, Msg: "the file is empty; it needs a servers list"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // a misspelt key is an error, not a silent default
	var f File
	if err := dec.Decode(&f); err != nil {
		return bridge.Config{}, nil, yamlError(path, err)
	}
	loc := locator{path: path, root: root.Content[0]}
	cfg, err := f.build(&loc)
	if err != nil {
		return bridge.Config{}, nil, err
	}
	// The bridge's own checks, the one place where settings are checked:
	// this layer only finds the line of the field they name. The rules
	// are checked above, since their authenticator is built by the caller.
	check := cfg
	check.Rules = nil
	if err := check.Validate(); err != nil {
		var ce *bridge.ConfigError
		if !errors.As(err, &ce) {
			return bridge.Config{}, nil, &Error{File: path, Msg: strings.TrimPrefix(err.Error(), "bridge: ")}
		}
		return bridge.Config{}, nil, loc.err(ce.Msg, f.keys(ce.Path)...)
	}
	return cfg, &f, nil
}

// fileKeys are the file's spelling of the Go fields whose key is not
// simply the field's name in snake case ("" drops the field: the file
// has no key of its own for it).
var fileKeys = map[string][]string{
	"Args": {"command"}, "Versions": {"protocol"}, "Capabilities": {"client_capabilities"}, "DisableReaper": {"reaper"},
	"MaxRestarts": {"restart", "max_restarts"}, "MaxRestartBackoff": {"restart", "max_backoff"},
	"RestartBackoff": {"restart"}, "Grace": {"restart", "grace"},
}

// goPath splits a bridge.ConfigError's Path into its parts: field names,
// indices ([2]) and map keys (["x"]).
var goPath = regexp.MustCompile(`([A-Za-z]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]`)

// keys maps a Go field path of bridge.Config to the file's keys: the file
// has the same shape, spelt in snake case, but for the fields of fileKeys,
// an env list that is a map, and a tool's deadlines under their own keys.
func (f *File) keys(path string) []any {
	if rest, ok := strings.CutPrefix(path, "Aggregates["); ok {
		n, field, _ := strings.Cut(rest, "]")
		i, _ := strconv.Atoi(n)
		if i >= len(f.aggregates) {
			return []any{"servers"}
		}
		out := []any{"servers", f.aggregates[i]}
		field = strings.TrimPrefix(field, ".")
		if field == "Name" {
			return append(out, "name")
		}
		out = append(out, "aggregate")
		if m, ok := strings.CutPrefix(field, "Members"); ok {
			out = append(out, "servers")
			if j, err := strconv.Atoi(strings.Trim(m, "[]")); err == nil {
				out = append(out, j)
			}
			return out
		}
		for _, part := range strings.Split(field, ".") {
			if part != "" {
				out = append(out, snake(part))
			}
		}
		return out
	}
	var out []any
	server := -1
	parts := goPath.FindAllStringSubmatch(path, -1)
	for n, m := range parts {
		switch {
		case m[2] != "":
			i, _ := strconv.Atoi(m[2])
			prev := ""
			if n > 0 {
				prev = parts[n-1][1]
			}
			switch {
			case prev == "Servers":
				server = i
				out = append(out, i)
			case prev == "Env" && server >= 0 && server < len(f.Servers):
				if names := slices.Sorted(maps.Keys(f.Servers[server].Env)); i < len(names) {
					out = append(out, names[i])
				}
			case prev == "Versions":
			default:
				out = append(out, i)
			}
		case m[3] != "":
			key, _ := strconv.Unquote(m[3])
			out = append(out, key)
		case server >= 0 && len(fileKeys[m[1]]) > 0:
			for _, k := range fileKeys[m[1]] {
				out = append(out, k)
			}
		case n > 0 && parts[n-1][3] != "" && (m[1] == "Default" || m[1] == "Max"): // Tools["x"].Max
			out = append(out, snake(m[1])+"_deadline")
		default:
			out = append(out, snake(m[1]))
		}
	}
	return out
}

// snake is a Go field name in snake case: MaxPerPrincipal, max_per_principal.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// yamlError locates a YAML syntax or type error (the first, when there
// are several).
func yamlError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: path, Msg: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = yamlType.ReplaceAllString(m[2], "")
	}
	return e
}

// build checks what only the file knows (names, commands, protocols,
// policies) and converts it.
func (f *File) build(loc *locator) (bridge.Config, error) {
	cfg := bridge.Config{MaxMessageBytes: f.MaxMessageBytes, DefaultDeadline: f.DefaultDeadline, MaxDeadline: f.MaxDeadline, Limits: f.Limits.bridge()}
	switch f.Reflection {
	case "", "auto", "on", "off":
	default:
		return cfg, loc.err(fmt.Sprintf("%q is not auto, on or off", f.Reflection), "reflection")
	}
	for i, r := range f.Rules {
		cfg.Rules = append(cfg.Rules, access.Rule{Principals: r.Principals, Groups: r.Groups, Claims: r.Claims, Scopes: r.Scopes,
			Servers: r.Servers, Tools: r.Tools, Resources: r.Resources, Prompts: r.Prompts})
		if err := cfg.Rules[i:].Check(); err != nil {
			return cfg, loc.err(strings.TrimPrefix(strings.Replace(err.Error(), "rule 0", "the rule", 1), "access: "), "rules", i)
		}
		// A kind left out grants nothing of it; an explicit [] says so
		// on purpose.
		var unnamed []string
		for _, kind := range []string{"tools", "resources", "prompts"} {
			if n, _ := loc.node("rules", i, kind); n == nil || n.Kind != yaml.SequenceNode {
				unnamed = append(unnamed, kind)
			}
		}
		if len(unnamed) > 0 {
			f.warnings = append(f.warnings, loc.err(fmt.Sprintf("the rule names no %s: it grants none of them (write %s: [\"*\"] to grant every one)",
				orList(unnamed), unnamed[0]), "rules", i).Error())
		}
	}
	if len(f.Rules) > 0 && (f.Auth == nil || len(f.Auth.APIKeys) == 0 && f.Auth.JWT == nil && f.Auth.OAuth == nil && !f.Auth.MTLS) {
		return cfg, loc.err("rules need an auth section: api_keys, jwt, oauth or mtls", "rules")
	}
	if f.Auth != nil {
		for i, k := range f.Auth.APIKeys {
			if k.Principal == "" || len(k.SHA256) != 64 {
				return cfg, loc.err("an API key needs a principal and the key's sha256 (64 hex digits: printf %s KEY | sha256sum)", "auth", "api_keys", i)
			}
		}
		if j := f.Auth.JWT; j != nil && ((j.JWKSURL == "") == (j.JWKSFile == "") || j.Issuer == "" || j.Audience == "") {
			return cfg, loc.err("jwt needs one of jwks_url and jwks_file, an issuer and an audience", "auth", "jwt")
		}
		if o := f.Auth.OAuth; o != nil {
			switch {
			case o.Issuer == "" || o.Resource == "":
				return cfg, loc.err("oauth needs an issuer and a resource (this bridge's resource identifier)", "auth", "oauth")
			case len(o.Scopes) == 0:
				return cfg, loc.err("oauth needs scopes: what each scope grants (servers, tools, resources, prompts)", "auth", "oauth")
			}
			for _, sc := range o.Scopes {
				r := access.Rules{{Scopes: []string{sc.Name}, Servers: sc.Servers, Tools: sc.Tools, Resources: sc.Resources, Prompts: sc.Prompts}}
				if err := r.Check(); err != nil {
					return cfg, loc.err(fmt.Sprintf("scope %q: %s", sc.Name, strings.TrimPrefix(strings.Replace(err.Error(), "rule 0 ", "", 1), "access: ")), "auth", "oauth", "scopes")
				}
			}
		}
	}
	if len(f.Servers) == 0 {
		return cfg, loc.err("at least one server is required", "servers")
	}
	for i, s := range f.Servers {
		at := func(msg string, path ...any) error { return loc.err(msg, append([]any{"servers", i}, path...)...) }
		if s.Name == "" && len(f.Servers) > 1 {
			return cfg, at("every server needs a name when there are several", "name")
		}
		if s.Aggregate != nil {
			a, err := s.aggregate(at)
			if err != nil {
				return cfg, err
			}
			cfg.Aggregates = append(cfg.Aggregates, a)
			f.aggregates = append(f.aggregates, i)
			continue
		}
		sc := bridge.ServerConfig{
			Name: s.Name, Dir: s.Dir, InheritEnv: s.InheritEnv,
			HandshakeTimeout: s.HandshakeTimeout, DefaultDeadline: s.DefaultDeadline, MaxDeadline: s.MaxDeadline,
			MaxRequestBytes: s.MaxRequestBytes, LogLevel: s.LogLevel, ExposeStderr: s.ExposeStderr,
			ServerRequestTimeout: s.ServerRequestTimeout, Limits: s.Limits.bridge(), AuditPayloads: s.AuditPayloads,
			MaxRestarts: s.Restart.MaxRestarts, MaxRestartBackoff: s.Restart.MaxBackoff, Grace: s.Restart.Grace,
			Pool:    bridge.PoolConfig{Min: s.Pool.Min, Max: s.Pool.Max, IdleTimeout: s.Pool.IdleTimeout},
			Session: bridge.SessionConfig{IdleTimeout: s.Session.IdleTimeout, Max: s.Session.Max, MaxPerPrincipal: s.Session.MaxPerPrincipal, EnvFromMetadata: s.Session.EnvFromMetadata},
			Tasks:   bridge.TaskCaps{Max: s.Tasks.Max, MaxPerPrincipal: s.Tasks.MaxPerPrincipal},
		}
		if len(s.Command) > 0 {
			sc.Command, sc.Args = s.Command[0], s.Command[1:]
		}
		sandbox := f.Sandbox
		if s.Sandbox != nil {
			sandbox = s.Sandbox
		}
		profile, err := sandbox.profile()
		if err != nil {
			return cfg, at(err.Error(), "sandbox")
		}
		sc.Sandbox = profile
		if s.Reaper != nil {
			sc.DisableReaper = !*s.Reaper
		}
		for _, name := range slices.Sorted(maps.Keys(s.Env)) {
			if v := s.Env[name]; v == nil {
				sc.Env = append(sc.Env, bridge.EnvVar{Name: name, Unset: true})
			} else {
				sc.Env = append(sc.Env, bridge.EnvVar{Name: name, Value: *v})
			}
		}
		switch {
		case s.Protocol == "" || s.Protocol == "auto":
		case protocol.Supported(s.Protocol):
			sc.Versions = []string{s.Protocol}
		default:
			return cfg, at(fmt.Sprintf("%q is not auto or one of %s", s.Protocol, strings.Join(protocol.Versions, ", ")), "protocol")
		}
		if s.Policy != "" {
			p, err := bridge.ParsePolicy(s.Policy)
			if err != nil {
				return cfg, at(err.Error(), "policy")
			}
			sc.Policy = p
		}
		if s.Tunnel != "" {
			m, err := bridge.ParseTunnelMode(s.Tunnel)
			if err != nil {
				return cfg, at(err.Error(), "tunnel")
			}
			sc.Tunnel = m
		}
		if len(s.Tools) > 0 {
			sc.Tools = map[string]bridge.Deadlines{}
			for name, t := range s.Tools {
				sc.Tools[name] = bridge.Deadlines{Default: t.DefaultDeadline, Max: t.MaxDeadline}
			}
		}
		if s.ClientCapabilities != nil {
			caps, err := json.Marshal(s.ClientCapabilities)
			if err != nil {
				return cfg, at("not representable as JSON: "+err.Error(), "client_capabilities")
			}
			sc.Capabilities = caps
		}
		if loc.has("servers", i, "roots") {
			roots := s.Roots
			if roots == nil {
				roots = []map[string]any{}
			}
			raw, err := json.Marshal(roots)
			if err != nil {
				return cfg, at("not representable as JSON: "+err.Error(), "roots")
			}
			sc.Roots = raw
		}
		cfg.Servers = append(cfg.Servers, sc)
	}
	return cfg, nil
}

// aggregate is the server's aggregate section as the bridge's
// configuration; an aggregate has no command and none of a child's keys.
func (s *Server) aggregate(at func(msg string, path ...any) error) (bridge.AggregateConfig, error) {
	a := s.Aggregate
	if s.Name == "" {
		return bridge.AggregateConfig{}, at("an aggregate needs a name", "name")
	}
	var own Server
	own.Name, own.Aggregate = s.Name, s.Aggregate
	if !reflect.DeepEqual(own, *s) {
		return bridge.AggregateConfig{}, at("an aggregate has no command and none of a command's settings: only name and aggregate", "aggregate")
	}
	conflicts, err := bridge.ParseConflicts(a.Conflicts)
	if err != nil {
		return bridge.AggregateConfig{}, at(err.Error(), "aggregate", "conflicts")
	}
	filter := func(f AggregateFilter) bridge.AggregateFilter {
		out := bridge.AggregateFilter{Include: f.Include, Exclude: f.Exclude}
		for name, o := range f.Overrides {
			if out.Overrides == nil {
				out.Overrides = map[string]bridge.AggregateOverride{}
			}
			out.Overrides[name] = bridge.AggregateOverride{Name: o.Name, Description: o.Description}
		}
		return out
	}
	return bridge.AggregateConfig{Name: s.Name, Members: a.Servers, Conflicts: conflicts, Prefix: a.Prefix,
		Tools: filter(a.Tools), Prompts: filter(a.Prompts)}, nil
}

// orList is "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// locator finds the line of a field in the parsed document.
type locator struct {
	path string
	root *yaml.Node
}

// node returns the node at path (keys and indices) and the line of its
// deepest existing part.
func (l *locator) node(path ...any) (*yaml.Node, int) {
	n, line := l.root, l.root.Line
	for _, p := range path {
		var next *yaml.Node
		switch k := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next, line = n.Content[i+1], n.Content[i].Line
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
				line = next.Line
			}
		}
		if next == nil {
			return nil, line
		}
		n = next
	}
	return n, line
}

func (l *locator) has(path ...any) bool {
	n, _ := l.node(path...)
	return n != nil
}

// err is a located Error for the field at path.
func (l *locator) err(msg string, path ...any) error {
	_, line := l.node(path...)
	var field strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if field.Len() > 0 {
				field.WriteByte('.')
			}
			field.WriteString(k)
		case int:
			fmt.Fprintf(&field, "[%d]", k)
		}
	}
	return &Error{File: l.path, Line: line, Field: field.String(), Msg: msg}
}
