package tunnel

// This file is a Connect tunnel whose client speaks the other era than
// the child (docs/architecture.md, "Across eras"). The tunnel classifies
// each request: a 2026-07-28 _meta (any version outside the legacy ones)
// or server/discover marks a 2026 client; initialize marks a 2025 one; an
// unmarked request belongs to the era the tunnel's client last showed
// (the child's era before it showed any). A request of the child's own era takes the plain
// tunnel path (tunnel.go); the other era is translated here:
//
//   - 2025 client, 2026 child: initialize, ping and logging/setLevel are
//     answered by the bridge; requests are forwarded with the 2026 _meta
//     made from the client's initialize (capabilities, clientInfo) and its
//     level; input_required results become server requests into the
//     tunnel, and the call is repeated with their answers;
//     resources/subscribe becomes a subscriptions/listen of its own.
//   - 2026 client, 2025 child: the bridge validates the request as a 2026
//     server would, answers server/discover from what it negotiated,
//     strips the 2026 _meta and stamps 2026 results; the child's server
//     requests during a tools/call, prompts/get or resources/read become
//     input_required rounds; subscriptions/listen is served from the
//     child's unsolicited notifications and resources/subscribe.

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

const (
	// maxInputRounds bounds the input_required rounds the bridge answers
	// for one request of a 2025 client.
	maxInputRounds = 16
	// inputGather is how long a child's server request waits for others
	// sent with it, so that questions asked together (a legacy server's
	// concurrent requests) become one input_required round.
	inputGather = 10 * time.Millisecond
)

// clientEra is the era a tunnel's client last showed.
type clientEra uint8

const (
	eraUnshown clientEra = iota // no marked request yet: the child's era
	eraLegacy
	eraModern
)

// modernRequest reports whether a request of the tunnel's client is a
// 2026-07-28 request, and records the era it shows.
func (t *Tunnel) modernRequest(method string, meta json.RawMessage) bool {
	version, has := protocol.VersionIn(meta)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case has && !slices.Contains(protocol.KnownLegacy, version), method == "server/discover":
		t.era = eraModern
	case method == "initialize", has:
		t.era = eraLegacy
	}
	switch t.era {
	case eraModern:
		return true
	case eraLegacy:
		return false
	}
	return !t.legacy
}

// CrossModern reports whether the tunnel's client speaks 2026 to a legacy
// child: its notifications and server requests are translated.
func (t *Tunnel) CrossModern() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.legacy && t.era == eraModern
}

// Asking reports whether a 2026 client on a legacy child has a call in
// flight that may ask it for input.
func (t *Tunnel) Asking() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.running) > 0
}

// cross routes a request of the other era than the child's. handled is
// false for a request of the child's own era; run is nil when the request
// was answered at once.
func (t *Tunnel) cross(id json.RawMessage, method string, params, meta json.RawMessage) (run func(context.Context, *tunnelCall), handled bool) {
	modern := t.modernRequest(method, meta)
	switch {
	case modern && t.legacy:
		return t.modernOnLegacy(id, method, params, meta), true
	case !modern && !t.legacy:
		return t.legacyOnModern(id, method, params), true
	}
	return nil, false
}

// ---- A 2025 client on a 2026 child ----

