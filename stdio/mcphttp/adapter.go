package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp/internal/peer"
)

// Endpoint is the path of the MCP endpoint of the default server; a named
// server's is Endpoint + "/" + its name.
const Endpoint = "/mcp"

// Defaults of Config.
const (
	DefaultMaxSessions  = 64
	DefaultMaxBodyBytes = 16 << 20
	DefaultStopTimeout  = 2 * time.Second
	DefaultIdleTimeout  = 10 * time.Minute
	// streamBuffer bounds the messages waiting for one HTTP stream; see
	// stream.offer for what happens when it is full.
	streamBuffer = 256
)

// StartFunc opens a connection to the server named server (the path's
// name, "" at Endpoint) for the request r that needs it: a 2025 session's
// initialize, or the first 2026 request of a caller; first is that
// request's message, as the client sent it (it is sent again through the
// Client: first only tells what the connection is opened for). The Client
// it returns must be configured with cfg. ctx ends when the Adapter closes;
// the connection may live that long, well past r. An error of type
// *HTTPError is answered with its status; any other with a JSON-RPC error.
type StartFunc func(ctx context.Context, r *http.Request, server string, first []byte, cfg stdio.ClientConfig) (*stdio.Client, error)

// HTTPError is a StartFunc's refusal that HTTP says better than JSON-RPC:
// 401 for missing or bad credentials, 403 for a caller the server is not
// for, 404 for an unknown server, 429 and 503 for limits.
type HTTPError struct {
	Status int
	// Header is added to the response (WWW-Authenticate for a 401,
	// Retry-After for a 429 or 503).
	Header http.Header
	// Err is the JSON-RPC error of the response body; nil means -32000
	// with the status's text.
	Err *jsonrpc.Error
}

func (e *HTTPError) Error() string { return e.rpcError().Error() }

func (e *HTTPError) rpcError() *jsonrpc.Error {
	if e.Err == nil {
		return jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "%d %s", e.Status, http.StatusText(e.Status))
	}
	return e.Err
}

