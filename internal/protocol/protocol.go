// Package protocol is what the stdio client, the MCP server runtime and the
// bridge all know of MCP itself: the protocol revisions and their eras, the
// reserved _meta keys, the log levels, and the few rules each side applies
// alike. docs/protocol.md describes the eras.
//
// It holds data and pure functions only; the public packages re-export what
// their users configure (the stdio package's version constants and
// stdio.DefaultVersions, which mcp.Config.Versions defaults to as well).
package protocol

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// The protocol revisions this module speaks, newest first. 2026-07-28 is
// the stateless era; the 2025 revisions are the legacy era, which starts
// with the initialize handshake.
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
)

// Versions are the revisions this module speaks, in preference order.
// Callers must not modify it.
var Versions = []string{Version20260728, Version20251125, Version20250618}

// KnownLegacy are the legacy revisions a peer may name, including the two
// older ones this module does not speak itself.
var KnownLegacy = []string{Version20251125, Version20250618, "2025-03-26", "2024-11-05"}

// Supported reports whether v is one of Versions.
func Supported(v string) bool { return slices.Contains(Versions, v) }

// Modern reports whether v is a revision of the stateless era.
func Modern(v string) bool { return v == Version20260728 }

// Methods that exist in one era only. A client refuses them locally in the
// other era rather than sending what the server cannot understand.
var (
	ModernOnly = []string{"server/discover", "subscriptions/listen", "tasks/update"}
	LegacyOnly = []string{"initialize", "ping", "logging/setLevel", "resources/subscribe",
		"resources/unsubscribe", "tasks/result", "tasks/list"}
)

// ModernMethods are the client-to-server requests of 2026-07-28, and
// InputMethods the server-to-client requests that 2026-07-28 moved inside
// input_required results (docs/protocol.md, "MRTR"): sent as requests of
// their own in 2026-07-28 they are -32600.
var (
	ModernMethods = []string{"server/discover", "tools/list", "tools/call", "prompts/list", "prompts/get",
		"resources/list", "resources/templates/list", "resources/read", "completion/complete"}
	InputMethods = []string{"elicitation/create", "sampling/createMessage", "roots/list"}
	// ModernTaskMethods are the requests of the 2026-07-28 tasks extension
	// (io.modelcontextprotocol/tasks), served by a server that advertises it.
	ModernTaskMethods = []string{"tasks/get", "tasks/update", "tasks/cancel"}
)

// NoMeta is the message of the -32602 answering a request that has neither
// 2026-07-28 _meta nor a legacy session.
const NoMeta = "Required request _meta is missing"

// MetaVersion returns params._meta (nil when absent or not an object) and
// its protocolVersion: present reports whether the key is there, version
// is "" when it is not a string.
func MetaVersion(params json.RawMessage) (meta json.RawMessage, version string, present bool) {
	meta, ok := rawjson.Member(params, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		return nil, "", false
	}
	version, present = VersionIn(meta)
	return meta, version, present
}

// VersionIn is MetaVersion for a _meta object already in hand.
func VersionIn(meta json.RawMessage) (version string, present bool) {
	raw, ok := rawjson.Member(meta, MetaProtocolVersion)
	if !ok {
		return "", false
	}
	version, _ = rawjson.StringValue(raw)
	return version, true
}

// Reserved keys of _meta. A 2026-07-28 request carries the first four (the
// version and capabilities always); results carry MetaServerInfo, and every
// message of a subscriptions/listen stream MetaSubscriptionID.
// MetaProgressToken opts a request into progress in every era.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaProgressToken      = "progressToken"
	// MetaRelatedTask names, in a message's _meta, the task it belongs to
	// (2025-11-25).
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
	// TasksExtension is the 2026-07-28 tasks extension's identifier, which
	// a client declares in clientCapabilities.extensions.
	TasksExtension = "io.modelcontextprotocol/tasks"
)

// LogLevels are MCP's log levels, the RFC 5424 severities, least severe
// first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LogRank is a level's place in LogLevels counted from 1 (debug is 1,
// emergency 8), or 0 for a name that is no level. Higher is more severe.
func LogRank(level string) int { return slices.Index(LogLevels, level) + 1 }

// Covers reports whether an update of uri concerns a subscription to sub:
// the same URI, or a sub-resource of it (2026-07-28 allows updates of
// sub-resources: "file:///a/" and "file:///a" both cover "file:///a/b").
func Covers(sub, uri string) bool {
	if uri == sub {
		return true
	}
	return strings.HasPrefix(uri, sub) && (strings.HasSuffix(sub, "/") || uri[len(sub)] == '/')
}

// Capability reports whether the validated capabilities object caps has
// caps[kind][flag] == true, as in Capability(caps, "resources", "subscribe").
func Capability(caps json.RawMessage, kind, flag string) bool {
	obj, ok := rawjson.Member(caps, kind)
	if !ok {
		return false
	}
	v, ok := rawjson.Member(obj, flag)
	return ok && string(v) == "true"
}

// TaskID is the taskId of a task's envelope or of a tasks/* request's
// params, "" for none.
func TaskID(obj json.RawMessage) string {
	raw, _ := rawjson.Member(obj, "taskId")
	id, _ := rawjson.StringValue(raw)
	return id
}

// TaskStatus is the status a task result shows: a Task's, a 2026 tasks/get
// result's or CreateTaskResult's, or a 2025 CreateTaskResult's {task}; ""
// for none.
func TaskStatus(res json.RawMessage) string {
	if task, ok := rawjson.Member(res, "task"); ok && rawjson.IsObject(task) {
		res = task
	}
	raw, _ := rawjson.Member(res, "status")
	st, _ := rawjson.StringValue(raw)
	return st
}

// RelatedTask is the task a message's params name as their related task
// (_meta's MetaRelatedTask), "" for none.
func RelatedTask(params json.RawMessage) string {
	meta, _ := rawjson.Member(params, "_meta")
	related, ok := rawjson.Member(meta, MetaRelatedTask)
	if !ok {
		return ""
	}
	return TaskID(related)
}

// HasTasksExtension reports whether capabilities (a client's or a 2026
// server's) declare the tasks extension.
func HasTasksExtension(caps json.RawMessage) bool {
	ext, _ := rawjson.Member(caps, "extensions")
	_, ok := rawjson.Member(ext, TasksExtension)
	return ok
}

// WithTasksExtension is capabilities caps (nil or not an object: none)
// with the tasks extension declared.
func WithTasksExtension(caps json.RawMessage) json.RawMessage {
	if !rawjson.IsObject(caps) {
		caps = json.RawMessage(`{}`)
	}
	ext, ok := rawjson.Member(caps, "extensions")
	if !ok || !rawjson.IsObject(ext) {
		ext = json.RawMessage(`{}`)
	}
	if ext, err := rawjson.SetMember(ext, TasksExtension, json.RawMessage(`{}`)); err == nil {
		if out, err := rawjson.SetMember(caps, "extensions", ext); err == nil {
			return out
		}
	}
	return caps
}
