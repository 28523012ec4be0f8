package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// The protocol versions this package speaks, newest first: 2026-07-28 (the
// stateless era) and the two legacy revisions, which start with initialize.
const (
	Version20260728 = protocol.Version20260728
	Version20251125 = protocol.Version20251125
	Version20250618 = protocol.Version20250618
)

// DefaultVersions is ConnectConfig.Versions' default: every version, in
// preference order.
var DefaultVersions = slices.Clone(protocol.Versions)

// DefaultProbeTimeout bounds the server/discover probe.
const DefaultProbeTimeout = 10 * time.Second

// ConnectConfig says which protocol versions [Connect] may settle on and
// how the client introduces itself. The zero value means the defaults.
type ConnectConfig struct {
	// Versions are the allowed versions in preference order (default
	// DefaultVersions). A single version, or versions of one era only,
	// skip the server/discover probe.
	Versions []string
	// ProbeTimeout bounds the server/discover probe (default 10 s).
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

func newEra(version string, cfg *ConnectConfig) *era {
	e := &era{version: version, modern: protocol.Modern(version)}
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
		cfg.Versions = DefaultVersions
	}
	for _, v := range cfg.Versions {
		if !protocol.Supported(v) {
			return jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Unsupported protocol version requested",
				map[string][]string{"requested": cfg.Versions, "supported": protocol.Versions})
		}
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = DefaultProbeTimeout
	}
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
// closure over [Start]; Connect calls it again when the server/discover
// probe may have tainted the first child (silence, a dead child, or a
// failed initialize after the probe), after closing that child without
// waiting for it.
//
// With both eras allowed, Connect probes with server/discover: a result or
// a -32022/-32021/-32020 error means a 2026-07-28 server; anything else
// means a legacy one, which gets initialize with the first allowed legacy
// version and then notifications/initialized. A pinned version, or
// versions of one era only, skip the probe.
//
// On success the returned Client stamps the required _meta on every
// request of a 2026-07-28 connection and refuses methods of the other era
// locally. On failure every child started is closed.
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
	switch {
	case len(legacy) == 0: // pinned 2026-07-28: nothing to send
		c.era.Store(newEra(Version20260728, &cfg))
		return c, nil
	case len(legacy) == len(cfg.Versions):
		return initialize(ctx, c, legacy, &cfg)
	}

	probe := newEra(Version20260728, &cfg)
	params, _ := probe.params(nil, nil, nil)
	res, err := c.call(ctx, "server/discover", params, &CallOptions{Timeout: cfg.ProbeTimeout})
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		supported, _ := stringList(res, "supportedVersions")
		if supported == nil {
			break // a result without supportedVersions is no DiscoverResult
		}
		return settle(ctx, c, supported, res, legacy, &cfg)
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeUnsupportedVersion:
		if supported, ok := stringList(rpcErr.Data, "supported"); ok {
			return settle(ctx, c, supported, nil, legacy, &cfg)
		}
	case errors.As(err, &rpcErr) && (rpcErr.Code == jsonrpc.CodeMissingCapability || rpcErr.Code == jsonrpc.CodeHeaderMismatch):
		c.era.Store(newEra(Version20260728, &cfg))
		return c, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		c.Close()
		return nil, ctxError(ctx)
	}
	// A legacy verdict. Reuse the child only after a clean JSON-RPC error
	// reply; after silence, garbage or a dead child it may be tainted.
	if err != nil && cleanReply(c, err) {
		if ok, err := initialize(ctx, c, legacy, &cfg); err == nil {
			return ok, nil
		} else if ctx.Err() != nil || isVersionRefusal(err) {
			return nil, err
		}
	} else {
		c.Close()
	}
	fresh, err := start(ctx)
	if err != nil {
		return nil, err
	}
	return initialize(ctx, fresh, legacy, &cfg)
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

func isVersionRefusal(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == jsonrpc.CodeInvalidParams && len(e.Data) > 0
}

// settle picks the first allowed version the server supports. 2026-07-28
// needs no handshake; a legacy version gets initialize on the same child,
// which a modern verdict proves untainted.
func settle(ctx context.Context, c *Client, supported []string, discover json.RawMessage, legacy []string, cfg *ConnectConfig) (*Client, error) {
	for _, v := range cfg.Versions {
		if !slices.Contains(supported, v) {
			continue
		}
		if v != Version20260728 {
			order := append([]string{v}, slices.DeleteFunc(slices.Clone(legacy), func(l string) bool { return l == v })...)
			return initialize(ctx, c, order, cfg)
		}
		e := newEra(v, cfg)
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
// counter-offer among versions is accepted. On failure the child is closed.
func initialize(ctx context.Context, c *Client, versions []string, cfg *ConnectConfig) (*Client, error) {
	params := append([]byte(`{"protocolVersion":`), rawjson.AppendString(nil, versions[0])...)
	params = append(params, `,"capabilities":`...)
	params = append(params, cfg.Capabilities...)
	params = append(params, `,"clientInfo":`...)
	params = append(params, cfg.ClientInfo...)
	params = append(params, '}')
	res, err := c.call(ctx, "initialize", json.RawMessage(params), &CallOptions{})
	if err != nil {
		c.Close()
		return nil, err
	}
	raw, _ := rawjson.Member(res, "protocolVersion")
	got, _ := rawjson.StringValue(raw)
	if !slices.Contains(versions, got) {
		c.Close()
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "The server offered a protocol version that is not allowed",
			map[string]any{"negotiated": got, "requested": versions})
	}
	e := newEra(got, cfg)
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
