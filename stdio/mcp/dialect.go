package mcp

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file decides under which protocol revision a request is served
// (docs/protocol.md, "Era detection"; docs/stdio.md, "Dialects") and runs
// the 2026-07-28 validation order (docs/protocol.md, "Validation order") up
// to the point where a method's own params are checked.

// legacyMethods are the requests a legacy session serves; the 2026-07-28
// ones are protocol.ModernMethods. subscriptions/listen is served by
// Session.Listen and so appears in neither table.
var legacyMethods = []string{"initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get",
	"resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
	"resources/unsubscribe", "logging/setLevel", "completion/complete",
	"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"} // 2025-11-25's tasks: route refuses them elsewhere

// call is one request as the runtime serves it: its era, its client's
// declarations and its params.
type call struct {
	sess   *session
	sreq   *seam.Request
	method string
	params json.RawMessage // a JSON object; {} when absent
	modern bool
	// toolError is set when a tools/call result has isError, for a
	// tracing Handle to record (trace.go). It sits beside modern, in what
	// was padding: the call allocated per request keeps its size.
	toolError bool
	// version is the request's protocol version: its _meta's on
	// 2026-07-28, the session's on a legacy connection.
	version    string
	caps       ClientCapabilities
	clientInfo json.RawMessage
	logLevel   LoggingLevel // 2026-07-28: the request's own level
}

// msgNoMeta answers a request with neither 2026-07-28 _meta nor a legacy
// session.
const msgNoMeta = protocol.NoMeta

// classify picks the era of sreq and validates what precedes the method's
// own params. bare reports a ping outside any era, answered {}.
func (ss *session) classify(sreq *seam.Request) (c *call, bare bool, err *jsonrpc.Error) {
	srv := ss.srv
	c = &call{sess: ss, sreq: sreq, method: sreq.Method, params: sreq.Params}
	if c.params == nil {
		c.params = json.RawMessage(`{}`)
	}
	if !rawjson.IsObject(c.params) {
		// Params that are not an object carry no _meta, so this is step 1
		// on 2026-07-28 and bad params on a legacy session alike.
		return nil, false, invalidParams("params must be an object")
	}
	meta, version, hasVersion := protocol.MetaVersion(c.params)
	session := sreq.Version // the last initialize's version, "" before any

	switch {
	case hasVersion && slices.Contains(srv.modern, version):
		return c, false, ss.validateModern(c, meta, version)
	case hasVersion && version == "":
		return nil, false, invalidParams("_meta.%s must be a string", protocol.MetaProtocolVersion)
	case hasVersion && session != "" && version == session:
		// A legacy request restating its session's version.
	// A legacy session's request whose _meta names another legacy version
	// conflicts with the session (-32602) rather than being unsupported
	// (-32022).
	case hasVersion && session != "" && slices.Contains(protocol.KnownLegacy, version):
		return nil, false, invalidParams("_meta.%s %q conflicts with the session's version %s",
			protocol.MetaProtocolVersion, version, session)
	case hasVersion:
		return nil, false, unsupportedVersion(srv.versions, version)
	case session == "":
		switch {
		case c.method == "initialize":
			c.version = "" // the handshake picks it
			return c, false, nil
		case c.method == "ping": // legacy clients may ping before initialize
			return c, true, nil
		case meta == nil:
			return nil, false, invalidParams(msgNoMeta)
		default:
			return nil, false, invalidParams("_meta.%s is required", protocol.MetaProtocolVersion)
		}
	}

	// A legacy request on an initialized session.
	c.version = session
	c.caps, c.clientInfo = ss.legacyClient()
	if !slices.Contains(legacyMethods, c.method) {
		return nil, false, methodNotFound(c.method)
	}
	for _, key := range []string{"inputResponses", "requestState", "task"} {
		if key == "task" && session == protocol.Version20251125 {
			continue // 2025-11-25's tasks: tools/call reads it (tasks.go), the rest ignore it
		}
		if _, ok := rawjson.Member(c.params, key); ok {
			return nil, false, invalidParams("%s is not supported in protocol version %s", key, session)
		}
	}
	return c, false, nil
}

// validateModern runs steps 3 to 5 of docs/protocol.md, "Validation order"
// for a request whose _meta names a served 2026-07-28 version (steps 1 and
// 2 are classify's).
func (ss *session) validateModern(c *call, meta json.RawMessage, version string) *jsonrpc.Error {
	c.modern = true
	c.version = version
	caps, err := checkCapabilities(meta)
	if err != nil {
		return err
	}
	c.caps = caps
	switch {
	case c.method == "subscriptions/listen", taskMethod(c.method):
	case slices.Contains(protocol.InputMethods, c.method):
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"%s is not a request in protocol version %s; it travels inside input_required results", c.method, version)
	case !slices.Contains(protocol.ModernMethods, c.method):
		return methodNotFound(c.method)
	}
	var m requestMeta
	if err := checkMetaKeys(meta, &m); err != nil {
		return err
	}
	c.clientInfo, c.logLevel = m.clientInfo, m.logLevel
	return nil
}

// The error constructors: wire messages are capitalised, with no final
// period (docs/stdio.md, "Conventions").

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: "+format, args...)
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

func unsupportedVersion(supported []string, requested string) *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeUnsupportedVersion, fmt.Sprintf("Unsupported protocol version: %s", requested),
		struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}{supported, requested})
}
