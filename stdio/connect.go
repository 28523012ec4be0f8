package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// The protocol versions this module speaks, newest first: 2026-07-28 (the
// stateless era) and the two legacy revisions, which start with initialize.
// This package is their one home: they are what [ConnectConfig.Versions]
// allows and [Client.Protocol] reports here, and what the server runtime's
// mcp.Config.Versions enables and mcp.Request.ProtocolVersion reports
// (package [github.com/mcpbridge/mcpbridge/stdio/mcp]).
const (
	Version20260728 = protocol.Version20260728
	Version20251125 = protocol.Version20251125
	Version20250618 = protocol.Version20250618
)

// DefaultVersions returns every version this module speaks, in preference
// order: the default of ConnectConfig.Versions, and of the server
// runtime's mcp.Config.Versions. Each call returns a new slice.
func DefaultVersions() []string { return slices.Clone(protocol.Versions) }

// Defaults of ConnectConfig.
const (
	// DefaultHandshakeTimeout bounds a whole Connect after the first
	// spawn: probe, initialize and any second spawn.
	DefaultHandshakeTimeout = 15 * time.Second
	// DefaultProbeTimeout bounds the server/discover probe within it.
	DefaultProbeTimeout = 5 * time.Second
)

// ConnectConfig says which protocol versions [Connect] may settle on and
// how the client introduces itself. The zero value means the defaults.
type ConnectConfig struct {
	// Versions are the allowed versions in preference order (default
	// DefaultVersions()). A single version, or versions of one era only,
	// skip the server/discover probe.
	Versions []string
	// HandshakeTimeout bounds the whole negotiation (default 15 s): a
	// child that does not complete it in time is closed and Connect
	// returns -32001. On Linux it counts from the moment the child takes
	// the probe off its stdin, which it must do within HandshakeTimeout
	// of its spawn (a slow starter: go run, npx).
	HandshakeTimeout time.Duration
	// ProbeTimeout bounds the server/discover probe (default 5 s, never
	// more than HandshakeTimeout). A child that stays silent for it, on
	// Linux counted from the moment it took the probe off its stdin, is
	// taken for a legacy server and sent initialize.
	ProbeTimeout time.Duration
	// ClientInfo is the client's Implementation object (default
	// {"name":"mcpbridge","version":"dev"}).
	ClientInfo json.RawMessage
	// Capabilities is the ClientCapabilities object (default {}).
	Capabilities json.RawMessage
}

// era is what Connect negotiated; a raw Client (Start alone) has none and
// sends exactly what it is given.
type era struct {
	version      string
	modern       bool
	stamp        []rawjson.Field // the _meta keys every 2026 request carries
	serverInfo   json.RawMessage
	capabilities json.RawMessage
	instructions string
	reason       string // how Connect settled on version
}

// Protocol returns the negotiated protocol version ("" on a raw Client).
func (c *Client) Protocol() string {
	e := c.era.Load()
	if e == nil {
		return ""
	}
	return e.version
}

// ServerInfo returns the server's Implementation object as sent, or nil
// when it is unknown (a raw Client, or a pinned 2026-07-28 connection).
func (c *Client) ServerInfo() json.RawMessage {
	e := c.era.Load()
	if e == nil {
		return nil
	}
	return e.serverInfo
}

// ServerCapabilities returns the server's capabilities as sent, or nil.
func (c *Client) ServerCapabilities() json.RawMessage {
	e := c.era.Load()
	if e == nil {
		return nil
	}
	return e.capabilities
}

// ClientCapabilities returns the capabilities the Client declares to a
// 2026-07-28 server in each request's _meta (ConnectConfig.Capabilities),
// nil on a raw Client or a legacy connection.
func (c *Client) ClientCapabilities() json.RawMessage {
	e := c.era.Load()
	if e == nil || !e.modern {
		return nil
	}
	return e.stamp[1].Value
}

// Negotiation says how Connect settled on the protocol version, for logs:
// for example "server/discover answered", "server/discover answered
// -32601: a legacy server", "pinned". It is "" on a raw Client.
func (c *Client) Negotiation() string {
	e := c.era.Load()
	if e == nil {
		return ""
	}
	return e.reason
}

// Instructions returns the server's instructions, or "".
func (c *Client) Instructions() string {
	e := c.era.Load()
	if e == nil {
		return ""
	}
	return e.instructions
}