// Command returns a StartFunc that runs argv as a child process for each
// connection, with env ("KEY=value") added to os.Environ(), in dir (""
// for ours), its stderr to stderr (nil for ours). The server name is not
// used: every path reaches the same program.
func Command(argv, env []string, dir string, stderr io.Writer) StartFunc {
	return func(ctx context.Context, _ *http.Request, _ string, _ []byte, cfg stdio.ClientConfig) (*stdio.Client, error) {
		if len(argv) == 0 || argv[0] == "" {
			return nil, errors.New("mcphttp: Command: empty argv")
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Dir = dir
		cmd.Stderr = stderr
		if cmd.Stderr == nil {
			cmd.Stderr = os.Stderr
		}
		return stdio.Start(ctx, cmd, cfg)
	}
}

// Config says how an [Adapter] reaches its servers and whom it serves. The
// zero value of each optional field means its default.
type Config struct {
	// Start opens a connection to a server as a stdio.Client: a child
	// process ([Command]). Exactly one of Start and Open is set.
	Start StartFunc
	// Open opens a raw connection to a server, one that carries whole
	// messages (an in-process session): the adapter speaks JSON-RPC on it
	// itself, with no Client in between.
	Open OpenFunc
	// Caller names the credentials a request carries; requests with the
	// same name are one caller. A 2025 session answers only its own
	// caller, and 2026 requests share connections only within a caller.
	// Default: every request is the same caller.
	Caller func(r *http.Request) string
	// Origins are the browser origins ("https://app.example.com") allowed
	// besides loopback ones, or "*" for any; a request with any other
	// Origin gets 403.
	Origins []string
	// AnyHost accepts any Host header. By default the Host must be a
	// loopback name, which is what defeats DNS rebinding on a loopback
	// listener; a listener reachable from elsewhere sets it.
	AnyHost bool
	// Logger receives what the adapter and its Clients drop or skip
	// (default slog.Default()).
	Logger *slog.Logger
	// MaxSessions bounds the connections open at once: 2025 sessions and
	// callers' 2026 connections (default 64). A request that needs one
	// over the limit is refused with 503 and Retry-After.
	MaxSessions int
	// Principal names the authenticated principal of a request ("" for
	// an anonymous one); default: every request is anonymous.
	Principal func(r *http.Request) string
	// MaxPerPrincipal bounds the connections of one authenticated
	// principal (default a quarter of MaxSessions, rounded up), so that
	// one caller cannot take them all; one over it is refused with 429
	// and Retry-After. Anonymous requests are bounded by MaxSessions
	// alone, as the bridge's own session caps are.
	MaxPerPrincipal int
	// MaxBodyBytes bounds a POST body (default 16 MiB); a longer one is
	// refused with 413.
	MaxBodyBytes int64
	// StopTimeout is how long a child gets after stdin EOF, and then after
	// SIGTERM, before the next step of SIGTERM, SIGKILL (default 2 s).
	StopTimeout time.Duration
	// IdleTimeout ends a session, or a caller's 2026 connections, that has
	// had no request and no open stream for this long (default 10 min). A
	// 2025 client then gets 404 and initializes again, as the transport
	// says it must.
	IdleTimeout time.Duration
	// Challenge, when set, is asked of every error response the adapter
	// sends before any event of its POST: a WWW-Authenticate value it
	// returns makes the response 403 with that header and the error as
	// its JSON body, for a request the caller's credentials do not cover
	// (an OAuth access token without the scope it needs: RFC 6750's
	// insufficient_scope), so that a host can obtain a better token and
	// retry. "" leaves the response as it is.
	Challenge func(r *http.Request, e *jsonrpc.Error) string
}

func (cfg *Config) normalize() error {
	switch {
	case cfg.Start == nil && cfg.Open == nil:
		return errors.New("mcphttp: Config.Start and Config.Open are nil")
	case cfg.Start != nil && cfg.Open != nil:
		return errors.New("mcphttp: Config.Start and Config.Open are both set")
	}
	origins := make([]string, 0, len(cfg.Origins))
	for _, o := range cfg.Origins {
		if o == "*" {
			origins = append(origins, o)
			continue
		}
		c, ok := CanonicalOrigin(o)
		if !ok {
			return errors.New("mcphttp: Config.Origins: " + o + " is not an origin (scheme://host[:port])")
		}
		origins = append(origins, c)
	}
	cfg.Origins = origins
	if cfg.Caller == nil {
		cfg.Caller = func(*http.Request) string { return "" }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.Principal == nil {
		cfg.Principal = func(*http.Request) string { return "" }
	}
	if cfg.MaxPerPrincipal <= 0 {
		cfg.MaxPerPrincipal = max(1, (cfg.MaxSessions+3)/4)
	}
	cfg.MaxPerPrincipal = min(cfg.MaxPerPrincipal, cfg.MaxSessions)
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = DefaultStopTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	return nil
}

// Adapter serves stdio MCP servers as Streamable HTTP at [Endpoint] and
// below it. It is an [http.Handler], safe for concurrent use. Connections
// are opened on demand (a 2025 session's at its initialize, a caller's 2026
// ones at the first request that needs them) and closed by
// [Adapter.Close], by DELETE for a session, or when idle.
type Adapter struct {
	cfg Config
	log *slog.Logger

	// ctx ends at Close; every call, stream and session derives from it.
	ctx    context.Context
	cancel context.CancelFunc
	// wg counts the handlers running and the goroutines the adapter
	// starts (calls, child reapers, the idle sweeper); Close waits for it.
	wg        sync.WaitGroup
	closeOnce sync.Once
	tokens    atomic.Int64 // the last progress token minted

	mu       sync.Mutex
	closing  bool
	sessions map[string]*session
	reserved int                      // sessions and modern connections counted against MaxSessions
	held     map[string]int           // of those, each authenticated principal's
	modern   map[string]*modernPair   // a caller's 2026 connections, by server and caller
	params   map[string]*paramHeaders // x-mcp-header annotations learnt from tools/list, by server
}

// modernPair is one caller's 2026 connections to one server.
type modernPair struct {
	principal string     // whose reservation it holds
	mu        sync.Mutex // held while a connection is opened
	shared    *backend   // behind a connected Client
	verbatim  *backend   // behind a raw Client
}

// New checks cfg and returns an Adapter. It opens no connection.
func New(cfg Config) (*Adapter, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Adapter{
		cfg:      cfg,
		log:      cfg.Logger,
		ctx:      ctx,
		cancel:   cancel,
		sessions: make(map[string]*session),
		modern:   make(map[string]*modernPair),
		held:     make(map[string]int),
		params:   make(map[string]*paramHeaders),
	}
	a.wg.Add(1)
	go a.sweep()
	return a, nil
}

// Close ends every stream and call, closes every connection (a child gets
// stdin EOF, then SIGTERM, then SIGKILL, StopTimeout apart) and waits for
// them and for the adapter's goroutines and running handlers. Requests that
// arrive later get 503. Close it before the http.Server that serves it,
// whose own Close waits for open streams. Close is idempotent and returns
// nil.
func (a *Adapter) Close() error {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closing = true
		var children []*backend
		for id, s := range a.sessions {
			children = append(children, s.b)
			delete(a.sessions, id)
		}
		pairs := make([]*modernPair, 0, len(a.modern))
		for key, p := range a.modern {
			pairs = append(pairs, p)
			delete(a.modern, key)
		}
		a.mu.Unlock()
		a.cancel() // ends connections being opened
		for _, p := range pairs {
			p.mu.Lock()
			children = append(children, p.backends()...)
			p.shared, p.verbatim = nil, nil
			p.mu.Unlock()
		}
		for _, b := range children {
			a.stop(b)
		}
	})
	a.wg.Wait()
	return nil
}

