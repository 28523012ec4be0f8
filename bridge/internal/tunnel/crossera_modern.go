package tunnel

// The 2026 client on a 2025 child side of a cross-era tunnel
// (crossera.go): validation, server/discover, stamped results and
// subscriptions/listen. Its input rounds are in inputrounds.go.

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

// modernCall is what a 2026 request declares in its _meta.
type modernCall struct {
	caps  json.RawMessage
	level mcpbridgev1.LoggingLevel // 0: no logs
}

func (t *Tunnel) modernOnLegacy(id json.RawMessage, method string, params, meta json.RawMessage) func(context.Context, *tunnelCall) {
	mc, e := t.validateModern(method, params, meta)
	if e != nil {
		t.fail(id, e)
		return nil
	}
	switch method {
	case "server/discover":
		t.respond(id, t.discoverResult())
		return nil
	case "subscriptions/listen":
		return func(ctx context.Context, call *tunnelCall) { t.legacyListen(ctx, call, id, params) }
	case "tools/call", "prompts/get", "resources/read":
		return func(ctx context.Context, call *tunnelCall) { t.inputCall(ctx, call, id, method, params, mc) }
	case "tasks/get", "tasks/update", "tasks/cancel":
		if !protocol.HasTasksExtension(mc.caps) {
			t.fail(id, missingTasksExtension())
			return nil
		}
		return func(ctx context.Context, call *tunnelCall) { t.modernTask(ctx, call, id, method, params) }
	}
	return func(ctx context.Context, call *tunnelCall) { t.forwardToLegacy(ctx, call, id, method, params, mc) }
}

// validateModern checks a 2026 request as a 2026 server does, in the order
// of docs/protocol.md, "Validation order".
func (t *Tunnel) validateModern(method string, params, meta json.RawMessage) (modernCall, *jsonrpc.Error) {
	invalid := func(format string, args ...any) *jsonrpc.Error {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: "+format, args...)
	}
	if params == nil {
		params = json.RawMessage(`{}`)
	}
	if !rawjson.IsObject(params) {
		return modernCall{}, invalid("params must be an object")
	}
	version, has := protocol.VersionIn(meta)
	switch {
	case meta == nil:
		return modernCall{}, invalid(protocol.NoMeta)
	case !has:
		return modernCall{}, invalid("_meta.%s is required", protocol.MetaProtocolVersion)
	case version == "":
		return modernCall{}, invalid("_meta.%s must be a string", protocol.MetaProtocolVersion)
	case !protocol.Modern(version):
		return modernCall{}, jsonrpc.WithData(jsonrpc.CodeUnsupportedVersion, "Unsupported protocol version: "+version,
			struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}{t.supportedVersions(), version})
	}
	caps, ok := rawjson.Member(meta, protocol.MetaClientCapabilities)
	switch {
	case !ok:
		return modernCall{}, invalid("_meta.%s is required", protocol.MetaClientCapabilities)
	case !rawjson.IsObject(caps):
		return modernCall{}, invalid("_meta.%s must be an object", protocol.MetaClientCapabilities)
	}
	switch {
	case method == "subscriptions/listen":
	case slices.Contains(protocol.InputMethods, method):
		return modernCall{}, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"%s is not a request in protocol version %s; it travels inside input_required results", method, version)
	case slices.Contains(protocol.ModernTaskMethods, method) && t.childTasks():
	case !slices.Contains(protocol.ModernMethods, method):
		return modernCall{}, fanout.MethodNotFound(method)
	}
	mc := modernCall{caps: caps}
	if raw, ok := rawjson.Member(meta, protocol.MetaLogLevel); ok {
		name, _ := rawjson.StringValue(raw)
		if mc.level = convert.Level(name); mc.level == 0 {
			return modernCall{}, invalid("_meta.%s must be a logging level", protocol.MetaLogLevel)
		}
	}
	return mc, nil
}

// supportedVersions are the versions a 2026 client may use on this tunnel:
// 2026-07-28, translated, and the child's own.
func (t *Tunnel) supportedVersions() []string {
	return []string{protocol.Version20260728, t.child().Protocol()}
}

// modernCaps are the child's capabilities as a 2026 server declares them:
// the legacy tasks capability as the tasks extension (crossera_tasks.go).
func (t *Tunnel) modernCaps() json.RawMessage {
	caps := t.child().ServerCapabilities()
	if !rawjson.IsObject(caps) {
		return json.RawMessage(`{}`)
	}
	tasks := legacyTasks(caps)
	caps = rawjson.DeleteMember(caps, "tasks")
	if tasks {
		ext, ok := rawjson.Member(caps, "extensions")
		if !ok || !rawjson.IsObject(ext) {
			ext = json.RawMessage(`{}`)
		}
		caps = withMember(caps, "extensions", withMember(ext, protocol.TasksExtension, json.RawMessage(`{}`)))
	}
	return caps
}