func (t *Tunnel) legacyOnModern(id json.RawMessage, method string, params json.RawMessage) func(context.Context, *tunnelCall) {
	switch method {
	case "initialize":
		requested, _ := rawjson.Member(params, "protocolVersion")
		version, _ := rawjson.StringValue(requested)
		if !slices.Contains(protocol.Versions, version) || protocol.Modern(version) {
			version = protocol.Version20251125
		}
		caps, ok := rawjson.Member(params, "capabilities")
		if !ok || !rawjson.IsObject(caps) {
			caps = json.RawMessage(`{}`)
		}
		info, ok := rawjson.Member(params, "clientInfo")
		if !ok || !rawjson.IsObject(info) {
			info = nil
		}
		t.mu.Lock()
		t.peerCaps, t.peerInfo = caps, info
		t.mu.Unlock()
		return func(ctx context.Context, call *tunnelCall) { t.initialize(ctx, call, id, version) }
	case "ping":
		t.respond(id, json.RawMessage(`{}`))
		return nil
	case "logging/setLevel":
		raw, _ := rawjson.Member(params, "level")
		name, _ := rawjson.StringValue(raw)
		level := convert.Level(name)
		if level == 0 {
			t.fail(id, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown logging level"))
			return nil
		}
		t.mu.Lock()
		t.level = level
		t.mu.Unlock()
		t.respond(id, json.RawMessage(`{}`))
		return nil
	case "resources/subscribe", "resources/unsubscribe":
		raw, _ := rawjson.Member(params, "uri")
		uri, ok := rawjson.StringValue(raw)
		if !ok || uri == "" {
			t.fail(id, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s needs a string uri", method))
			return nil
		}
		if method == "resources/unsubscribe" {
			t.mu.Lock()
			sub := t.uriListens[uri]
			delete(t.uriListens, uri)
			t.mu.Unlock()
			if sub != nil {
				sub.Close()
			}
			t.respond(id, json.RawMessage(`{}`))
			return nil
		}
		return func(ctx context.Context, call *tunnelCall) { t.listenURI(ctx, call, id, uri) }
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		if protocol.HasTasksExtension(t.child().ServerCapabilities()) {
			return func(ctx context.Context, call *tunnelCall) { t.legacyTask(ctx, call, id, method, params) }
		}
	}
	return func(ctx context.Context, call *tunnelCall) { t.forwardToModern(ctx, call, id, method, params) }
}

// initialize answers a 2025 client's initialize on a 2026 child from
// what the bridge's negotiation learnt, or, when it learnt nothing (a
// pinned version sends no server/discover), from a server/discover.
func (t *Tunnel) initialize(ctx context.Context, call *tunnelCall, id json.RawMessage, version string) {
	caps, info, instructions := t.child().ServerCapabilities(), t.child().ServerInfo(), t.child().Instructions()
	if info == nil {
		meta, _ := t.peerMeta()
		leave := t.child().Relay.Enter(t.ctx)
		res, err := t.child().Call(ctx, "server/discover", json.RawMessage(`{}`), &stdio.CallOptions{Timeout: t.host.DefaultDeadline(), Meta: meta})
		leave()
		if err != nil {
			t.finish(id, call, nil, err)
			return
		}
		caps, _ = rawjson.Member(res, "capabilities")
		if meta, ok := rawjson.Member(res, "_meta"); ok {
			info, _ = rawjson.Member(meta, protocol.MetaServerInfo)
		}
		if raw, ok := rawjson.Member(res, "instructions"); ok {
			instructions, _ = rawjson.StringValue(raw)
		}
	}
	t.finish(id, call, initializeResult(version, legacyTaskCaps(caps), info, instructions), nil)
}

// peerMeta is the 2026 _meta of a 2025 client's requests: the
// capabilities and clientInfo of its initialize and its level.
func (t *Tunnel) peerMeta() (json.RawMessage, mcpbridgev1.LoggingLevel) {
	t.mu.Lock()
	caps, info, level := t.peerCaps, t.peerInfo, t.level
	t.mu.Unlock()
	if caps == nil {
		caps = json.RawMessage(`{}`)
	}
	if level == 0 {
		level = t.child().Floor
	}
	meta := append([]byte(`{"`+protocol.MetaClientCapabilities+`":`), caps...)
	if info != nil {
		meta = append(append(meta, `,"`+protocol.MetaClientInfo+`":`...), info...)
	}
	if name := convert.LevelName(level); name != "" {
		meta = rawjson.AppendString(append(meta, `,"`+protocol.MetaLogLevel+`":`...), name)
	}
	return append(meta, '}'), level
}

// forwardToModern forwards a 2025 client's request to a 2026 child and
// answers the child's input_required results by asking the tunnel, as a
// 2025 server asks its client.
func (t *Tunnel) forwardToModern(ctx context.Context, call *tunnelCall, id json.RawMessage, method string, params json.RawMessage) {
	adm := passOf(ctx)
	params, token, err := takeProgressToken(params, adm.Meta)
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	meta, level := t.peerMeta()
	// A tools/call with params.task asks the child for a task by the
	// extension (crossera_tasks.go).
	asTask, ttl := false, int64(0)
	if task, ok := rawjson.Member(params, "task"); ok && method == "tools/call" {
		var ask struct {
			TTL *float64 `json:"ttl"`
		}
		if !rawjson.IsObject(task) || json.Unmarshal(task, &ask) != nil || ask.TTL != nil && *ask.TTL < 0 {
			t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: task must be an object, its ttl a number of milliseconds"))
			return
		}
		if ask.TTL != nil {
			ttl = int64(*ask.TTL)
		}
		params = rawjson.DeleteMember(params, "task")
		if asTask = protocol.HasTasksExtension(t.child().ServerCapabilities()); asTask {
			meta = withTasksExtension(meta)
		}
	}
	opts := &stdio.CallOptions{Timeout: adm.Deadline, Meta: meta}
	if token != nil {
		opts.Progress = t.progressTo(func() json.RawMessage { return token })
	}
	if level != 0 {
		opts.Log = t.logTo(level)
	}
	start := time.Now()
	for round := 0; ; round++ {
		res, err := t.callChild(ctx, params, opts)
		if err != nil || resultType(res) != "input_required" {
			t.audit(ctx, start, res, err)
		}
		if err != nil {
			if e := asRPCError(err); method == "tools/call" && !asTask && e.Code == jsonrpc.CodeMissingCapability && protocol.HasTasksExtension(t.child().ServerCapabilities()) {
				// A tool that runs only as a task, called without one: as
				// a 2025-11-25 server refuses it.
				err = jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: this tool runs only as a task (params.task)")
			}
			t.finish(id, call, nil, err)
			return
		}
		if resultType(res) == "task" {
			t.finish(id, call, t.legacyCreated(res, ttl), nil)
			return
		}
		if resultType(res) != "input_required" {
			t.finish(id, call, legacyResult(t.host.FilterList(t.ctx, method, res)), nil)
			return
		}
		if round == maxInputRounds {
			t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError,
				"The server still needed input after %d rounds", maxInputRounds))
			return
		}
		if params, err = t.answerInputs(ctx, params, res); err != nil {
			t.finish(id, call, nil, err)
			return
		}
	}
}

