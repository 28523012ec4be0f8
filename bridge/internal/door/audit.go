package door

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// audited are the MCP methods whose every outcome the audit log records:
// what acts on a server's tools, resources and prompts, and what answers
// or cancels a task (a task's creation is its tools/call's record, which
// then names it). A request the door refuses is recorded whatever its
// method.
var audited = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true,
	"tasks/update": true, "tasks/cancel": true}

// audit writes one record of a request to Config.Audit: who (the
// principal and how it authenticated), where (server, method, tool,
// resource or prompt), how it ended and how long it took, under a request
// id minted here (and the client's own x-request-id, when it sent one).
// refused is the door's reason for a refused request ("" for one that was
// let in). Payloads are recorded only for a server with AuditPayloads.
func (d *Door) audit(ctx context.Context, req *Request, start time.Time, res json.RawMessage, err error, refused string) {
	if d.Audit == nil || (refused == "" && !audited[req.Method]) {
		return
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	attrs := []slog.Attr{
		slog.String("request_id", hex.EncodeToString(id[:])),
		slog.String("server", req.Server.Name), slog.String("method", TruncateLogValue(req.Method)), slog.String("name", TruncateLogValue(req.name())),
		slog.String("via", req.Via), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
	}
	if a := req.Aggregate; a != nil {
		attrs = append(attrs, slog.String("aggregate", a.Server), slog.String("aggregate_name", TruncateLogValue(a.Name)))
	}
	if req.Task != "" {
		attrs = append(attrs, slog.String("task_id", TruncateLogValue(req.Task)))
	}
	if p := access.FromContext(ctx); p != nil {
		attrs = append(attrs, slog.String("principal", p.Name), slog.String("auth", p.Method))
	}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get("x-request-id"); len(v) > 0 {
			attrs = append(attrs, slog.String("client_request_id", TruncateLogValue(v[0])))
		}
	}
	switch {
	case refused != "":
		attrs = append(attrs, slog.String("outcome", "refused"), slog.String("refused", refused))
		if st, ok := status.FromError(rpcerr.ToStatus(req.Server.Name, req.Method, err)); ok {
			attrs = append(attrs, slog.String("code", st.Code().String()))
		}
		var ce *rpcerr.CallError
		if errors.As(err, &ce) && ce.Scope != "" {
			// An OAuth token without the scope the call needs: the
			// scopes the challenge asked for.
			attrs = append(attrs, slog.String("scope", ce.Scope))
		}
	case err != nil:
		attrs = append(attrs, slog.String("outcome", "error"))
		var e *jsonrpc.Error
		if st, ok := status.FromError(err); ok {
			attrs = append(attrs, slog.String("code", st.Code().String()))
		} else if errors.As(err, &e) {
			attrs = append(attrs, slog.Int64("jsonrpc_code", e.Code))
		}
	case IsToolError(res):
		attrs = append(attrs, slog.String("outcome", "tool_error"))
	default:
		attrs = append(attrs, slog.String("outcome", "ok"))
	}
	if req.Server.AuditPayloads && req.Params != nil {
		attrs = append(attrs, slog.Any("params", json.RawMessage(rawjson.DeleteMember(req.Params, "_meta"))))
	}
	d.Audit.LogAttrs(context.Background(), slog.LevelInfo, "mcpbridge: audit", attrs...)
}

// IsToolError reports a tool result with isError: true.
func IsToolError(res json.RawMessage) bool {
	raw, _ := rawjson.Member(res, "isError")
	return string(raw) == "true"
}

// MaxLogValue bounds a logged name or URI, which the caller chose: in an
// audit record, and in package bridge's log line of each call.
const MaxLogValue = 256

// TruncateLogValue cuts v to MaxLogValue bytes, on a rune boundary.
func TruncateLogValue(v string) string {
	if len(v) <= MaxLogValue {
		return v
	}
	cut := MaxLogValue
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "..."
}
