package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Defaults of Config.
const (
	DefaultPageSize        = 100
	DefaultRequestStateTTL = 10 * time.Minute
)

// Config configures a [Server]. Its zero value means the defaults,
// filled in by [NewServer].
type Config struct {
	// Versions are the protocol versions served, in preference order
	// (default: all three, 2026-07-28 preferred, as
	// [github.com/mcpbridge/mcpbridge/stdio.DefaultVersions] returns them;
	// the version constants are that package's too). 2026-07-28 enables
	// the stateless era; 2025-11-25 and 2025-06-18 enable initialize. With
	// only 2026-07-28, initialize is answered -32022; with only legacy
	// versions, server/discover is.
	Versions []string
	// Instructions, if not empty, tells clients how to use the server; it
	// goes in the initialize and server/discover results.
	Instructions string
	// PageSize is the most items one tools/list, prompts/list,
	// resources/list or resources/templates/list page holds (default 100).
	PageSize int
	// CacheTTL and CacheScope are the ttlMs and cacheScope hints of
	// 2026-07-28 list and read results (docs/protocol.md, "Cache hints"):
	// default 0 (stale at once) and "private". CacheScope may be "public"
	// when no result depends on who asks. server/discover always says 0 and
	// "private".
	CacheTTL   time.Duration
	CacheScope string
	// RequestStateTTL is how long an input_required result's requestState
	// stays valid (default 10 minutes).
	RequestStateTTL time.Duration
	// RequestStateKey, if set, is the secret that protects requestState
	// and pagination cursors; servers that share it accept each other's
	// (several processes behind one endpoint). Default: a random key per
	// Server, so nothing survives a restart.
	RequestStateKey []byte
	// Logger receives what the runtime cannot send to the client, such as
	// notifications that failed (default: slog text on os.Stderr). It must
	// never write to the protocol output.
	Logger *slog.Logger
	// MaxTasks is the most tasks one connection keeps, running or
	// finished and not yet expired (default 256; docs/server.md, "Tasks");
	// a task-optional tool beyond it runs in the request, a task-required
	// one is refused with a retryable -32603.
	MaxTasks int
	// TaskTTL is how long a task lives from its creation (default 1 h): it
	// is then cancelled if it still runs, and forgotten. A 2025-11-25
	// client may ask for less.
	TaskTTL time.Duration
	// TaskPollInterval is the poll interval a task suggests (default 1 s).
	TaskPollInterval time.Duration
	// TracerProvider, if set, traces every request the runtime serves with
	// an OpenTelemetry server span, whose parent is the trace context the
	// request's params._meta carries, and whose context the handler gets
	// (see the package documentation, "Tracing"). The default, nil, traces
	// nothing and costs nothing.
	TracerProvider trace.TracerProvider
}

// Server is an MCP server: a registry of tools, prompts, resources and
// completions, and the [server.Runtime] that serves them in every enabled
// protocol era. A program serves it on stdin and stdout with [Server.Run]
// (or [server.Run], to configure the transport); [server.Serve] serves it
// over any reader and writer. One Server may serve any number of
// connections at once.
//
// Registration and change notification are safe for concurrent use, at
// any time: a change made while clients are connected is announced to them
// (notifications/*/list_changed to legacy sessions, and to 2026-07-28
// subscriptions/listen streams that asked for it).
type Server struct {
	info     json.RawMessage // the Implementation, compact
	cfg      Config
	versions []string // enabled, in preference order
	modern   []string // the enabled 2026-07-28 versions
	legacy   []string // the enabled 2025 versions
	keys     keys
	log      *slog.Logger
	tracer   trace.Tracer // nil without Config.TracerProvider

	mu          sync.Mutex
	tools       map[string]*toolEntry
	prompts     map[string]*promptEntry
	resources   map[string]*resourceEntry
	templates   []*templateEntry
	completions map[Reference]CompletionHandler
	has         features // what has ever been registered: advertised capabilities
	listeners   map[*listener]struct{}
	sessions    map[*session]struct{}
}