// answerInputs asks the tunnel every input request of an input_required
// result at once and returns params for the retry: inputResponses with
// the answers, requestState echoed.
func (t *Tunnel) answerInputs(ctx context.Context, params, res json.RawMessage) (json.RawMessage, error) {
	type answer struct {
		key string
		res json.RawMessage
		err error
	}
	var asks []rawjson.Field
	if reqs, ok := rawjson.Member(res, "inputRequests"); ok {
		asks = rawjson.Fields(reqs)
	}
	done := make(chan answer, len(asks))
	for _, f := range asks {
		go func() {
			m, _ := rawjson.Member(f.Value, "method")
			method, _ := rawjson.StringValue(m)
			p, _ := rawjson.Member(f.Value, "params")
			out, err := t.Ask(ctx, fanout.MintID(), stdio.ServerRequest{Method: method, Params: p}, t.child().Relay.Timeout)
			done <- answer{f.Key, out, err}
		}()
	}
	responses := []byte{'{'}
	var first error
	for range asks {
		a := <-done
		if a.err != nil {
			if first == nil {
				first = a.err
			}
			continue
		}
		if len(responses) > 1 {
			responses = append(responses, ',')
		}
		responses = append(append(rawjson.AppendString(responses, a.key), ':'), a.res...)
	}
	if first != nil {
		return nil, first
	}
	responses = append(responses, '}')
	out, err := rawjson.SetMember(params, "inputResponses", responses)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: params must be a JSON object")
	}
	if state, ok := rawjson.Member(res, "requestState"); ok {
		return rawjson.SetMember(out, "requestState", state)
	}
	return rawjson.DeleteMember(out, "requestState"), nil
}

// legacyResult is a 2026 result as a 2025 client expects it: without
// resultType, the cache hints and the serverInfo _meta.
//
// It is one pass over the result's members, in order and byte for byte,
// on the path of every translated call (a second pass reads _meta alone).
func legacyResult(res json.RawMessage) json.RawMessage {
	out := append(make(json.RawMessage, 0, len(res)), '{')
	rawjson.EachRawField(res, func(rawKey, value json.RawMessage) bool {
		switch {
		case rawjson.KeyIs(rawKey, "resultType"), rawjson.KeyIs(rawKey, "ttlMs"), rawjson.KeyIs(rawKey, "cacheScope"):
			return true
		case rawjson.KeyIs(rawKey, "_meta") && rawjson.IsObject(value):
			if value = legacyMeta(value); value == nil {
				return true
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, rawKey...), ':'), value...)
		return true
	})
	return append(out, '}')
}

