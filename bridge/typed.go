package bridge

import (
	"context"
	"encoding/json"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file serves the typed unary RPCs: the four lists, CallTool,
// ReadResource, GetPrompt and Complete. Each is one MCP request built from
// the typed request for the child's era, and one typed response decoded
// from its result (convert.go).

// target is the child a request goes to, with its era.
type target struct {
	sup  *supervisor
	c    *child
	era  eraRules
	name string // the fronted server's resolved name
}

// target finds and acquires the child for a request, mapping failures to
// their status.
func (s *Service) target(ctx context.Context, server, method string) (*target, error) {
	sup, err := s.lookup(ctx, server, method)
	if err != nil {
		return nil, toStatus(server, method, err)
	}
	c, err := sup.acquire(ctx)
	if err != nil {
		return nil, toStatus(sup.name, method, err)
	}
	return &target{sup: sup, c: c, era: rulesFor(c.client.Protocol()), name: sup.name}, nil
}

// invalid refuses bad input from the gRPC client; nothing reaches the child.
func (t *target) invalid(method string, err error) error {
	return toStatus(t.name, method, invalidInput(t.name, method, "%v", err))
}

// badResult reports a child result that the typed response cannot hold:
// INTERNAL, with the reason in the JsonRpcError's data. Call returns such a
// result as JSON.
func (t *target) badResult(method string, err error) error {
	e := jsonrpc.WithData(jsonrpc.CodeInternalError, "The MCP server's result does not fit the typed response; Call returns it as JSON",
		map[string]string{"error": err.Error()})
	return toStatus(t.name, method, &callError{rpc: e, server: t.name, method: method})
}

// callTarget sends one request to the target's child, mapping a failure
// to its status.
func (s *Service) callTarget(ctx context.Context, t *target, method string, params json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, error) {
	defer t.c.relay.enter()() // the call is in flight for server-request routing
	return s.callCounted(ctx, t, method, params, opts)
}

// callCounted is callTarget for a caller that already counts the call in
// flight (a stream registered with the child's relay).
func (s *Service) callCounted(ctx context.Context, t *target, method string, params json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, error) {
	if opts == nil {
		opts = s.callOptions(ctx)
	}
	res, err := t.c.client.Call(ctx, method, params, opts)
	if err != nil {
		return nil, s.childError(t.sup, method, err)
	}
	return res, nil
}

// typedCall is one typed unary RPC: find the child, build the params for
// its era (an error there is bad input), call, and decode the result.
func typedCall[Resp any](ctx context.Context, s *Service, server, method string,
	build func(eraRules) (json.RawMessage, error),
	decode func(json.RawMessage, eraRules) (Resp, error),
) (Resp, error) {
	var zero Resp
	t, err := s.target(ctx, server, method)
	if err != nil {
		return zero, err
	}
	params, err := build(t.era)
	if err != nil {
		return zero, t.invalid(method, err)
	}
	res, err := s.callTarget(ctx, t, method, params, nil)
	if err != nil {
		return zero, err
	}
	out, err := decode(res, t.era)
	if err != nil {
		return zero, t.badResult(method, err)
	}
	return out, nil
}

// ListTools is tools/list: one page of the child's tools.
func (s *Service) ListTools(ctx context.Context, req *mcpbridgev1.ListToolsRequest) (*mcpbridgev1.ListToolsResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "tools/list",
		func(eraRules) (json.RawMessage, error) { return listParams(req.GetCursor(), req.GetMeta()) },
		decodeListTools)
}

// ListResources is resources/list: one page of the child's resources.
func (s *Service) ListResources(ctx context.Context, req *mcpbridgev1.ListResourcesRequest) (*mcpbridgev1.ListResourcesResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "resources/list",
		func(eraRules) (json.RawMessage, error) { return listParams(req.GetCursor(), req.GetMeta()) },
		decodeListResources)
}

// ListResourceTemplates is resources/templates/list: one page of the
// child's resource templates.
func (s *Service) ListResourceTemplates(ctx context.Context, req *mcpbridgev1.ListResourceTemplatesRequest) (*mcpbridgev1.ListResourceTemplatesResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "resources/templates/list",
		func(eraRules) (json.RawMessage, error) { return listParams(req.GetCursor(), req.GetMeta()) },
		decodeListResourceTemplates)
}

// ListPrompts is prompts/list: one page of the child's prompts.
func (s *Service) ListPrompts(ctx context.Context, req *mcpbridgev1.ListPromptsRequest) (*mcpbridgev1.ListPromptsResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "prompts/list",
		func(eraRules) (json.RawMessage, error) { return listParams(req.GetCursor(), req.GetMeta()) },
		decodeListPrompts)
}

// CallTool is tools/call. A tool that ran and failed is an OK response with
// is_error set; a 2026-07-28 child may answer input_required.
func (s *Service) CallTool(ctx context.Context, req *mcpbridgev1.CallToolRequest) (*mcpbridgev1.CallToolResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "tools/call",
		func(r eraRules) (json.RawMessage, error) {
			return callToolParams(req.GetName(), req.GetArguments(), requestMeta{caller: req.GetMeta()},
				mrtrRequest{req.GetInputResponses(), req.GetRequestState(), req.GetClientCapabilities()}, r)
		},
		decodeCallToolResult)
}

// ReadResource is resources/read; a 2026-07-28 child may answer
// input_required.
func (s *Service) ReadResource(ctx context.Context, req *mcpbridgev1.ReadResourceRequest) (*mcpbridgev1.ReadResourceResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "resources/read",
		func(r eraRules) (json.RawMessage, error) { return readResourceParams(req, r) },
		decodeReadResourceResult)
}

// GetPrompt is prompts/get; a 2026-07-28 child may answer input_required.
func (s *Service) GetPrompt(ctx context.Context, req *mcpbridgev1.GetPromptRequest) (*mcpbridgev1.GetPromptResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "prompts/get",
		func(r eraRules) (json.RawMessage, error) { return getPromptParams(req, r) },
		decodeGetPromptResult)
}

// Complete is completion/complete.
func (s *Service) Complete(ctx context.Context, req *mcpbridgev1.CompleteRequest) (*mcpbridgev1.CompleteResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "completion/complete",
		func(eraRules) (json.RawMessage, error) { return completeParams(req) },
		decodeCompleteResult)
}
