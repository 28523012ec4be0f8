package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// DefaultServerRequestTimeout is ServerConfig.ServerRequestTimeout's
// default: how long a request from a legacy child waits for an answer.
const DefaultServerRequestTimeout = time.Minute

// relay is everything of one child that is not a call of its own: the
// requests the child sends to the client, the notifications no call
// claims, and the streams that receive them. The supervisor makes one per
// spawned child and hands its callbacks to stdio.ClientConfig (hook); it
// lives and dies with that child.
type relay struct {
	server  string
	roots   json.RawMessage // the ListRootsResult answered for roots/list; nil: not configured
	timeout time.Duration
	limit   int // the stdio Client's MaxServerRequests
	log     *slog.Logger
	client  atomic.Pointer[stdio.Client]

	mu    sync.Mutex
	calls int // calls in flight on the child that the bridge knows of
}

func newRelay(server string, cfg *ServerConfig, log *slog.Logger) *relay {
	r := &relay{server: server, timeout: cfg.ServerRequestTimeout, limit: stdio.DefaultMaxServerRequests, log: log}
	if r.timeout <= 0 {
		r.timeout = DefaultServerRequestTimeout
	}
	if cfg.Roots != nil {
		r.roots = append(append(json.RawMessage(`{"roots":`), cfg.Roots...), '}')
	}
	return r
}

// hook installs the relay's callbacks in the configuration of the child it
// serves.
func (r *relay) hook(cfg stdio.ClientConfig) stdio.ClientConfig {
	cfg.OnServerRequest = r.onServerRequest
	if cfg.MaxServerRequests > 0 {
		r.limit = cfg.MaxServerRequests
	}
	return cfg
}

// attach records the child's Client once stdio.Start returned it; until
// then (and until negotiation set its era) the relay asks nobody.
func (r *relay) attach(c *stdio.Client) { r.client.Store(c) }

// enter counts a call in flight on the child, for the rule that a lone
// opted-in call is the cause of a server request. Every path that calls
// the child uses it: defer c.relay.enter()().
func (r *relay) enter() (leave func()) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.calls--
			r.mu.Unlock()
		})
	}
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

// onServerRequest is ClientConfig.OnServerRequest: for now only ping and a
// configured roots list are answered; everything else is -32601.
func (r *relay) onServerRequest(_ context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
	c := r.client.Load()
	switch {
	case c == nil || c.Protocol() == "" || c.Protocol() == stdio.Version20260728:
		return nil, methodNotFound(req.Method)
	case req.Method == "ping":
		return json.RawMessage(`{}`), nil
	case req.Method == "roots/list" && r.roots != nil:
		return r.roots, nil
	}
	return nil, methodNotFound(req.Method)
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
	roots, err := jsonrpc.Compact(s.Roots)
	if err != nil || len(roots) == 0 || roots[0] != '[' {
		return fmt.Errorf("bridge: server %q: Roots must be a JSON array of roots", s.Name)
	}
	s.Roots = roots
	return nil
}

// capabilities is what the bridge declares to the child: Capabilities,
// plus roots when the bridge answers roots/list itself.
func (s *ServerConfig) capabilities() json.RawMessage {
	if s.Roots == nil {
		return s.Capabilities
	}
	caps := s.Capabilities
	if caps == nil {
		caps = json.RawMessage(`{}`)
	}
	if _, ok := jsonrpc.Member(caps, "roots"); ok {
		return caps
	}
	out, err := jsonrpc.SetMember(caps, "roots", json.RawMessage(`{}`))
	if err != nil {
		return s.Capabilities // not an object: Connect reports it
	}
	return out
}