// features says which server capabilities are advertised. A kind, once
// registered, stays advertised: capabilities must not shrink under a
// client that read them.
type features struct {
	tools, prompts, resources, completions bool
	tasks                                  bool // a tool may run as a task
}

// NewServer returns a Server that introduces itself as info. It fails
// when cfg is invalid (an unknown or repeated version in Versions, a
// negative size or duration, a CacheScope other than "public" or
// "private") or info cannot be marshalled.
func NewServer(info Implementation, cfg Config) (*Server, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	raw, err := rawjson.Marshal(info)
	if err != nil {
		return nil, fmt.Errorf("mcp: NewServer: the Implementation cannot be marshalled: %w", err)
	}
	s := &Server{
		info:        raw,
		cfg:         cfg,
		versions:    cfg.Versions,
		log:         cfg.Logger,
		tools:       make(map[string]*toolEntry),
		prompts:     make(map[string]*promptEntry),
		resources:   make(map[string]*resourceEntry),
		completions: make(map[Reference]CompletionHandler),
		listeners:   make(map[*listener]struct{}),
		sessions:    make(map[*session]struct{}),
	}
	for _, v := range cfg.Versions {
		if protocol.Modern(v) {
			s.modern = append(s.modern, v)
		} else {
			s.legacy = append(s.legacy, v)
		}
	}
	secret := cfg.RequestStateKey
	if secret == nil {
		secret = make([]byte, 32)
		rand.Read(secret) // never fails (crypto/rand)
	}
	s.keys = newKeys(secret)
	if cfg.TracerProvider != nil {
		s.tracer = cfg.TracerProvider.Tracer(tracerName)
	}
	return s, nil
}