// legacyMeta is a 2026 result's _meta without the server's own keys, nil
// when nothing is left of it.
func legacyMeta(meta json.RawMessage) json.RawMessage {
	var out json.RawMessage
	rawjson.EachRawField(meta, func(rawKey, value json.RawMessage) bool {
		if rawjson.KeyIs(rawKey, protocol.MetaServerInfo) {
			return true
		}
		if out == nil {
			out = append(make(json.RawMessage, 0, len(meta)), '{')
		} else {
			out = append(out, ',')
		}
		out = append(append(append(out, rawKey...), ':'), value...)
		return true
	})
	if out == nil {
		return nil
	}
	return append(out, '}')
}

// dropMetaKeys deletes keys from obj._meta, and _meta itself when nothing
// is left of it.
func dropMetaKeys(obj json.RawMessage, keys ...string) json.RawMessage {
	meta, ok := rawjson.Member(obj, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		return obj
	}
	for _, key := range keys {
		meta = rawjson.DeleteMember(meta, key)
	}
	if len(rawjson.Fields(meta)) == 0 {
		return rawjson.DeleteMember(obj, "_meta")
	}
	out, err := rawjson.SetMember(obj, "_meta", meta)
	if err != nil {
		return obj
	}
	return out
}

// resultType is a result's resultType, "complete" when absent.
func resultType(res json.RawMessage) string {
	raw, ok := rawjson.Member(res, "resultType")
	if !ok {
		return "complete"
	}
	s, _ := rawjson.StringValue(raw)
	return s
}

// listenURI is a 2025 client's resources/subscribe on a 2026 child: a
// subscriptions/listen of its own for the URI, whose updates reach the
// tunnel as notifications/resources/updated until unsubscribe or the
// tunnel's end.
func (t *Tunnel) listenURI(ctx context.Context, call *tunnelCall, id json.RawMessage, uri string) {
	t.mu.Lock()
	held := t.uriListens[uri] != nil
	t.mu.Unlock()
	if held {
		t.finish(id, call, json.RawMessage(`{}`), nil)
		return
	}
	meta, _ := t.peerMeta()
	filter := append(rawjson.AppendString([]byte(`{"resourceSubscriptions":[`), uri), ']', '}')
	sub, err := t.child().Listen(ctx, filter, &stdio.ListenOptions{
		Timeout: t.host.DefaultDeadline(), MaxBuffer: fanout.StreamBuffer, Overflow: stdio.DropOldest, Meta: meta,
	})
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	t.mu.Lock()
	if t.closing || t.uriListens[uri] != nil {
		t.mu.Unlock()
		sub.Close()
		t.finish(id, call, json.RawMessage(`{}`), nil)
		return
	}
	t.uriListens[uri] = sub
	t.mu.Unlock()
	t.finish(id, call, json.RawMessage(`{}`), nil)
	for { // until unsubscribe or stopIntake closes sub
		ev, err := sub.Next(t.ctx)
		if err != nil {
			t.mu.Lock()
			if t.uriListens[uri] == sub {
				delete(t.uriListens, uri)
			}
			t.mu.Unlock()
			sub.Close()
			return
		}
		if ev.Method != "notifications/resources/updated" {
			continue
		}
		t.notes.Push(wire.AppendNotification(nil, ev.Method, dropMetaKeys(ev.Params, protocol.MetaSubscriptionID)))
	}
}

// progressTo relays a call's progress under the tunnel's token of the
// moment.
func (t *Tunnel) progressTo(token func() json.RawMessage) func(stdio.Progress) {
	return func(p stdio.Progress) {
		tok := token()
		if tok == nil {
			return
		}
		if raw, err := rawjson.SetMember(p.Raw, "progressToken", tok); err == nil {
			t.push(wire.AppendNotification(nil, "notifications/progress", raw))
		}
	}
}

// logTo relays a call's log messages at level or above.
func (t *Tunnel) logTo(level mcpbridgev1.LoggingLevel) func(stdio.Notification) {
	return func(n stdio.Notification) {
		raw, _ := rawjson.Member(n.Params, "level")
		name, _ := rawjson.StringValue(raw)
		if convert.Level(name) >= level {
			t.push(wire.AppendNotification(nil, n.Method, n.Params))
		}
	}
}
