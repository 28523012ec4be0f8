package grpcdoor

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// This file serves the typed unary RPCs: the four lists, CallTool,
// ReadResource, GetPrompt and Complete. Each is one MCP request built from
// the typed request for the child's era, and one typed response decoded
// from its result (package convert).

// typedCall is one typed unary RPC: find the child, build the params for
// its era (an error there is bad input), call, and decode the result.
//
// kind and names are what the request is about, for the door: the typed
// request names them before its params, which depend on the child's era,
// are built.
func typedCall[Resp proto.Message](ctx context.Context, s *API, server, method string, kind access.Kind, names []string,
	build func(e convert.Era, name string) (json.RawMessage, error),
	decode func(json.RawMessage, convert.Era) (Resp, error),
) (Resp, error) {
	var zero Resp
	if agg := s.core.Aggregate(ctx, server); agg != nil {
		return aggregateCall(ctx, s, agg, method, kind, names, build, decode)
	}
	r, err := s.route(ctx, server, &door.Request{Via: door.Via(ctx, door.ViaGRPC), Method: method, Kind: kind, Names: names})
	if err != nil {
		return zero, err
	}
	defer r.release()
	name := ""
	if len(names) > 0 {
		name = names[0]
	}
	return callTyped(ctx, r, name, build, decode)
}

// callTyped is a typed RPC on its route: params built for the child's era
// with the target's name (an error there is bad input), the call, the
// result decoded.
func callTyped[Resp proto.Message](ctx context.Context, r *route, name string,
	build func(e convert.Era, name string) (json.RawMessage, error),
	decode func(json.RawMessage, convert.Era) (Resp, error),
) (Resp, error) {
	var zero Resp
	params, err := build(r.era, name)
	if err != nil {
		return zero, r.invalid(err)
	}
	r.setParams(params)
	res, err := r.call(ctx, params, nil)
	if err != nil {
		return zero, err
	}
	out, err := decode(res, r.era)
	if err != nil {
		return zero, r.badResult(err)
	}
	if err := r.fits(res, out); err != nil {
		return zero, err
	}
	return out, nil
}

// ListTools is tools/list: one page of the child's tools.
func (s *API) ListTools(ctx context.Context, req *mcpbridgev1.ListToolsRequest) (*mcpbridgev1.ListToolsResponse, error) {
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		return aggregateList(ctx, s, agg, aggregate.Tools, req.GetCursor(), convert.DecodeListTools,
			func(dst, src *mcpbridgev1.ListToolsResponse) { dst.Tools = append(dst.Tools, src.Tools...) },
			func(r *mcpbridgev1.ListToolsResponse, next string) { r.NextCursor = next })
	}
	return typedCall(ctx, s, req.GetServer(), "tools/list", access.Server, nil,
		func(convert.Era, string) (json.RawMessage, error) {
			return convert.ListParams(req.GetCursor(), req.GetMeta())
		},
		convert.DecodeListTools)
}

// ListResources is resources/list: one page of the child's resources.
func (s *API) ListResources(ctx context.Context, req *mcpbridgev1.ListResourcesRequest) (*mcpbridgev1.ListResourcesResponse, error) {
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		return aggregateList(ctx, s, agg, aggregate.Resources, req.GetCursor(), convert.DecodeListResources,
			func(dst, src *mcpbridgev1.ListResourcesResponse) {
				dst.Resources = append(dst.Resources, src.Resources...)
			},
			func(r *mcpbridgev1.ListResourcesResponse, next string) { r.NextCursor = next })
	}
	return typedCall(ctx, s, req.GetServer(), "resources/list", access.Server, nil,
		func(convert.Era, string) (json.RawMessage, error) {
			return convert.ListParams(req.GetCursor(), req.GetMeta())
		},
		convert.DecodeListResources)
}

// ListResourceTemplates is resources/templates/list: one page of the
// child's resource templates.
func (s *API) ListResourceTemplates(ctx context.Context, req *mcpbridgev1.ListResourceTemplatesRequest) (*mcpbridgev1.ListResourceTemplatesResponse, error) {
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		return aggregateList(ctx, s, agg, aggregate.ResourceTemplates, req.GetCursor(), convert.DecodeListResourceTemplates,
			func(dst, src *mcpbridgev1.ListResourceTemplatesResponse) {
				dst.ResourceTemplates = append(dst.ResourceTemplates, src.ResourceTemplates...)
			},
			func(r *mcpbridgev1.ListResourceTemplatesResponse, next string) { r.NextCursor = next })
	}
	return typedCall(ctx, s, req.GetServer(), "resources/templates/list", access.Server, nil,
		func(convert.Era, string) (json.RawMessage, error) {
			return convert.ListParams(req.GetCursor(), req.GetMeta())
		},
		convert.DecodeListResourceTemplates)
}

