package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// session is a 2025 Streamable HTTP session: one child, started by the
// initialize that opened the session, until DELETE, the child's exit or
// Close.
type session struct {
	a       *Adapter
	id      string
	caller  caller // the only caller it answers
	version string // the protocolVersion the child's initialize result named
	b       *backend
	// ctx ends with the session; its calls run under it, not under the
	// request that sent them.
	ctx    context.Context
	cancel context.CancelFunc
}

// initialize opens a session: a fresh child gets the client's initialize
// verbatim, and a successful result names the session.
func (a *Adapter) initialize(w http.ResponseWriter, r *http.Request, c caller, m *wire.Message, body []byte) {
	id := clone(m.ID)
	resp := a.newResponder(w, r, false)
	if he := a.reserveSession(c.principal); he != nil {
		a.refuse(w, r, id, he, false)
		return
	}
	sid := newSessionID()
	b, err := a.startBackend(r, c, body, "session "+sid, true, false)
	if err != nil {
		a.releaseSession(c.principal)
		a.refuse(w, r, id, err, false)
		return
	}
	ctx, cancel := a.mergeCtx(r)
	res, err := b.call(ctx, m.Method, m.Params, m.Dirty)
	cancel()
	if err != nil {
		a.stop(b)
		a.releaseSession(c.principal)
		resp.final(id, nil, err)
		return
	}
	s := &session{a: a, id: sid, caller: c, b: b}
	if raw, ok := rawjson.Member(res, "protocolVersion"); ok {
		s.version, _ = rawjson.StringValue(raw)
	}
	s.ctx, s.cancel = context.WithCancel(a.ctx)
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		s.cancel()
		a.stop(b)
		return
	}
	a.sessions[sid] = s
	a.mu.Unlock()
	b.touch()
	w.Header().Set("Mcp-Session-Id", sid)
	resp.final(id, res, nil)
}

func newSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (a *Adapter) reserveSession(principal string) *HTTPError {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reserve(principal)
}

func (a *Adapter) releaseSession(principal string) {
	a.mu.Lock()
	a.unreserve(principal)
	a.mu.Unlock()
}

// session returns the live session named sid of caller c, or nil: another
// caller's session is not found, as an unknown one. A session whose
// connection has ended is ended here, so the client hears 404 and starts
// anew.
func (a *Adapter) session(sid string, c caller) *session {
	a.mu.Lock()
	s := a.sessions[sid]
	a.mu.Unlock()
	if s != nil && s.caller != c {
		return nil
	}
	if s != nil && s.b.link.Failed() != nil {
		a.endSession(s)
		return nil
	}
	return s
}

// endSession forgets a session, ends its streams and calls, and stops its
// child. Only the first of concurrent calls does anything.
func (a *Adapter) endSession(s *session) {
	a.mu.Lock()
	mine := a.sessions[s.id] == s
	if mine {
		delete(a.sessions, s.id)
		a.unreserve(s.caller.principal)
	}
	a.mu.Unlock()
	if mine {
		s.cancel()
		a.stop(s.b)
	}
}

// post handles a message that names this session.
func (s *session) post(w http.ResponseWriter, r *http.Request, m *wire.Message, mv *metaView) {
	if v, ok := header(r.Header, "MCP-Protocol-Version"); ok && s.version != "" && v != s.version {
		writeJSON(w, http.StatusBadRequest, errorFrame(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"Bad Request: MCP-Protocol-Version %q is not the session's %q", v, s.version)))
		return
	}
	s.b.touch()
	switch m.Kind {
	case wire.KindRequest:
		s.a.forward(w, r, s.b, s.caller.server, m, mv, s.ctx, false)
	case wire.KindResponse:
		s.b.answer(m)
		w.WriteHeader(http.StatusAccepted)
	default:
		if m.Method == "notifications/cancelled" {
			// The client names its own id; the Client cancels under
			// the child's.
			s.b.cancelCall(m.Params)
		} else if err := s.b.link.Notify(r.Context(), m.Method, m.Params, m.Dirty); err != nil {
			writeJSON(w, http.StatusOK, errorFrame(nil, err))
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// listen serves the session's GET stream, which carries what belongs to no
// request: the child's requests and logs while no POST is in flight, and
// every other notification. There is one at a time.
func (s *session) listen(w http.ResponseWriter, r *http.Request) {
	if !acceptsSSE(r.Header) {
		http.Error(w, "the GET stream is text/event-stream", http.StatusNotAcceptable)
		return
	}
	st, ok := s.b.openGet()
	if !ok {
		http.Error(w, "the session's GET stream is already open", http.StatusConflict)
		return
	}
	defer s.b.close(st)
	rc := http.NewResponseController(w)
	if startSSE(w, true) != nil || rc.Flush() != nil {
		return
	}
	for {
		select {
		case <-st.ready:
			for _, msg := range st.take() {
				if writeEvent(w, rc, msg, false) != nil {
					return
				}
			}
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}
