package mcp

import (
	"context"
	"encoding/json"
)

// Request is what every handler gets besides its method's own fields: who
// asks and under which protocol version, a progress reporter, a logger,
// and the way to ask the client for input ([Request.Ask]). It is embedded
// in [CallToolRequest], [GetPromptRequest], [ReadResourceRequest] and
// [CompleteRequest]. A Request is used by its handler's goroutine; its
// methods must not be called after the handler returns.
type Request struct {
	c    *call
	in   *inputs // input answers and requestState: mrtr.go
	task *task   // the task the request runs as: tasks.go
}

// newRequest makes the Request of a classified call, reading its
// inputResponses and requestState (-32602 when they are malformed).
func (s *Server) newRequest(c *call) (Request, error) {
	in, err := s.loadInputs(c)
	if err != nil {
		return Request{}, err
	}
	return Request{c: c, in: in}, nil
}

// Method returns the JSON-RPC method (tools/call, prompts/get, ...).
func (r *Request) Method() string { return r.c.method }

// ProtocolVersion returns the version the request is served under: its
// own on 2026-07-28, the session's on a 2025 connection.
func (r *Request) ProtocolVersion() string { return r.c.version }

// Stateless reports whether the request is served under 2026-07-28, where
// each request stands alone and input is asked for with input_required
// results rather than server-to-client requests.
func (r *Request) Stateless() bool { return r.c.modern }

// ClientCapabilities returns what the client declared: in this request's
// _meta on 2026-07-28, in initialize on a 2025 connection.
func (r *Request) ClientCapabilities() ClientCapabilities { return r.c.caps }

// ClientInfo returns the client's Implementation object as it sent it, or
// nil when it did not say.
func (r *Request) ClientInfo() json.RawMessage { return r.c.clientInfo }

// Params returns the request's params as sent, _meta included.
func (r *Request) Params() json.RawMessage { return r.c.params }

// Progress is one progress report: Progress must grow with every report;
// Total, when not zero, is the value Progress reaches at the end; Message
// is optional.
type Progress struct {
	Progress float64
	Total    float64
	Message  string
}

// ReportProgress sends notifications/progress when the request carried a
// _meta.progressToken, and does nothing otherwise. It returns once the
// notification is written, so every report precedes the response. It fails,
// sending nothing, when Progress does not exceed the previous report's,
// after 1,000 reports, when the request has ended, or when ctx ends first
// (docs/stdio.md, "Progress").
func (r *Request) ReportProgress(ctx context.Context, p Progress) error {
	if r.task != nil {
		// In a task: the status message says it, and on 2025-11-25 the
		// request's progress token is still good.
		if p.Message != "" {
			r.task.setMessage(p.Message)
		}
		if r.c.modern {
			return nil
		}
	}
	var total *float64
	if p.Total != 0 {
		total = &p.Total
	}
	return r.c.sreq.Progress.Report(ctx, p.Progress, total, p.Message)
}