// ListPrompts is prompts/list: one page of the child's prompts.
func (s *API) ListPrompts(ctx context.Context, req *mcpbridgev1.ListPromptsRequest) (*mcpbridgev1.ListPromptsResponse, error) {
	if agg := s.core.Aggregate(ctx, req.GetServer()); agg != nil {
		return aggregateList(ctx, s, agg, aggregate.Prompts, req.GetCursor(), convert.DecodeListPrompts,
			func(dst, src *mcpbridgev1.ListPromptsResponse) { dst.Prompts = append(dst.Prompts, src.Prompts...) },
			func(r *mcpbridgev1.ListPromptsResponse, next string) { r.NextCursor = next })
	}
	return typedCall(ctx, s, req.GetServer(), "prompts/list", access.Server, nil,
		func(convert.Era, string) (json.RawMessage, error) {
			return convert.ListParams(req.GetCursor(), req.GetMeta())
		},
		convert.DecodeListPrompts)
}

// CallTool is tools/call. A tool that ran and failed is an OK response with
// is_error set; a 2026-07-28 child may answer input_required. The response
// is the same message under every transport, and what a client of any of
// them reads: the result's structuredContent and _meta are in
// StructuredContent and Meta, for interceptors, payload logs and
// proto.Equal alike; the gRPC server's codec writes those two fields
// without protobuf-go's reflection (bridge/internal/apiwire).
func (s *API) CallTool(ctx context.Context, req *mcpbridgev1.CallToolRequest) (*mcpbridgev1.CallToolResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "tools/call", access.Tool, []string{req.GetName()},
		func(e convert.Era, name string) (json.RawMessage, error) {
			return convert.CallToolParams(convert.Named(req, name), mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED, e)
		},
		convert.DecodeCallToolResult)
}

// ReadResource is resources/read; a 2026-07-28 child may answer
// input_required.
func (s *API) ReadResource(ctx context.Context, req *mcpbridgev1.ReadResourceRequest) (*mcpbridgev1.ReadResourceResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "resources/read", access.Resource, []string{req.GetUri()},
		func(e convert.Era, uri string) (json.RawMessage, error) {
			return renamed("resources/read", uri, req.GetUri())(convert.ReadResourceParams(req, e))
		},
		convert.DecodeReadResourceResult)
}

// GetPrompt is prompts/get; a 2026-07-28 child may answer input_required.
func (s *API) GetPrompt(ctx context.Context, req *mcpbridgev1.GetPromptRequest) (*mcpbridgev1.GetPromptResponse, error) {
	return typedCall(ctx, s, req.GetServer(), "prompts/get", access.Prompt, []string{req.GetName()},
		func(e convert.Era, name string) (json.RawMessage, error) {
			return renamed("prompts/get", name, req.GetName())(convert.GetPromptParams(req, e))
		},
		convert.DecodeGetPromptResult)
}

// Complete is completion/complete.
func (s *API) Complete(ctx context.Context, req *mcpbridgev1.CompleteRequest) (*mcpbridgev1.CompleteResponse, error) {
	kind, names, asked := access.Server, []string(nil), "" // no ref: refused as bad input
	switch {
	case req.GetPromptName() != "":
		kind, names, asked = access.Prompt, []string{req.GetPromptName()}, req.GetPromptName()
	case req.GetResourceTemplateUri() != "":
		kind, names, asked = access.Resource, []string{req.GetResourceTemplateUri()}, req.GetResourceTemplateUri()
	}
	return typedCall(ctx, s, req.GetServer(), "completion/complete", kind, names,
		func(_ convert.Era, name string) (json.RawMessage, error) {
			return renamed("completion/complete", name, asked)(convert.CompleteParams(req))
		},
		convert.DecodeCompleteResult)
}

// renamed returns a function that gives params of method built with the
// request's own target (asked) under the target name instead: a
// request to an aggregate goes to its member under the member's name.
func renamed(method, name, asked string) func(json.RawMessage, error) (json.RawMessage, error) {
	return func(params json.RawMessage, err error) (json.RawMessage, error) {
		if err != nil || name == asked {
			return params, err
		}
		return aggregate.Rename(method, params, name)
	}
}