// refuse refuses, locally, a method that exists only in the other era, so
// that it never reaches the child.
func (e *era) refuse(method string) error {
	other := protocol.ModernOnly
	if e != nil && e.modern {
		other = protocol.LegacyOnly
	}
	if e == nil || !slices.Contains(other, method) {
		return nil
	}
	return jsonrpc.WithData(jsonrpc.CodeMethodNotFound, "Method not found in the negotiated protocol version",
		map[string]string{"method": method, "protocolVersion": e.version})
}

// params merges _meta into the request params (docs/stdio.md,
// "Negotiation"): stamped keys, then the params' own _meta, then
// CallOptions.Meta, then the progress token; the last writer of a key wins.
// Every member is re-emitted byte for byte.
func (e *era) params(raw, meta, token json.RawMessage) (json.RawMessage, error) {
	modern := e != nil && e.modern
	if !modern && token == nil && meta == nil {
		return raw, nil
	}
	if raw != nil && !rawjson.IsObject(raw) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params must be a JSON object")
	}
	var extra []rawjson.Field
	if meta != nil {
		m, err := rawjson.Compact(meta)
		if err != nil || !rawjson.IsObject(m) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "CallOptions.Meta must be a JSON object")
		}
		extra = rawjson.Fields(m)
	}
	out := append(make([]byte, 0, len(raw)+256), '{')
	var own []rawjson.Field
	members := 0
	for _, f := range rawjson.Fields(raw) {
		if f.Key == "_meta" {
			if !rawjson.IsObject(f.Value) {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params._meta must be a JSON object")
			}
			own = append(own, rawjson.Fields(f.Value)...)
			continue
		}
		out = appendSep(out, &members)
		out = appendField(out, f)
	}
	callers := append(own, extra...)
	for _, f := range callers {
		switch {
		case f.Key == "progressToken" && token != nil:
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "progressToken is set by the client when a progress callback is given")
		case f.Key == protocol.MetaProtocolVersion && modern:
			if v, _ := rawjson.StringValue(f.Value); v != e.version {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s conflicts with the negotiated version %s", protocol.MetaProtocolVersion, e.version)
			}
		}
	}
	out = appendSep(out, &members)
	out = append(out, `"_meta":{`...)
	n := 0
	if modern {
		for _, f := range e.stamp {
			if !hasKey(callers, f.Key) {
				out = appendSep(out, &n)
				out = appendField(out, f)
			}
		}
	}
	for i, f := range own {
		if !hasKey(extra, f.Key) && !hasKey(own[i+1:], f.Key) {
			out = appendSep(out, &n)
			out = appendField(out, f)
		}
	}
	for i, f := range extra {
		if !hasKey(extra[i+1:], f.Key) {
			out = appendSep(out, &n)
			out = appendField(out, f)
		}
	}
	if token != nil {
		out = appendSep(out, &n)
		out = append(out, `"progressToken":`...)
		out = append(out, token...)
	}
	return append(out, "}}"...), nil
}

func hasKey(fields []rawjson.Field, key string) bool {
	for _, f := range fields {
		if f.Key == key {
			return true
		}
	}
	return false
}

func appendSep(out []byte, n *int) []byte {
	if *n > 0 {
		out = append(out, ',')
	}
	*n++
	return out
}

func appendField(out []byte, f rawjson.Field) []byte {
	out = append(out, f.RawKey...)
	out = append(out, ':')
	return append(out, f.Value...)
}

func newEra(version string, cfg *ConnectConfig, reason string) *era {
	e := &era{version: version, modern: protocol.Modern(version), reason: reason}
	if e.modern {
		e.stamp = []rawjson.Field{
			{Key: protocol.MetaProtocolVersion, RawKey: rawjson.AppendString(nil, protocol.MetaProtocolVersion), Value: rawjson.AppendString(nil, version)},
			{Key: protocol.MetaClientCapabilities, RawKey: rawjson.AppendString(nil, protocol.MetaClientCapabilities), Value: cfg.Capabilities},
			{Key: protocol.MetaClientInfo, RawKey: rawjson.AppendString(nil, protocol.MetaClientInfo), Value: cfg.ClientInfo},
		}
	}
	return e
}