// discoverResult answers server/discover from what the bridge negotiated
// with the legacy child.
func (t *Tunnel) discoverResult() json.RawMessage {
	out := []byte(`{"resultType":"complete","supportedVersions":[`)
	for i, v := range t.supportedVersions() {
		if i > 0 {
			out = append(out, ',')
		}
		out = rawjson.AppendString(out, v)
	}
	out = append(append(append(out, `],"capabilities":`...), t.modernCaps()...), `,"ttlMs":0,"cacheScope":"private"`...)
	if in := t.child().Instructions(); in != "" {
		out = rawjson.AppendString(append(out, `,"instructions":`...), in)
	}
	if info := t.child().ServerInfo(); rawjson.IsObject(info) {
		out = append(append(append(out, `,"_meta":{"`+protocol.MetaServerInfo+`":`...), info...), '}')
	}
	return append(out, '}')
}

// cacheable are the methods whose 2026 complete results carry cache hints.
var cacheable = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}

// modernResult stamps a legacy child's result as a 2026 server would:
// resultType, the serverInfo _meta and, where required, cache hints that
// promise nothing (stale at once, private).
func (t *Tunnel) modernResult(method string, res json.RawMessage) json.RawMessage {
	if !rawjson.IsObject(res) {
		return res
	}
	set := func(key string, v json.RawMessage) {
		if _, ok := rawjson.Member(res, key); !ok {
			if out, err := rawjson.SetMember(res, key, v); err == nil {
				res = out
			}
		}
	}
	set("resultType", json.RawMessage(`"complete"`))
	if slices.Contains(cacheable, method) {
		set("ttlMs", json.RawMessage(`0`))
		set("cacheScope", json.RawMessage(`"private"`))
	}
	if info := t.child().ServerInfo(); rawjson.IsObject(info) {
		meta, ok := rawjson.Member(res, "_meta")
		if !ok || !rawjson.IsObject(meta) {
			meta = json.RawMessage(`{}`)
		}
		if _, ok := rawjson.Member(meta, protocol.MetaServerInfo); !ok {
			if meta, err := rawjson.SetMember(meta, protocol.MetaServerInfo, info); err == nil {
				if out, err := rawjson.SetMember(res, "_meta", meta); err == nil {
					res = out
				}
			}
		}
	}
	return res
}

// modernError is a legacy child's error as 2026 gives it: a missing
// resource is -32602 there, where 2025 had -32002 (docs/protocol.md,
// "Removed methods").
func modernError(err error) error {
	e := asRPCError(err)
	if e.Code != jsonrpc.CodeResourceNotFound {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message, Data: e.Data}
}

// legacyParams removes the 2026 keys from params._meta (and _meta when
// nothing else is left): a legacy child would take them for its own.
func legacyParams(params json.RawMessage) json.RawMessage {
	return dropMetaKeys(params, protocol.MetaProtocolVersion, protocol.MetaClientCapabilities, protocol.MetaClientInfo, protocol.MetaLogLevel)
}

// legacyOptions are the call options of a 2026 request on a legacy child:
// its own progress token and, when it set a level, its logs, with the
// child held at that level meanwhile (release when the call ends).
func (t *Tunnel) legacyOptions(deadline time.Duration, mc modernCall, token func() json.RawMessage) (*stdio.CallOptions, func()) {
	opts := &stdio.CallOptions{Timeout: deadline, Verbatim: true}
	if token() != nil {
		opts.Progress = t.progressTo(token)
	}
	release := func() {}
	if mc.level != 0 {
		release = t.child().Level.Want(t.ctx, mc.level)
		opts.Log = t.logTo(mc.level)
	}
	return opts, release
}

// forwardToLegacy forwards a 2026 request that never asks for input.
func (t *Tunnel) forwardToLegacy(ctx context.Context, call *tunnelCall, id json.RawMessage, method string, params json.RawMessage, mc modernCall) {
	adm := passOf(ctx)
	params, token, err := takeProgressToken(params, adm.Meta)
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	opts, release := t.legacyOptions(adm.Deadline, mc, func() json.RawMessage { return token })
	defer release()
	start := time.Now()
	res, err := t.callChild(ctx, legacyParams(params), opts)
	t.audit(ctx, start, res, err)
	if err != nil {
		t.finish(id, call, nil, modernError(err))
		return
	}
	t.finish(id, call, t.modernResult(method, t.host.FilterList(t.ctx, method, res)), nil)
}

