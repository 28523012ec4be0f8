package mcphttp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Endpoint is the path of the MCP endpoint an [Adapter] serves.
const Endpoint = "/mcp"

// Defaults of Config.
const (
	DefaultMaxSessions  = 64
	DefaultMaxBodyBytes = 16 << 20
	DefaultStopTimeout  = 2 * time.Second
	// streamBuffer bounds the messages waiting for one HTTP stream; see
	// stream.offer for what happens when it is full.
	streamBuffer = 256
)

// Config says which stdio MCP server an [Adapter] runs. The zero value of
// each optional field means its default.
type Config struct {
	// Argv is the server's command line: the program, then its arguments
	// (required). The program is found as exec.Command finds it.
	Argv []string
	// Env ("KEY=value") is added to os.Environ() for the children.
	Env []string
	// Dir is the children's working directory (default: ours).
	Dir string
	// Stderr receives the children's stderr (default: our stderr).
	Stderr io.Writer
	// Logger receives what the adapter and its Clients drop or skip
	// (default slog.Default()).
	Logger *slog.Logger
	// MaxSessions bounds the 2025 sessions open at once, each a child
	// (default 64). An initialize over the limit is refused with 503.
	MaxSessions int
	// MaxBodyBytes bounds a POST body (default 16 MiB); a longer one is
	// refused with 413.
	MaxBodyBytes int64
	// StopTimeout is how long a child gets after stdin EOF, and then after
	// SIGTERM, before the next step of SIGTERM, SIGKILL (default 2 s).
	StopTimeout time.Duration
}

func (cfg *Config) normalize() error {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return errors.New("mcphttp: Config.Argv is empty")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = DefaultStopTimeout
	}
	return nil
}

// Adapter serves one stdio MCP server as Streamable HTTP at [Endpoint]. It is
// an [http.Handler], safe for concurrent use. Children are started on demand
// (a 2025 session's at its initialize, the 2026 ones at the first request
// that needs them) and stopped by [Adapter.Close] or, for a session, by
// DELETE.
type Adapter struct {
	cfg Config
	log *slog.Logger

	// ctx ends at Close; every call, stream and session derives from it.
	ctx    context.Context
	cancel context.CancelFunc
	// wg counts the handlers running and the goroutines the adapter
	// starts (calls, child reapers); Close waits for it.
	wg        sync.WaitGroup
	closeOnce sync.Once
	tokens    atomic.Int64 // the last progress token minted
	params    paramHeaders // x-mcp-header annotations learnt from tools/list

	mu       sync.Mutex
	closing  bool
	sessions map[string]*session
	reserved int      // sessions counted against MaxSessions, open or starting
	shared   *backend // the 2026 child behind a connected Client
	verbatim *backend // the 2026 child behind a raw Client
}

// New checks cfg and returns an Adapter. It starts no process.
func New(cfg Config) (*Adapter, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Adapter{
		cfg:      cfg,
		log:      cfg.Logger,
		ctx:      ctx,
		cancel:   cancel,
		sessions: make(map[string]*session),
	}, nil
}

// Close ends every stream and call, stops every child it started (stdin
// EOF, then SIGTERM, then SIGKILL, StopTimeout apart) and waits for them and
// for the adapter's goroutines and running handlers. Requests that arrive
// later get 503. Close it before the http.Server that serves it, whose own
// Close waits for open streams. Close is idempotent and returns nil.
func (a *Adapter) Close() error {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closing = true
		var children []*backend
		for id, s := range a.sessions {
			children = append(children, s.b)
			delete(a.sessions, id)
		}
		for _, b := range []*backend{a.shared, a.verbatim} {
			if b != nil {
				children = append(children, b)
			}
		}
		a.shared, a.verbatim = nil, nil
		a.mu.Unlock()
		a.cancel()
		for _, b := range children {
			a.stop(b)
		}
	})
	a.wg.Wait()
	return nil
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