func (p *modernPair) backends() []*backend {
	var out []*backend
	for _, b := range []*backend{p.shared, p.verbatim} {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}

// enter counts a handler in, unless the adapter is closing.
func (a *Adapter) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return false
	}
	a.wg.Add(1)
	return true
}

// serverOf returns the server a path names: "" for Endpoint, NAME for
// Endpoint/NAME (path-unescaped, without further slashes).
func serverOf(u *url.URL) (string, bool) {
	if u.Path == Endpoint {
		return "", true
	}
	rest, ok := strings.CutPrefix(u.EscapedPath(), Endpoint+"/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	name, err := url.PathUnescape(rest)
	if err != nil || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// ServeHTTP serves the MCP endpoints: POST for messages, GET for a 2025
// session's stream, DELETE to end a 2025 session.
func (a *Adapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	server, ok := serverOf(r.URL)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if !a.enter() {
		writeJSON(w, http.StatusServiceUnavailable, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The adapter is closed")))
		return
	}
	defer a.wg.Done()
	if err := a.checkOrigin(r); err != nil {
		writeJSON(w, http.StatusForbidden, errorFrame(nil, err))
		return
	}
	c := caller{server: server, name: a.cfg.Caller(r), principal: a.cfg.Principal(r)}
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodPost:
		a.post(w, r, c, sid)
	case http.MethodGet, http.MethodDelete:
		if sid == "" {
			// 2026-07-28 has no GET stream and no sessions to end.
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed without Mcp-Session-Id", http.StatusMethodNotAllowed)
			return
		}
		s := a.session(sid, c)
		switch {
		case s == nil:
			http.Error(w, "session not found", http.StatusNotFound)
		case r.Method == http.MethodGet:
			s.listen(w, r)
		default:
			a.endSession(s)
			w.WriteHeader(http.StatusNoContent)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// caller is who a request is from and which server it is for: the name
// of its credentials, and the principal they authenticate, whose share of
// the connections it takes.
type caller struct {
	server, name, principal string
}

func (c caller) key() string { return c.server + "\x00" + c.name }

// retryAfter is what a refusal for want of a connection tells the client
// to wait: connections end as idle ones expire and sessions are deleted.
const retryAfter = "1"

// reserve counts one more connection of principal against the limits;
// a.mu is held. A refusal says which limit, in the words of the bridge's
// own session caps.
func (a *Adapter) reserve(principal string) *HTTPError {
	if principal != "" && a.held[principal] >= a.cfg.MaxPerPrincipal {
		return &HTTPError{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {retryAfter}},
			Err: jsonrpc.WithData(jsonrpc.CodeInternalError,
				fmt.Sprintf("The MCP endpoint has the most sessions one principal may have (max_per_principal %d) open for this caller", a.cfg.MaxPerPrincipal),
				map[string]any{"retryable": true, "limit": a.cfg.MaxPerPrincipal, "per": "principal"})}
	}
	if a.reserved >= a.cfg.MaxSessions {
		return &HTTPError{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {retryAfter}},
			Err: jsonrpc.WithData(jsonrpc.CodeInternalError, fmt.Sprintf("The MCP endpoint has its most sessions (%d) open", a.cfg.MaxSessions),
				map[string]any{"retryable": true, "limit": a.cfg.MaxSessions})}
	}
	a.reserved++
	if principal != "" {
		a.held[principal]++
	}
	return nil
}

// unreserve gives back a connection reserve counted; a.mu is held.
func (a *Adapter) unreserve(principal string) {
	a.reserved--
	if principal != "" {
		if a.held[principal]--; a.held[principal] <= 0 {
			delete(a.held, principal)
		}
	}
}

// post reads one JSON-RPC message and routes it by era.
func (a *Adapter) post(w http.ResponseWriter, r *http.Request, c caller, sid string) {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Content-Type must be application/json")))
		return
	}
	body, err := readBody(w, r, a.cfg.MaxBodyBytes)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Body larger than %d bytes", tooLarge.Limit)))
		}
		return // the client went away
	}
	// A child may exit on a malformed line, so nothing reaches one
	// unvalidated; the Client re-encodes what passes.
	m, err := wire.Decode(body)
	if err != nil {
		e := jsonrpc.Errorf(jsonrpc.CodeParseError, "Parse error")
		var we *wire.Error
		if errors.As(err, &we) {
			e = (*jsonrpc.Error)(we)
		}
		writeJSON(w, http.StatusBadRequest, errorFrame(m.ID, &jsonrpc.Error{Code: e.Code, Message: e.Message}))
		return
	}
	var mv metaView // a request's _meta, read once
	if m.Kind == wire.KindRequest {
		mv = readMeta(m.Params)
	}
	switch {
	case sid != "":
		s := a.session(sid, c)
		if s == nil {
			writeJSON(w, http.StatusNotFound, errorFrame(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Session not found")))
			return
		}
		s.post(w, r, &m, &mv)
	case m.Kind == wire.KindRequest && m.Method == "initialize" && !mv.hasModernVersion():
		a.initialize(w, r, c, &m, body)
	default:
		a.stateless(w, r, c, &m, &mv, body)
	}
}

// refuse answers a request whose connection could not be opened: with the
// StartFunc's HTTP status when it gave one.
func (a *Adapter) refuse(w http.ResponseWriter, r *http.Request, id []byte, err error, modern bool) {
	var he *HTTPError
	if errors.As(err, &he) {
		for k, vv := range he.Header {
			for _, v := range vv {
				w.Header().Add(k, v)
			}
		}
		writeJSON(w, he.Status, errorFrame(id, he.rpcError()))
		return
	}
	if id == nil {
		writeJSON(w, http.StatusOK, errorFrame(nil, err))
		return
	}
	a.newResponder(w, r, modern).final(id, nil, err)
}

// connectedClientInfo is the clientInfo of a shared 2026 connection's
// stamped _meta.
const connectedClientInfo = `{"name":"mcpbridge-http","version":"1"}`

// startBackend opens a connection for r. A connected one is pinned to
// 2026-07-28, which sends nothing at start.
func (a *Adapter) startBackend(r *http.Request, c caller, first []byte, name string, legacy, connected bool) (*backend, error) {
	b := newBackend(a, name, legacy)
	cfg := stdio.ClientConfig{
		Logger: a.log.With("connection", name),
		// Only the HTTP side bounds a call: its request, its session or
		// the adapter's Close.
		RequestTimeout:  -1,
		OnServerRequest: b.serverRequest,
		OnNotification:  b.notification,
	}
	if a.cfg.Open != nil {
		conn, err := a.cfg.Open(a.ctx, r, c.server, first)
		if err != nil {
			return nil, err
		}
		connectedAs := ""
		if connected {
			connectedAs = connectedClientInfo
		}
		b.link = peer.NewRaw(conn, cfg.Logger, cfg, connectedAs)
		return b, nil
	}
	start := func(ctx context.Context) (*stdio.Client, error) {
		return a.cfg.Start(ctx, r, c.server, first, cfg)
	}
	var cl *stdio.Client
	var err error
	if connected {
		cl, err = stdio.Connect(a.ctx, start, stdio.ConnectConfig{
			Versions:   []string{protocol.Version20260728},
			ClientInfo: []byte(connectedClientInfo),
		})
	} else {
		cl, err = start(a.ctx)
	}
	if err != nil {
		return nil, err
	}
	b.link = peer.Client{C: cl, WG: &a.wg}
	return b, nil
}

// stop closes a connection's Client and reaps its child in the background,
// escalating to signals; Close waits for it.
func (a *Adapter) stop(b *backend) {
	b.link.Close()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.reap(b)
	}()
}

func (a *Adapter) reap(b *backend) {
	t := time.NewTimer(a.cfg.StopTimeout)
	defer t.Stop()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-b.link.Done():
			return
		case <-t.C:
		}
		if b.link.Pid() != 0 {
			a.log.Warn("mcphttp: child still running; signalling it", "connection", b.name, "signal", sig)
		}
		b.link.Signal(sig)
		t.Reset(a.cfg.StopTimeout)
	}
	select {
	case <-b.link.Done():
	case <-t.C:
		a.log.Error("mcphttp: connection still open after SIGKILL", "connection", b.name, "pid", b.link.Pid())
	}
}