// crossListen is a 2026 client's subscriptions/listen on a legacy child,
// served from the child's unsolicited notifications.
type crossListen struct {
	id                        json.RawMessage
	tools, prompts, resources bool     // list_changed kinds
	uris                      []string // resource subscriptions held on the relay
}

// legacyListen serves subscriptions/listen: the kinds the child declares
// are acknowledged, URIs are subscribed on the child (reference-counted
// with every other subscriber), and matching notifications are relayed
// tagged with the listen's id until the client cancels it or the tunnel
// ends.
func (t *Tunnel) legacyListen(ctx context.Context, call *tunnelCall, id, params json.RawMessage) {
	filter, ok := rawjson.Member(params, "notifications")
	if !ok || !rawjson.IsObject(filter) {
		t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: subscriptions/listen needs a notifications object"))
		return
	}
	caps := t.child().ServerCapabilities()
	l := &crossListen{id: id}
	wants := func(flag, kind string) bool {
		v, _ := rawjson.Member(filter, flag)
		return string(v) == "true" && protocol.Capability(caps, kind, "listChanged")
	}
	l.tools, l.prompts, l.resources = wants("toolsListChanged", "tools"), wants("promptsListChanged", "prompts"), wants("resourcesListChanged", "resources")
	if uris, ok := rawjson.Member(filter, "resourceSubscriptions"); ok && protocol.Capability(caps, "resources", "subscribe") {
		rawjson.Elements(uris, func(_ int, v json.RawMessage) bool {
			uri, ok := rawjson.StringValue(v)
			if ok && uri != "" && !slices.Contains(l.uris, uri) &&
				t.child().Relay.SubscribeURI(ctx, t.child().Client, uri, t.host.DefaultDeadline()) == nil {
				l.uris = append(l.uris, uri)
			}
			return true
		})
	}
	defer func() {
		for _, uri := range l.uris {
			t.child().Relay.UnsubscribeURI(t.child().Client, uri, t.host.DefaultDeadline())
		}
	}()
	key := string(id)
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		t.done(id, call)
		return
	}
	t.xlistens[key] = l
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if t.xlistens[key] == l {
			delete(t.xlistens, key)
		}
		t.mu.Unlock()
	}()
	ack := []byte(`{"notifications":{`)
	sep := ""
	for _, f := range []struct {
		name string
		on   bool
	}{{"toolsListChanged", l.tools}, {"promptsListChanged", l.prompts}, {"resourcesListChanged", l.resources}} {
		if f.on {
			ack = append(ack, sep+`"`+f.name+`":true`...)
			sep = ","
		}
	}
	if l.uris != nil {
		ack = append(ack, sep+`"resourceSubscriptions":[`...)
		for i, uri := range l.uris {
			if i > 0 {
				ack = append(ack, ',')
			}
			ack = rawjson.AppendString(ack, uri)
		}
		ack = append(ack, ']')
	}
	ack = append(append(append(ack, `},"_meta":{"`+protocol.MetaSubscriptionID+`":`...), id...), '}', '}')
	t.push(wire.AppendNotification(nil, "notifications/subscriptions/acknowledged", ack))
	select { // the client cancels it, or the tunnel ends: nothing more is sent
	case <-ctx.Done():
	case <-t.intake:
	}
	t.done(id, call)
}

// crossNotify is notify for a 2026 client on a legacy child: list_changed
// and resources/updated go to the listens that asked for them, tagged;
// nothing else is sent unsolicited in 2026 (logs belong to requests).
func (t *Tunnel) crossNotify(n stdio.Notification) {
	var match func(*crossListen) bool
	switch n.Method {
	case "notifications/tools/list_changed":
		match = func(l *crossListen) bool { return l.tools }
	case "notifications/prompts/list_changed":
		match = func(l *crossListen) bool { return l.prompts }
	case "notifications/resources/list_changed":
		match = func(l *crossListen) bool { return l.resources }
	case "notifications/resources/updated":
		raw, _ := rawjson.Member(n.Params, "uri")
		uri, _ := rawjson.StringValue(raw)
		match = func(l *crossListen) bool {
			return slices.ContainsFunc(l.uris, func(sub string) bool { return protocol.Covers(sub, uri) })
		}
	default:
		return
	}
	params := n.Params
	if params == nil {
		params = json.RawMessage(`{}`)
	}
	meta, ok := rawjson.Member(params, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		meta = json.RawMessage(`{}`)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.xlistens {
		if !match(l) {
			continue
		}
		m, err := rawjson.SetMember(meta, protocol.MetaSubscriptionID, l.id)
		if err != nil {
			continue
		}
		if out, err := rawjson.SetMember(params, "_meta", m); err == nil {
			t.notes.Push(wire.AppendNotification(nil, n.Method, out))
		}
	}
}
