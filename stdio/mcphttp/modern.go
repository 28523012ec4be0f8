package mcphttp

import (
	"errors"
	"io"
	"net/http"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// stateless handles a message outside any session: the 2026-07-28 era.
func (a *Adapter) stateless(w http.ResponseWriter, r *http.Request, c caller, m *wire.Message, mv *metaView, body []byte) {
	switch m.Kind {
	case wire.KindResponse:
		writeJSON(w, http.StatusBadRequest, errorFrame(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"Invalid Request: a response outside a session (2026-07-28 clients send none)")))
		return
	case wire.KindNotification:
		a.statelessNotification(w, r, c, m, body)
		return
	}
	err := checkHeaders(r.Header, m, mv)
	if err == nil && m.Method == "tools/call" {
		err = a.paramsOf(c.server).check(r.Header, m.Params)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorFrame(m.ID, err))
		return
	}
	if m.Method == "subscriptions/listen" {
		a.listen(w, r, c, m, body)
		return
	}
	b, err := a.modernBackend(r, c, body, sharedCanCarry(m.Method, mv))
	if err != nil {
		a.refuse(w, r, m.ID, err, true)
		return
	}
	// The call ends with the request; forward also watches Close.
	a.forward(w, r, b, c.server, m, mv, r.Context(), true)
}

// statelessNotification accepts a notification outside a session. 2026
// defines none over HTTP, where closing a stream is the cancellation, but a
// notifications/cancelled naming a request in flight still cancels it; any
// other notification reaches the shared child verbatim.
func (a *Adapter) statelessNotification(w http.ResponseWriter, r *http.Request, c caller, m *wire.Message, body []byte) {
	if m.Method == "notifications/cancelled" {
		// Only the caller's own requests: the ids are the caller's.
		for _, b := range a.modernOf(c) {
			b.cancelCall(m.Params)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	b, err := a.modernBackend(r, c, body, true)
	if err == nil {
		err = b.link.Notify(r.Context(), m.Method, m.Params, m.Dirty)
	}
	if err != nil {
		a.refuse(w, r, nil, err, true)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// listen serves subscriptions/listen on the shared child: the
// acknowledgement, each event, then the end of the stream, all with the
// client's request id as the subscription id. A client that closes the
// stream ends the subscription (notifications/cancelled to the child).
//
// The Client sends the listen with the connection's _meta and the filter
// alone, and keeps of the child's acknowledgement and final result only the
// accepted filter and the fact of the end; the adapter rebuilds both.
func (a *Adapter) listen(w http.ResponseWriter, r *http.Request, c caller, m *wire.Message, body []byte) {
	id := clone(m.ID)
	resp := a.newResponder(w, r, true)
	b, err := a.modernBackend(r, c, body, true)
	if err != nil {
		a.refuse(w, r, id, err, true)
		return
	}
	st := b.open(false, false) // counts the listen as activity: not idle
	defer b.close(st)
	filter, ok := rawjson.Member(m.Params, "notifications")
	if !ok || !rawjson.IsObject(filter) {
		filter = []byte(`{}`)
	}
	ctx, cancel := a.mergeCtx(r)
	defer cancel()
	sub, err := b.link.Listen(ctx, filter)
	if err != nil {
		if ctx.Err() == nil {
			resp.final(id, nil, err)
		}
		return
	}
	defer sub.Close()
	subID := map[string]any{protocol.MetaSubscriptionID: id}
	ack := map[string]any{"notifications": sub.Accepted(), "_meta": subID}
	params, _ := rawjson.Marshal(ack)
	resp.event(trimLF(wire.AppendNotification(nil, "notifications/subscriptions/acknowledged", params)))
	for !resp.failed {
		ev, err := sub.Next(ctx)
		switch {
		case err == nil:
			params := setMeta(ev.Params, protocol.MetaSubscriptionID, id)
			resp.event(trimLF(wire.AppendNotification(nil, ev.Method, params)))
		case errors.Is(err, io.EOF):
			result, _ := rawjson.Marshal(map[string]any{"resultType": "complete", "_meta": subID})
			resp.final(id, result, nil)
			return
		case ctx.Err() != nil || a.ctx.Err() != nil:
			return // the client left, or Close
		default:
			resp.final(id, nil, err)
			return
		}
	}
}