func (cfg *ConnectConfig) normalize() error {
	if len(cfg.Versions) == 0 {
		cfg.Versions = protocol.Versions // only read, never modified: no copy
	}
	for _, v := range cfg.Versions {
		if !protocol.Supported(v) {
			return jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Unsupported protocol version requested",
				map[string][]string{"requested": cfg.Versions, "supported": protocol.Versions})
		}
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = DefaultProbeTimeout
	}
	cfg.ProbeTimeout = min(cfg.ProbeTimeout, cfg.HandshakeTimeout)
	var err error
	if cfg.ClientInfo == nil {
		cfg.ClientInfo = json.RawMessage(`{"name":"mcpbridge","version":"dev"}`)
	} else if cfg.ClientInfo, err = rawjson.Compact(cfg.ClientInfo); err != nil || !rawjson.IsObject(cfg.ClientInfo) {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ConnectConfig: ClientInfo must be a JSON object")
	}
	if cfg.Capabilities == nil {
		cfg.Capabilities = json.RawMessage(`{}`)
	} else if cfg.Capabilities, err = rawjson.Compact(cfg.Capabilities); err != nil || !rawjson.IsObject(cfg.Capabilities) {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ConnectConfig: Capabilities must be a JSON object")
	}
	return nil
}

// Connect starts a child with start and negotiates the protocol version
// with it (docs/stdio.md, "Negotiation"; docs/protocol.md,
// "Era detection"). start is the caller's spawn function, typically a
// closure over [Start]; Connect calls it a second time only when the first
// child died or sent garbage during the server/discover probe, after
// closing that child without waiting for it. The whole negotiation is
// bounded by ConnectConfig.HandshakeTimeout.
//
// With both eras allowed, Connect probes with server/discover: a result or
// a -32022/-32021/-32020 error means a 2026-07-28 server; another error,
// or silence for ProbeTimeout once the child has read the probe (a child
// still starting reads nothing), means a legacy one, which gets initialize on
// the same child with the first allowed legacy version and then
// notifications/initialized. A server that refuses initialize with -32022
// naming 2026-07-28 among its versions is a 2026-07-28 server after all. A
// pinned version, or versions of one era only, skip the probe.
//
// On success the returned Client stamps the required _meta on every
// request of a 2026-07-28 connection and refuses methods of the other era
// locally; [Client.Negotiation] says how the version was chosen. On
// failure every child started is closed.
func Connect(ctx context.Context, start func(context.Context) (*Client, error), cfg ConnectConfig) (*Client, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	var legacy []string
	for _, v := range cfg.Versions {
		if v != Version20260728 {
			legacy = append(legacy, v)
		}
	}
	c, err := start(ctx)
	if err != nil {
		return nil, err
	}
	hs := &handshake{cfg: &cfg, legacy: legacy, deadline: time.Now().Add(cfg.HandshakeTimeout)}
	switch {
	case len(legacy) == 0: // pinned 2026-07-28: nothing to send
		c.era.Store(newEra(Version20260728, &cfg, "pinned"))
		return c, nil
	case len(legacy) == len(cfg.Versions):
		return hs.initialize(ctx, c, legacy, "legacy versions only")
	}

	res, err := hs.probe(ctx, c)
	if errors.Is(err, errProbeUntaken) {
		c.Close()
		return nil, hs.timeoutError()
	}
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		supported, _ := stringList(res, "supportedVersions")
		if supported == nil {
			break // a result without supportedVersions is no DiscoverResult
		}
		return hs.settle(ctx, c, supported, res, "server/discover answered")
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeUnsupportedVersion:
		if supported, ok := stringList(rpcErr.Data, "supported"); ok {
			return hs.settle(ctx, c, supported, nil, "server/discover answered -32022")
		}
	case errors.As(err, &rpcErr) && (rpcErr.Code == jsonrpc.CodeMissingCapability || rpcErr.Code == jsonrpc.CodeHeaderMismatch):
		c.era.Store(newEra(Version20260728, &cfg, fmt.Sprintf("server/discover answered %d", rpcErr.Code)))
		return c, nil
	}
	if ctx.Err() != nil {
		c.Close()
		return nil, ctxError(ctx)
	}
	// A legacy verdict. The same child gets initialize after a clean
	// JSON-RPC error or after silence (a server that ignores requests
	// before initialize); a second copy is started only when this one died
	// or answered with garbage, which may have left it in a bad state.
	var why string
	switch {
	case err == nil:
		why = "server/discover answered without supportedVersions: a legacy server"
	case cleanReply(c, err):
		why = fmt.Sprintf("server/discover answered %d: a legacy server", rpcErr.Code)
		ok, err := hs.initialize(ctx, c, legacy, why)
		var e *jsonrpc.Error
		if err == nil || ctx.Err() != nil || hs.expired() || !errors.As(err, &e) ||
			e.Code == jsonrpc.CodeRequestTimeout || (e.Code == jsonrpc.CodeInvalidParams && len(e.Data) > 0) {
			return ok, err
		}
		// A strict server refuses initialize after any other request: a
		// fresh copy gets initialize alone.
		why += "; initialize refused after the probe (" + err.Error() + "), so on a fresh child"
		if c, err = start(ctx); err != nil {
			return nil, err
		}
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeRequestTimeout && c.Err() == nil:
		why = "server/discover unanswered in " + cfg.ProbeTimeout.String() + ": a legacy server"
	default:
		c.Close()
		if hs.expired() {
			return nil, hs.timeoutError()
		}
		why = "the first child failed server/discover (" + err.Error() + "): a legacy server"
		if c, err = start(ctx); err != nil {
			return nil, err
		}
	}
	return hs.initialize(ctx, c, legacy, why)
}