func (cfg Config) normalize() (Config, error) {
	if len(cfg.Versions) == 0 {
		cfg.Versions = protocol.Versions
	}
	seen := map[string]bool{}
	for _, v := range cfg.Versions {
		if !protocol.Supported(v) || seen[v] {
			return cfg, fmt.Errorf("mcp: invalid Config.Versions %q: want distinct versions among %q", cfg.Versions, protocol.Versions)
		}
		seen[v] = true
	}
	cfg.Versions = slices.Clone(cfg.Versions)
	switch {
	case cfg.PageSize < 0:
		return cfg, errors.New("mcp: invalid Config: PageSize is negative")
	case cfg.CacheTTL < 0:
		return cfg, errors.New("mcp: invalid Config: CacheTTL is negative")
	case cfg.RequestStateTTL < 0:
		return cfg, errors.New("mcp: invalid Config: RequestStateTTL is negative")
	case cfg.MaxTasks < 0 || cfg.TaskTTL < 0 || cfg.TaskPollInterval < 0:
		return cfg, errors.New("mcp: invalid Config: MaxTasks, TaskTTL and TaskPollInterval must not be negative")
	case cfg.CacheScope != "" && cfg.CacheScope != "public" && cfg.CacheScope != "private":
		return cfg, fmt.Errorf("mcp: invalid Config: CacheScope %q", cfg.CacheScope)
	}
	if cfg.PageSize == 0 {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.CacheScope == "" {
		cfg.CacheScope = "private"
	}
	if cfg.RequestStateTTL == 0 {
		cfg.RequestStateTTL = DefaultRequestStateTTL
	}
	if cfg.MaxTasks == 0 {
		cfg.MaxTasks = DefaultMaxTasks
	}
	if cfg.TaskTTL == 0 {
		cfg.TaskTTL = DefaultTaskTTL
	}
	if cfg.TaskPollInterval == 0 {
		cfg.TaskPollInterval = DefaultTaskPollInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return cfg, nil
}

// features returns what is advertised now.
func (s *Server) features() features {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.has
}

// NewSession implements [server.Runtime]: [server.Serve] and [server.Run]
// call it to start the state of one connection; a program has no other use
// for it. A legacy session keeps what initialize declared, its log level
// and its resource subscriptions; a 2026-07-28 client needs none of it,
// since every request carries its own.
func (s *Server) NewSession(peer seam.Peer) seam.Session {
	ss := &session{srv: s, peer: peer, done: make(chan struct{})}
	ss.queue.init()
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	return ss
}

// session is one connection: a seam.Session.
type session struct {
	srv  *Server
	peer seam.Peer

	mu         sync.Mutex
	caps       ClientCapabilities // from the last initialize
	clientInfo json.RawMessage
	level      LoggingLevel        // from logging/setLevel; "" sends nothing
	subs       map[string]struct{} // resources/subscribe URIs
	active     bool                // initialize answered: unsolicited notifications may flow
	closed     bool                // Close was called: no pump may start

	// The pump sends legacy unsolicited notifications through the Peer. It
	// starts at the first initialize; Close stops it and waits.
	queue eventQueue
	stop  context.CancelFunc
	done  chan struct{}

	tasks taskStore // the tasks this connection created: tasks.go
}

func (ss *session) legacyClient() (ClientCapabilities, json.RawMessage) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.caps, ss.clientInfo
}

// Handle implements seam.Session: it classifies the request's era,
// validates it and dispatches it, under a server span when the Server
// traces (trace.go).
func (ss *session) Handle(ctx context.Context, sreq *seam.Request) (json.RawMessage, error) {
	if ss.srv.tracer != nil {
		return ss.traceHandle(ctx, sreq)
	}
	out, _, err := ss.handle(ctx, sreq)
	return out, err
}

// handle is Handle's work. It also returns the classified call, nil when
// the request was refused before it was classified.
func (ss *session) handle(ctx context.Context, sreq *seam.Request) (json.RawMessage, *call, error) {
	c, bare, rerr := ss.classify(sreq)
	if rerr != nil {
		return nil, nil, rerr
	}
	if bare {
		return json.RawMessage(`{}`), c, nil
	}
	h, rerr := ss.srv.route(c)
	if rerr != nil {
		return nil, c, rerr
	}
	r, err := h(ctx, c)
	if err != nil {
		return nil, c, err
	}
	out, err := ss.srv.finish(c, r)
	return out, c, err
}

// handler serves one method of a classified request.
type handler func(ctx context.Context, c *call) (*reply, error)

// route finds the handler of c's method, refusing methods whose server
// capability is not advertised with -32601 (docs/protocol.md,
// "Error codes").
func (s *Server) route(c *call) (handler, *jsonrpc.Error) {
	f := s.features()
	var need bool
	var h handler
	switch c.method {
	case "initialize":
		need, h = true, s.initialize
	case "ping":
		need, h = true, func(context.Context, *call) (*reply, error) { return &reply{body: json.RawMessage(`{}`)}, nil }
	case "server/discover":
		need, h = true, s.discover
	case "logging/setLevel":
		need, h = true, s.setLevel
	case "tools/list":
		need, h = f.tools, s.listTools
	case "tools/call":
		need, h = f.tools, s.callTool
	case "prompts/list":
		need, h = f.prompts, s.listPrompts
	case "prompts/get":
		need, h = f.prompts, s.getPrompt
	case "resources/list":
		need, h = f.resources, s.listResources
	case "resources/templates/list":
		need, h = f.resources, s.listTemplates
	case "resources/read":
		need, h = f.resources, s.readResource
	case "resources/subscribe":
		need, h = f.resources, s.subscribe
	case "resources/unsubscribe":
		need, h = f.resources, s.unsubscribe
	case "completion/complete":
		need, h = f.completions, s.complete
	case "tasks/get":
		need, h = f.tasks, s.getTask
	case "tasks/cancel":
		need, h = f.tasks, s.cancelTask
	case "tasks/update":
		need, h = f.tasks && c.modern, s.updateTask
	case "tasks/result":
		need, h = f.tasks && !c.modern, s.taskResult
	case "tasks/list":
		need, h = f.tasks && !c.modern, s.listTasks
	}
	if !need {
		return nil, methodNotFound(c.method)
	}
	return h, nil
}

// reply is what a method handler produces: the body of its result, which
// finish stamps for the request's era.
type reply struct {
	body json.RawMessage // a JSON object without _meta, resultType or cache hints
	meta json.RawMessage // the result's own _meta, or nil
	// cacheable results get ttlMs and cacheScope on 2026-07-28
	// (docs/protocol.md, "Cache hints"); discover marks itself with fixed
	// hints instead.
	cacheable bool
	discover  bool
	// inputRequired makes the 2026-07-28 resultType "input_required".
	inputRequired bool
	// resultType, when set, is the 2026-07-28 resultType ("task").
	resultType string
}

// finish stamps a reply (docs/protocol.md, "Result stamping"): on
// 2026-07-28 resultType first, the body, the cache hints, and _meta with
// serverInfo; on legacy connections the body and its own _meta only.
func (s *Server) finish(c *call, r *reply) (json.RawMessage, error) {
	body := r.body
	if len(body) < 2 || body[0] != '{' {
		return nil, errors.New("mcp: reply body is not a JSON object")
	}
	members := body[1 : len(body)-1]
	out := make([]byte, 0, len(body)+len(s.info)+128)
	out = append(out, '{')
	sep := func() {
		if len(out) > 1 {
			out = append(out, ',')
		}
	}
	if c.modern {
		switch {
		case r.resultType != "":
			out = append(out, `"resultType":`...)
			out = rawjson.AppendString(out, r.resultType)
		case r.inputRequired:
			out = append(out, `"resultType":"input_required"`...)
		default:
			out = append(out, `"resultType":"complete"`...)
		}
	}
	if len(members) > 0 {
		sep()
		out = append(out, members...)
	}
	meta := r.meta
	if c.modern {
		switch {
		case r.discover:
			sep()
			out = append(out, `"ttlMs":0,"cacheScope":"private"`...)
		case r.cacheable && !r.inputRequired:
			sep()
			out = append(out, `"ttlMs":`...)
			out = rawjson.AppendInt(out, s.cfg.CacheTTL.Milliseconds())
			out = append(out, `,"cacheScope":`...)
			out = rawjson.AppendString(out, s.cfg.CacheScope)
		}
		var err error
		if meta != nil && !rawjson.IsObject(meta) {
			return nil, errors.New("mcp: a result's _meta is not a JSON object")
		}
		if meta, err = rawjson.SetMember(meta, protocol.MetaServerInfo, s.info); err != nil {
			return nil, err
		}
	}
	if meta != nil {
		sep()
		out = append(out, `"_meta":`...)
		out = append(out, meta...)
	}
	return append(out, '}'), nil
}

// marshalReply marshals v as a reply body.
func marshalReply(v any) (*reply, error) {
	body, err := rawjson.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &reply{body: body}, nil
}

// Listen implements seam.Session for subscriptions/listen (listen.go).
func (ss *session) Listen(ctx context.Context, sreq *seam.Request) (seam.Source, error) {
	if ss.srv.tracer != nil {
		return ss.traceListen(ctx, sreq)
	}
	return ss.listen(sreq)
}

// Notify implements seam.Session. The client's notifications need no
// action: cancellation is the transport's, and the runtime caches nothing
// that notifications/roots/list_changed would invalidate.
func (ss *session) Notify(context.Context, string, json.RawMessage) {}

// ServerInfo implements seam.Session.
func (ss *session) ServerInfo() json.RawMessage { return ss.srv.info }

// Close implements seam.Session: it forgets the connection and stops
// its notification pump.
func (ss *session) Close() {
	s := ss.srv
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
	ss.mu.Lock()
	stop := ss.stop
	ss.active = false
	ss.closed = true
	ss.mu.Unlock()
	ss.tasks.closeAll()
	if stop != nil {
		stop()
		<-ss.done
	}
}