// ServeHTTP serves the MCP endpoint: POST for messages, GET for a 2025
// session's stream, DELETE to end a 2025 session.
func (a *Adapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Endpoint {
		http.NotFound(w, r)
		return
	}
	if !a.enter() {
		writeJSON(w, http.StatusServiceUnavailable, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The adapter is closed")))
		return
	}
	defer a.wg.Done()
	if err := checkOrigin(r); err != nil {
		writeJSON(w, http.StatusForbidden, errorFrame(nil, err))
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodPost:
		a.post(w, r, sid)
	case http.MethodGet, http.MethodDelete:
		if sid == "" {
			// 2026-07-28 has no GET stream and no sessions to end.
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed without Mcp-Session-Id", http.StatusMethodNotAllowed)
			return
		}
		s := a.session(sid)
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

// post reads one JSON-RPC message and routes it by era.
func (a *Adapter) post(w http.ResponseWriter, r *http.Request, sid string) {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Content-Type must be application/json")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a.cfg.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Body larger than %d bytes", tooLarge.Limit)))
		}
		return // the client went away
	}
	// A child may exit on a malformed line (docs/testing.md,
	// "Peer quirks"), so nothing reaches one unvalidated; the Client
	// re-encodes what passes.
	m, err := wire.Decode(body)
	if err != nil {
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			e = jsonrpc.Errorf(jsonrpc.CodeParseError, "Parse error")
		}
		writeJSON(w, http.StatusBadRequest, errorFrame(m.ID, &jsonrpc.Error{Code: e.Code, Message: e.Message}))
		return
	}
	switch {
	case sid != "":
		s := a.session(sid)
		if s == nil {
			writeJSON(w, http.StatusNotFound, errorFrame(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Session not found")))
			return
		}
		s.post(w, r, &m)
	case m.Kind == wire.KindRequest && m.Method == "initialize" && !hasModernVersion(m.Params):
		a.initialize(w, r, &m)
	default:
		a.stateless(w, r, &m)
	}
}

// startBackend starts a child. A connected one is pinned to 2026-07-28,
// which sends nothing at start.
func (a *Adapter) startBackend(name string, legacy, connected bool) (*backend, error) {
	b := newBackend(a, name, legacy)
	cfg := stdio.ClientConfig{
		Logger: a.log.With("child", name),
		// Only the HTTP side bounds a call: its request, its session or
		// the adapter's Close.
		RequestTimeout:  -1,
		OnServerRequest: b.serverRequest,
		OnNotification:  b.notification,
	}
	start := func(ctx context.Context) (*stdio.Client, error) {
		cmd := exec.Command(a.cfg.Argv[0], a.cfg.Argv[1:]...)
		cmd.Env = append(os.Environ(), a.cfg.Env...)
		cmd.Dir = a.cfg.Dir
		cmd.Stderr = a.cfg.Stderr
		if cmd.Stderr == nil {
			cmd.Stderr = os.Stderr
		}
		return stdio.Start(ctx, cmd, cfg)
	}
	var c *stdio.Client
	var err error
	if connected {
		c, err = stdio.Connect(a.ctx, start, stdio.ConnectConfig{
			Versions:   []string{protocol.Version20260728},
			ClientInfo: []byte(`{"name":"mcphttp","version":"0"}`),
		})
	} else {
		c, err = start(a.ctx)
	}
	if err != nil {
		return nil, err
	}
	b.client = c
	return b, nil
}

// stop closes a child's Client and reaps the child in the background,
// escalating to signals; Close waits for it.
func (a *Adapter) stop(b *backend) {
	b.client.Close()
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
		case <-b.client.Done():
			return
		case <-t.C:
		}
		a.log.Warn("mcphttp: child still running; signalling it", "child", b.name, "signal", sig)
		b.client.Signal(sig)
		t.Reset(a.cfg.StopTimeout)
	}
	select {
	case <-b.client.Done():
	case <-t.C:
		a.log.Error("mcphttp: child still running after SIGKILL", "child", b.name, "pid", b.client.Pid())
	}
}

// modernBackend returns the 2026 child of the given kind, starting it (again,
// if the last one died) as needed.
func (a *Adapter) modernBackend(shared bool) (*backend, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return nil, jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The adapter is closed")
	}
	slot, name := &a.verbatim, "verbatim"
	if shared {
		slot, name = &a.shared, "shared"
	}
	if b := *slot; b != nil {
		if b.client.Err() == nil {
			return b, nil
		}
		a.stop(b)
		*slot = nil
	}
	b, err := a.startBackend(name, false, shared)
	if err != nil {
		return nil, err
	}
	*slot = b
	return b, nil
}

// mergeCtx returns a context that ends with r's or at Close.
func (a *Adapter) mergeCtx(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(a.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}
