package mcp

import (
	"context"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file sends notifications/message for a request (docs/protocol.md,
// "Logging"; docs/protocol.md, "Request _meta"). A level gates every
// message: on 2026-07-28 the request's own _meta
// io.modelcontextprotocol/logLevel, on a legacy session the level of
// logging/setLevel. Without one nothing is sent: 2026-07-28 requires that,
// and the 2025 revisions are read the same way (as the Go SDK does), so a
// client that never asked for logs never gets them.

// LoggingLevel is the severity of a log message, as in RFC 5424.
type LoggingLevel string

// The logging levels, from least to most severe.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

func parseLevel(s string) (LoggingLevel, bool) {
	return LoggingLevel(s), protocol.LogRank(s) > 0
}

// threshold is the level below which nothing is sent for c, "" for none.
func (c *call) threshold() LoggingLevel {
	if c.modern {
		return c.logLevel
	}
	c.sess.mu.Lock()
	defer c.sess.mu.Unlock()
	return c.sess.level
}

// Log sends notifications/message {level, logger?, data} to the client,
// if the client asked for messages at that level, and returns once it is
// written, so that it precedes the request's response. logger names the
// source ("" leaves it out); data is any value encoding/json can marshal.
// Log returns nil when the message is filtered out, and an error when it
// cannot be written (the request has ended, or ctx ended first).
func (r *Request) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	if !r.logs(level) {
		return nil
	}
	params, err := rawjson.Marshal(struct {
		Level  LoggingLevel `json:"level"`
		Logger string       `json:"logger,omitempty"`
		Data   any          `json:"data"`
	}{level, logger, data})
	if err != nil {
		return err
	}
	return r.c.sreq.Notify(ctx, "notifications/message", params)
}

func (r *Request) logs(level LoggingLevel) bool {
	min := r.c.threshold()
	rank := protocol.LogRank(string(level))
	return rank > 0 && min != "" && rank >= protocol.LogRank(string(min))
}

// Logger returns a *slog.Logger whose records go to the client as
// notifications/message, under the same filter as [Request.Log]. Levels
// map as Debug → debug, Info → info, Info+2 → notice, Warn → warning,
// Error → error, Error+4 → critical, Error+8 → alert, Error+12 →
// emergency; data is an object holding "msg" and the record's attributes.
// Records that cannot be written are dropped.
func (r *Request) Logger() *slog.Logger {
	return slog.New(&logHandler{r: r})
}

type logHandler struct {
	r     *Request
	attrs []slog.Attr
	group string
}

func slogLevel(l slog.Level) LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return LevelDebug
	case l < slog.LevelInfo+2:
		return LevelInfo
	case l < slog.LevelWarn:
		return LevelNotice
	case l < slog.LevelError:
		return LevelWarning
	case l < slog.LevelError+4:
		return LevelError
	case l < slog.LevelError+8:
		return LevelCritical
	case l < slog.LevelError+12:
		return LevelAlert
	default:
		return LevelEmergency
	}
}

func (h *logHandler) Enabled(_ context.Context, l slog.Level) bool { return h.r.logs(slogLevel(l)) }

func (h *logHandler) Handle(ctx context.Context, rec slog.Record) error {
	data := map[string]any{"msg": rec.Message}
	put := func(a slog.Attr) bool {
		if h.group != "" {
			a = slog.Group(h.group, a)
		}
		data[a.Key] = attrValue(a.Value)
		return true
	}
	for _, a := range h.attrs {
		data[a.Key] = attrValue(a.Value)
	}
	rec.Attrs(put)
	_ = h.r.Log(ctx, slogLevel(rec.Level), "", data)
	return nil
}

func attrValue(v slog.Value) any {
	v = v.Resolve()
	if v.Kind() != slog.KindGroup {
		return v.Any()
	}
	m := map[string]any{}
	for _, a := range v.Group() {
		m[a.Key] = attrValue(a.Value)
	}
	return m
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	h2 := *h
	if h.group != "" {
		attrs = []slog.Attr{slog.Group(h.group, attrsAny(attrs)...)}
	}
	h2.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &h2
}

func attrsAny(attrs []slog.Attr) []any {
	out := make([]any, len(attrs))
	for i, a := range attrs {
		out[i] = a
	}
	return out
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	if h.group != "" {
		name = h.group + "." + name
	}
	h2.group = name
	return &h2
}
