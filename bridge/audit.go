package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// audited are the MCP methods whose every outcome the audit log records:
// what acts on a server's tools, resources and prompts. A request the door
// refuses is recorded whatever its method.
var audited = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// audit writes one record of a request to Config.Audit: who (the
// principal and how it authenticated), where (server, method, tool,
// resource or prompt), how it ended and how long it took, under a request
// id minted here (and the client's own x-request-id, when it sent one).
// refused is the door's reason for a refused request ("" for one that was
// let in). Payloads are recorded only for a server with AuditPayloads.
func (s *Service) audit(ctx context.Context, req *request, start time.Time, res json.RawMessage, err error, refused string) {
	if s.cfg.Audit == nil || (refused == "" && !audited[req.method]) {
		return
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	attrs := []slog.Attr{
		slog.String("request_id", hex.EncodeToString(id[:])),
		slog.String("server", req.srv.name), slog.String("method", truncateLogValue(req.method)), slog.String("name", truncateLogValue(req.name())),
		slog.String("via", req.via), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
	}
	if p := access.FromContext(ctx); p != nil {
		attrs = append(attrs, slog.String("principal", p.Name), slog.String("auth", p.Method))
	}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get("x-request-id"); len(v) > 0 {
			attrs = append(attrs, slog.String("client_request_id", truncateLogValue(v[0])))
		}
	}
	switch {
	case refused != "":
		attrs = append(attrs, slog.String("outcome", "refused"), slog.String("refused", refused))
		if st, ok := status.FromError(rpcerr.ToStatus(req.srv.name, req.method, err)); ok {
			attrs = append(attrs, slog.String("code", st.Code().String()))
		}
	case err != nil:
		attrs = append(attrs, slog.String("outcome", "error"))
		var e *jsonrpc.Error
		if st, ok := status.FromError(err); ok {
			attrs = append(attrs, slog.String("code", st.Code().String()))
		} else if errors.As(err, &e) {
			attrs = append(attrs, slog.Int64("jsonrpc_code", e.Code))
		}
	case isToolError(res):
		attrs = append(attrs, slog.String("outcome", "tool_error"))
	default:
		attrs = append(attrs, slog.String("outcome", "ok"))
	}
	if req.srv.cfg.AuditPayloads && req.params != nil {
		attrs = append(attrs, slog.Any("params", json.RawMessage(rawjson.DeleteMember(req.params, "_meta"))))
	}
	s.cfg.Audit.LogAttrs(context.Background(), slog.LevelInfo, "mcpbridge: audit", attrs...)
}

// isToolError reports a tool result with isError: true.
func isToolError(res json.RawMessage) bool {
	raw, _ := rawjson.Member(res, "isError")
	return string(raw) == "true"
}