// modernBackend returns the caller's 2026 connection of the given kind,
// opening it (again, if the last one ended) as needed. A caller's first
// requests wait for the one connection being opened rather than open their
// own; other callers do not wait.
func (a *Adapter) modernBackend(r *http.Request, c caller, first []byte, shared bool) (*backend, error) {
	key := c.key()
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The adapter is closed")
	}
	p := a.modern[key]
	if p == nil {
		if he := a.reserve(c.principal); he != nil {
			a.mu.Unlock()
			return nil, he
		}
		p = &modernPair{principal: c.principal}
		a.modern[key] = p
	}
	a.mu.Unlock()

	p.mu.Lock()
	defer p.mu.Unlock()
	slot, name := &p.verbatim, "verbatim"
	if shared {
		slot, name = &p.shared, "shared"
	}
	if b := *slot; b != nil {
		if b.link.Failed() == nil {
			b.touch()
			return b, nil
		}
		a.stop(b)
		*slot = nil
	}
	b, err := a.startBackend(r, c, first, name+" "+c.server, false, shared)
	if err == nil {
		*slot = b
		b.touch()
	}
	a.mu.Lock()
	closing := a.closing
	gone := closing || a.modern[key] != p
	if !gone && p.shared == nil && p.verbatim == nil {
		delete(a.modern, key) // nothing opened: forget the caller
		a.unreserve(p.principal)
	}
	a.mu.Unlock()
	if gone && err == nil {
		// Close or expire ran meanwhile and did not see this connection.
		*slot = nil
		a.stop(b)
		if closing {
			return nil, jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The adapter is closed")
		}
		return a.modernBackend(r, c, first, shared) // the caller's connections expired meanwhile
	}
	return b, err
}