// handshake is one Connect's negotiation state: its settings and the
// deadline of the whole handshake.
type handshake struct {
	cfg      *ConnectConfig
	legacy   []string
	deadline time.Time
}

// errProbeUntaken is the cause with which a probe ends when the child did
// not take it off its stdin within HandshakeTimeout of its start.
var errProbeUntaken = errors.New("stdio: the child did not read the server/discover probe")

// probePoll is how often the probe looks at the child's stdin until the
// child has taken the request.
const probePoll = 10 * time.Millisecond

// probe sends server/discover and returns its outcome. Silence is timed
// from the moment the child has taken the request off its stdin, not from
// the spawn: a launcher that builds or downloads the server first (go
// run, npx, uvx, docker run) reads nothing meanwhile, and its wait is not
// the silence of a legacy server that ignores requests before
// initialize. Once taken, ProbeTimeout of silence is a timeout (-32001)
// and the handshake gets HandshakeTimeout from then; a child that takes
// nothing for HandshakeTimeout after its spawn fails with errProbeUntaken.
// Where the pipe cannot tell (not Linux, or a connection made by Open),
// the clock starts at the spawn as before.
func (hs *handshake) probe(ctx context.Context, c *Client) (json.RawMessage, error) {
	cfg := hs.cfg
	params, _ := newEra(Version20260728, cfg, "").params(nil, nil, nil)
	if _, known := c.inputTaken(); !known {
		return c.call(ctx, "server/discover", params, &CallOptions{Timeout: hs.timeout(cfg.ProbeTimeout)})
	}
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	untaken := time.NewTimer(time.Until(hs.deadline))
	defer untaken.Stop()
	done := make(chan struct{})
	watched := make(chan time.Time, 1) // when the child took the probe; zero if never
	go func() {
		var taken time.Time
		defer func() { watched <- taken }()
		tick := time.NewTicker(probePoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-untaken.C:
				cancel(errProbeUntaken)
				return
			case <-tick.C:
			}
			if ok, _ := c.inputTaken(); ok {
				break
			}
		}
		taken = time.Now()
		silent := time.NewTimer(cfg.ProbeTimeout)
		defer silent.Stop()
		select {
		case <-done:
		case <-silent.C:
			cancel(errProbeSilent)
		}
	}()
	// The call's own bound is a backstop: the watcher ends it first.
	res, err := c.call(pctx, "server/discover", params, &CallOptions{Timeout: cfg.HandshakeTimeout + cfg.ProbeTimeout})
	close(done)
	if taken := <-watched; !taken.IsZero() {
		hs.deadline = later(hs.deadline, taken.Add(cfg.HandshakeTimeout))
	}
	if err != nil && ctx.Err() == nil {
		switch context.Cause(pctx) {
		case errProbeSilent:
			return nil, timeoutError(cfg.ProbeTimeout)
		case errProbeUntaken:
			return nil, errProbeUntaken
		}
	}
	return res, err
}

// errProbeSilent is the cause with which a probe ends when the child took
// it and said nothing for ProbeTimeout.
var errProbeSilent = errors.New("stdio: server/discover unanswered")

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// timeout is d cut to what is left of the handshake (at least 1 ms, so
// that an expired handshake times out rather than waiting for ever).
func (hs *handshake) timeout(d time.Duration) time.Duration {
	return max(min(d, time.Until(hs.deadline)), time.Millisecond)
}

func (hs *handshake) expired() bool { return !time.Now().Before(hs.deadline) }