// modernOf returns the caller's 2026 connections that are open.
func (a *Adapter) modernOf(c caller) []*backend {
	a.mu.Lock()
	p := a.modern[c.key()]
	a.mu.Unlock()
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.backends()
}

// paramsOf returns the x-mcp-header annotations learnt for a server.
func (a *Adapter) paramsOf(server string) *paramHeaders {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.params[server]
	if p == nil {
		p = &paramHeaders{}
		a.params[server] = p
	}
	return p
}

// mergeCtx returns a context that ends with r's or at Close.
func (a *Adapter) mergeCtx(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(a.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// sweep ends, every quarter of IdleTimeout, the sessions and 2026
// connections idle for longer than IdleTimeout.
func (a *Adapter) sweep() {
	defer a.wg.Done()
	t := time.NewTicker(a.cfg.IdleTimeout / 4)
	defer t.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return
		case now := <-t.C:
			a.expire(now.Add(-a.cfg.IdleTimeout))
		}
	}
}

// expire ends what has been idle since before cutoff.
func (a *Adapter) expire(cutoff time.Time) {
	var sessions []*session
	var stale []*backend
	a.mu.Lock()
	for _, s := range a.sessions {
		if s.b.idleSince(cutoff) {
			sessions = append(sessions, s)
		}
	}
	for key, p := range a.modern {
		if !p.mu.TryLock() {
			continue // a connection is being opened: not idle
		}
		idle := true
		for _, b := range p.backends() {
			idle = idle && b.idleSince(cutoff)
		}
		if idle {
			stale = append(stale, p.backends()...)
			p.shared, p.verbatim = nil, nil
			delete(a.modern, key)
			a.unreserve(p.principal)
		}
		p.mu.Unlock()
	}
	a.mu.Unlock()
	for _, s := range sessions {
		a.log.Debug("mcphttp: ending an idle session", "session", s.id)
		a.endSession(s)
	}
	for _, b := range stale {
		a.stop(b)
	}
}

// readBody returns r's body, at most limit bytes (a *http.MaxBytesError
// beyond). A body that a handler in front already read whole hands over
// its bytes (Bytes, as a *bytes.Buffer has it) instead of being read and
// copied again.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if whole, ok := r.Body.(interface{ Bytes() []byte }); ok {
		b := whole.Bytes()
		if int64(len(b)) > limit {
			return nil, &http.MaxBytesError{Limit: limit}
		}
		return b, nil
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}