func (hs *handshake) timeoutError() *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeRequestTimeout, "The server did not complete the handshake in time",
		map[string]int64{"timeoutMs": hs.cfg.HandshakeTimeout.Milliseconds()})
}

// cleanReply reports whether err is a JSON-RPC error the child sent, with
// the connection still healthy, as opposed to a local timeout or a dead or
// misbehaving connection.
func cleanReply(c *Client, err error) bool {
	var e *jsonrpc.Error
	if !errors.As(err, &e) || c.Err() != nil {
		return false
	}
	return e.Code != jsonrpc.CodeRequestTimeout && e.Message != "Invalid JSON-RPC response"
}

// settle picks the first allowed version the server supports. 2026-07-28
// needs no handshake; a legacy version gets initialize on the same child,
// which a modern verdict proves untainted.
func (hs *handshake) settle(ctx context.Context, c *Client, supported []string, discover json.RawMessage, why string) (*Client, error) {
	cfg := hs.cfg
	for _, v := range cfg.Versions {
		if !slices.Contains(supported, v) {
			continue
		}
		if v != Version20260728 {
			order := append([]string{v}, slices.DeleteFunc(slices.Clone(hs.legacy), func(l string) bool { return l == v })...)
			return hs.initialize(ctx, c, order, why+"; "+v+" is the first version in common")
		}
		e := newEra(v, cfg, why)
		if discover != nil {
			if meta, ok := rawjson.Member(discover, "_meta"); ok {
				e.serverInfo, _ = rawjson.Member(meta, protocol.MetaServerInfo)
			}
			e.capabilities, _ = rawjson.Member(discover, "capabilities")
			if s, ok := rawjson.Member(discover, "instructions"); ok {
				e.instructions, _ = rawjson.StringValue(s)
			}
		}
		c.era.Store(e)
		return c, nil
	}
	c.Close()
	return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "No protocol version in common with the server",
		map[string][]string{"requested": cfg.Versions, "supported": supported})
}

// initialize runs the legacy handshake with the first of versions; a
// counter-offer among versions is accepted, and a -32022 refusal that
// names an allowed 2026-07-28 settles on it. On failure the child is
// closed.
func (hs *handshake) initialize(ctx context.Context, c *Client, versions []string, why string) (*Client, error) {
	cfg := hs.cfg
	if hs.expired() {
		c.Close()
		return nil, hs.timeoutError()
	}
	params := append([]byte(`{"protocolVersion":`), rawjson.AppendString(nil, versions[0])...)
	params = append(params, `,"capabilities":`...)
	params = append(params, cfg.Capabilities...)
	params = append(params, `,"clientInfo":`...)
	params = append(params, cfg.ClientInfo...)
	params = append(params, '}')
	res, err := c.call(ctx, "initialize", json.RawMessage(params), &CallOptions{Timeout: hs.timeout(cfg.HandshakeTimeout)})
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeUnsupportedVersion && slices.Contains(cfg.Versions, Version20260728):
		if supported, ok := stringList(rpcErr.Data, "supported"); ok && slices.Contains(supported, Version20260728) {
			c.era.Store(newEra(Version20260728, cfg, why+"; then initialize answered -32022 naming "+Version20260728))
			return c, nil
		}
		fallthrough
	default:
		c.Close()
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeRequestTimeout && ctx.Err() == nil {
			return nil, hs.timeoutError()
		}
		return nil, err
	}
	raw, _ := rawjson.Member(res, "protocolVersion")
	got, _ := rawjson.StringValue(raw)
	if !slices.Contains(versions, got) {
		c.Close()
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "The server offered a protocol version that is not allowed",
			map[string]any{"negotiated": got, "requested": versions})
	}
	e := newEra(got, cfg, why)
	e.serverInfo, _ = rawjson.Member(res, "serverInfo")
	e.capabilities, _ = rawjson.Member(res, "capabilities")
	if s, ok := rawjson.Member(res, "instructions"); ok {
		e.instructions, _ = rawjson.StringValue(s)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		c.Close()
		return nil, err
	}
	c.era.Store(e)
	return c, nil
}

// stringList reads obj[key] as an array of strings.
func stringList(obj json.RawMessage, key string) ([]string, bool) {
	raw, ok := rawjson.Member(obj, key)
	if !ok {
		return nil, false
	}
	var out []string
	if json.Unmarshal(raw, &out) != nil || out == nil {
		return nil, false
	}
	return out, true
}
