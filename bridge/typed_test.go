package bridge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The Go SDK conformance server's fixtures (docs/testing.md,
// "Go SDK everything-server"), as base64.
const (
	goSDKImage = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	goSDKAudio = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func mustBase64(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustStruct(tb testing.TB, m map[string]any) *structpb.Struct {
	tb.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func text(s string) *mcpbridgev1.Content {
	return &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: s}}}
}

// texts returns the text of every text block.
func texts(content []*mcpbridgev1.Content) []string {
	var out []string
	for _, c := range content {
		if t := c.GetText(); t != nil {
			out = append(out, t.GetText())
		}
	}
	return out
}

func toolNamesOf(tools []*mcpbridgev1.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.GetName())
	}
	return out
}

// serverInfoMeta is the _meta every 2026-07-28 result of the Go SDK server
// carries.
func serverInfoMeta(tb testing.TB) *structpb.Struct {
	return mustStruct(tb, map[string]any{protocol.MetaServerInfo: map[string]any{"name": "mcp-conformance-test-server", "version": "1.0.0"}})
}

// The Go SDK conformance server in both eras: every typed unary RPC against
// its fixtures, with the 2026 fields present on 2026-07-28 and absent on
// 2025-11-25.
func TestTypedGoSDK(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, goSDKServer(t, "modern"), goSDKServer(t, "legacy", protocol.Version20251125))
	for _, server := range []string{"modern", "legacy"} {
		modern := server == "modern"
		t.Run(server, func(t *testing.T) {
			ctx := context.Background()
			var wantMeta *structpb.Struct // 2026 results carry serverInfo; legacy ones no _meta
			if modern {
				wantMeta = serverInfoMeta(t)
			}
			checkPage := func(t *testing.T, what string, meta *structpb.Struct, ttl interface{ AsDuration() time.Duration }, isNil bool, scope mcpbridgev1.CacheScope) {
				t.Helper()
				if diff := cmp.Diff(wantMeta, meta, protocmp.Transform()); diff != "" {
					t.Errorf("%s meta (-want +got):\n%s", what, diff)
				}
				switch {
				case modern && (isNil || ttl.AsDuration() != 0 || scope != mcpbridgev1.CacheScope_CACHE_SCOPE_PUBLIC):
					t.Errorf("%s ttl, cache_scope = %v, %v; want 0s, PUBLIC (the child's ttlMs:0, cacheScope:public)", what, ttl, scope)
				case !modern && (!isNil || scope != mcpbridgev1.CacheScope_CACHE_SCOPE_UNSPECIFIED):
					t.Errorf("%s ttl, cache_scope = %v, %v; want unset for a legacy child", what, ttl, scope)
				}
			}

			tools, err := h.bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: server})
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			names := toolNamesOf(tools.GetTools())
			for _, want := range []string{"test_simple_text", "test_image_content", "test_tool_with_progress", "json_schema_2020_12_tool"} {
				if !slices.Contains(names, want) {
					t.Errorf("ListTools lacks %s: %v", want, names)
				}
			}
			if tools.GetNextCursor() != "" {
				t.Errorf("ListTools next_cursor = %q, want none (one page)", tools.GetNextCursor())
			}
			checkPage(t, "ListTools", tools.GetMeta(), tools.GetTtl(), tools.Ttl == nil, tools.GetCacheScope())
			for _, tool := range tools.GetTools() {
				if tool.GetName() == "json_schema_2020_12_tool" {
					schema := tool.GetInputSchema().GetFields()
					if schema["$schema"].GetStringValue() != "https://json-schema.org/draft/2020-12/schema" || schema["$defs"].GetStructValue() == nil {
						t.Errorf("json_schema_2020_12_tool input_schema = %v, want the 2020-12 keywords kept", tool.GetInputSchema())
					}
				}
			}

			for _, tt := range []struct {
				tool string
				want *mcpbridgev1.CallToolResponse
			}{
				{"test_simple_text", &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{text("This is a simple text response for testing.")}}},
				{"test_image_content", &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{{Block: &mcpbridgev1.Content_Image{Image: &mcpbridgev1.ImageContent{Data: mustBase64(t, goSDKImage), MimeType: "image/png"}}}}}},
				{"test_audio_content", &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{{Block: &mcpbridgev1.Content_Audio{Audio: &mcpbridgev1.AudioContent{Data: mustBase64(t, goSDKAudio), MimeType: "audio/wav"}}}}}},
				{"test_embedded_resource", &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{{Block: &mcpbridgev1.Content_Resource{Resource: &mcpbridgev1.EmbeddedResource{
					Resource: &mcpbridgev1.ResourceContents{Uri: "test://embedded-resource", MimeType: "text/plain", Contents: &mcpbridgev1.ResourceContents_Text{Text: "This is an embedded resource"}}}}}}}},
				{"test_multiple_content_types", &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{
					text("This is text content"),
					{Block: &mcpbridgev1.Content_Image{Image: &mcpbridgev1.ImageContent{Data: mustBase64(t, goSDKImage), MimeType: "image/png"}}},
					{Block: &mcpbridgev1.Content_Resource{Resource: &mcpbridgev1.EmbeddedResource{
						Resource: &mcpbridgev1.ResourceContents{Uri: "test://embedded-in-multiple", MimeType: "text/plain", Contents: &mcpbridgev1.ResourceContents_Text{Text: "This is an embedded resource"}}}}},
				}}},
				// isError is a result, not a gRPC error.
				{"test_error_handling", &mcpbridgev1.CallToolResponse{IsError: true, Content: []*mcpbridgev1.Content{text("this tool intentionally returns an error for testing")}}},
			} {
				got, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: tt.tool})
				if err != nil {
					t.Errorf("CallTool(%s): %v", tt.tool, err)
					continue
				}
				tt.want.Meta = wantMeta
				if diff := cmp.Diff(tt.want, got, protocmp.Transform()); diff != "" {
					t.Errorf("CallTool(%s) (-want +got):\n%s", tt.tool, diff)
				}
			}

			res, err := h.bc.ListResources(ctx, &mcpbridgev1.ListResourcesRequest{Server: server})
			if err != nil {
				t.Fatalf("ListResources: %v", err)
			}
			checkPage(t, "ListResources", res.GetMeta(), res.GetTtl(), res.Ttl == nil, res.GetCacheScope())
			var uris []string
			for _, r := range res.GetResources() {
				uris = append(uris, r.GetUri())
				if r.GetUri() == "test://static-binary" && (r.GetName() != "static-binary" || r.GetMimeType() != "image/png" || r.GetDescription() == "") {
					t.Errorf("ListResources static-binary = %v", r)
				}
			}
			if !slices.Contains(uris, "test://static-text") || !slices.Contains(uris, "test://static-binary") {
				t.Errorf("ListResources = %v, want test://static-text and test://static-binary", uris)
			}
			tmpl, err := h.bc.ListResourceTemplates(ctx, &mcpbridgev1.ListResourceTemplatesRequest{Server: server})
			if err != nil {
				t.Fatalf("ListResourceTemplates: %v", err)
			}
			checkPage(t, "ListResourceTemplates", tmpl.GetMeta(), tmpl.GetTtl(), tmpl.Ttl == nil, tmpl.GetCacheScope())
			if len(tmpl.GetResourceTemplates()) != 1 || tmpl.GetResourceTemplates()[0].GetUriTemplate() != "test://template/{id}/data" || tmpl.GetResourceTemplates()[0].GetMimeType() != "application/json" {
				t.Errorf("ListResourceTemplates = %v", tmpl.GetResourceTemplates())
			}

			for _, tt := range []struct {
				uri  string
				want *mcpbridgev1.ResourceContents
			}{
				{"test://static-text", &mcpbridgev1.ResourceContents{Uri: "test://static-text", MimeType: "text/plain", Contents: &mcpbridgev1.ResourceContents_Text{Text: "This is the content of the static text resource."}}},
				{"test://static-binary", &mcpbridgev1.ResourceContents{Uri: "test://static-binary", MimeType: "image/png", Contents: &mcpbridgev1.ResourceContents_Blob{Blob: mustBase64(t, goSDKImage)}}},
				{"test://template/42/data", &mcpbridgev1.ResourceContents{Uri: "test://template/42/data", MimeType: "application/json", Contents: &mcpbridgev1.ResourceContents_Text{Text: `{"id": "42", "templateTest": true, "data": "Data for ID: 42"}`}}},
			} {
				got, err := h.bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: server, Uri: tt.uri})
				if err != nil {
					t.Errorf("ReadResource(%s): %v", tt.uri, err)
					continue
				}
				checkPage(t, "ReadResource", got.GetMeta(), got.GetTtl(), got.Ttl == nil, got.GetCacheScope())
				if diff := cmp.Diff([]*mcpbridgev1.ResourceContents{tt.want}, got.GetContents(), protocmp.Transform()); diff != "" {
					t.Errorf("ReadResource(%s) contents (-want +got):\n%s", tt.uri, diff)
				}
			}
			if blob := func() []byte {
				got, _ := h.bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: server, Uri: "test://static-binary"})
				return got.GetContents()[0].GetBlob()
			}(); !bytes.HasPrefix(blob, pngMagic) {
				t.Errorf("ReadResource(test://static-binary) blob = %q, want PNG bytes (base64 decoded)", blob)
			}

			prompts, err := h.bc.ListPrompts(ctx, &mcpbridgev1.ListPromptsRequest{Server: server})
			if err != nil {
				t.Fatalf("ListPrompts: %v", err)
			}
			checkPage(t, "ListPrompts", prompts.GetMeta(), prompts.GetTtl(), prompts.Ttl == nil, prompts.GetCacheScope())
			var withArgs *mcpbridgev1.Prompt
			for _, p := range prompts.GetPrompts() {
				if p.GetName() == "test_prompt_with_arguments" {
					withArgs = p
				}
			}
			wantArgs := []*mcpbridgev1.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			}
			if withArgs == nil || withArgs.GetTitle() != "Prompt With Arguments" || !cmp.Equal(wantArgs, withArgs.GetArguments(), protocmp.Transform()) {
				t.Errorf("ListPrompts test_prompt_with_arguments = %v", withArgs)
			}
			for _, tt := range []struct {
				name string
				args map[string]string
				want *mcpbridgev1.GetPromptResponse
			}{
				{"test_simple_prompt", nil, &mcpbridgev1.GetPromptResponse{Description: "A simple test prompt", Messages: []*mcpbridgev1.PromptMessage{
					{Role: mcpbridgev1.Role_ROLE_USER, Content: text("This is a simple prompt for testing.")}}}},
				{"test_prompt_with_arguments", map[string]string{"arg1": "a", "arg2": "b"}, &mcpbridgev1.GetPromptResponse{Description: "A prompt with arguments", Messages: []*mcpbridgev1.PromptMessage{
					{Role: mcpbridgev1.Role_ROLE_USER, Content: text("Prompt with arguments: arg1='a', arg2='b'")}}}},
			} {
				got, err := h.bc.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Server: server, Name: tt.name, Arguments: tt.args})
				if err != nil {
					t.Errorf("GetPrompt(%s): %v", tt.name, err)
					continue
				}
				tt.want.Meta = wantMeta
				if diff := cmp.Diff(tt.want, got, protocmp.Transform()); diff != "" {
					t.Errorf("GetPrompt(%s) (-want +got):\n%s", tt.name, diff)
				}
			}

			// The server answers every completion with no values.
			for _, req := range []*mcpbridgev1.CompleteRequest{
				{Server: server, Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "test_prompt_with_arguments"}, ArgumentName: "arg1", ArgumentValue: "p", ContextArguments: map[string]string{"arg2": "b"}},
				{Server: server, Ref: &mcpbridgev1.CompleteRequest_ResourceTemplateUri{ResourceTemplateUri: "test://template/{id}/data"}, ArgumentName: "id", ArgumentValue: "1"},
			} {
				got, err := h.bc.Complete(ctx, req)
				if err != nil {
					t.Errorf("Complete(%v): %v", req.GetRef(), err)
					continue
				}
				if diff := cmp.Diff(&mcpbridgev1.CompleteResponse{Meta: wantMeta}, got, protocmp.Transform()); diff != "" {
					t.Errorf("Complete(%v) (-want +got):\n%s", req.GetRef(), diff)
				}
			}

			// A missing resource: -32602 on 2026-07-28 (docs/protocol.md,
			// "Removed methods"); this server sends the same on 2025-11-25.
			_, err = h.bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: server, Uri: "test://no-such-resource"})
			if rpc, _ := statusDetails(t, err, codes.InvalidArgument); rpc.GetCode() != -32602 {
				t.Errorf("missing resource: JsonRpcError = %v, want -32602", rpc)
			}

			// An unknown tool is a protocol error (-32602) from this
			// server in both eras: INVALID_ARGUMENT with the child's error
			// in the details.
			_, err = h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "no_such_tool"})
			rpc, info := statusDetails(t, err, codes.InvalidArgument)
			if rpc.GetCode() != -32602 || !strings.Contains(rpc.GetMessage(), "no_such_tool") {
				t.Errorf("unknown tool: JsonRpcError = %v, want -32602 naming the tool", rpc)
			}
			wantInfo := map[string]string{"server": server, "method": "tools/call", "code": "-32602"}
			if info.GetReason() != "CHILD_ERROR" || info.GetDomain() != "mcpbridge" || !cmp.Equal(wantInfo, info.GetMetadata()) {
				t.Errorf("unknown tool: ErrorInfo = %v, want CHILD_ERROR with %v", info, wantInfo)
			}
		})
	}
}

// The npm server-everything, a legacy child: typed tools with images,
// structured content, annotations and resource links; prompts, completion
// and resources.
func TestTypedServerEverything(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, everythingServer(t, "everything"))
	ctx := metadata.AppendToOutgoingContext(context.Background(), ServerMetadataKey, "everything")

	tools, err := h.bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	names := toolNamesOf(tools.GetTools())
	for _, want := range []string{"echo", "get-tiny-image", "get-structured-content", "trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Errorf("ListTools lacks %s: %v", want, names)
		}
	}
	if tools.Ttl != nil || tools.GetCacheScope() != mcpbridgev1.CacheScope_CACHE_SCOPE_UNSPECIFIED || tools.GetMeta() != nil {
		t.Errorf("ListTools ttl, cache_scope, meta = %v, %v, %v; want none from a legacy child", tools.GetTtl(), tools.GetCacheScope(), tools.GetMeta())
	}

	echo, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: mustStruct(t, map[string]any{"message": "héllo"})})
	if diff := cmp.Diff(&mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{text("Echo: héllo")}}, echo, protocmp.Transform()); err != nil || diff != "" {
		t.Errorf("CallTool(echo) = %v (-want +got):\n%s", err, diff)
	}

	img, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "get-tiny-image"})
	if err != nil {
		t.Fatalf("CallTool(get-tiny-image): %v", err)
	}
	var image *mcpbridgev1.ImageContent
	for _, c := range img.GetContent() {
		if c.GetImage() != nil {
			image = c.GetImage()
		}
	}
	if image == nil || image.GetMimeType() != "image/png" || !bytes.HasPrefix(image.GetData(), pngMagic) {
		t.Errorf("CallTool(get-tiny-image) = %v, want a PNG image block with decoded bytes", img)
	}

	st, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "get-structured-content", Arguments: mustStruct(t, map[string]any{"location": "New York"})})
	if err != nil {
		t.Fatalf("CallTool(get-structured-content): %v", err)
	}
	sc := st.GetStructuredContent().GetStructValue().GetFields()
	if sc["temperature"].GetKind() == nil || sc["conditions"].GetStringValue() == "" || len(texts(st.GetContent())) != 1 {
		t.Errorf("CallTool(get-structured-content) = %v, want structured_content with temperature and conditions, and its text copy", st)
	}

	ann, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "get-annotated-message", Arguments: mustStruct(t, map[string]any{"messageType": "error", "includeImage": true})})
	if err != nil {
		t.Fatalf("CallTool(get-annotated-message): %v", err)
	}
	if a := ann.GetContent()[0].GetText().GetAnnotations(); a.GetFields()["priority"].GetNumberValue() != 1 || len(a.GetFields()["audience"].GetListValue().GetValues()) != 2 {
		t.Errorf("get-annotated-message annotations = %v, want priority 1 and two audiences", a)
	}

	links, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "get-resource-links", Arguments: mustStruct(t, map[string]any{"count": 2})})
	if err != nil {
		t.Fatalf("CallTool(get-resource-links): %v", err)
	}
	var linked []*mcpbridgev1.Resource
	for _, c := range links.GetContent() {
		if l := c.GetResourceLink(); l != nil {
			linked = append(linked, l)
		}
	}
	if len(linked) != 2 || linked[0].GetUri() != "demo://resource/dynamic/blob/1" || linked[0].GetName() == "" || linked[1].GetMimeType() != "text/plain" {
		t.Errorf("get-resource-links = %v, want two resource_link blocks", links.GetContent())
	}
	// A resource link is read with ReadResource; this one is a blob.
	blob, err := h.bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Uri: linked[0].GetUri()})
	if err != nil || len(blob.GetContents()) != 1 || !bytes.HasPrefix(blob.GetContents()[0].GetBlob(), []byte("Resource 1: This is a base64 blob")) {
		t.Errorf("ReadResource(%s) = %v, %v; want the decoded blob", linked[0].GetUri(), blob, err)
	}

	// This server reports an unknown tool as an isError result: OK.
	unknown, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "no-such-tool"})
	if err != nil || !unknown.GetIsError() {
		t.Errorf("CallTool(no-such-tool) = %v, %v; want an OK response with is_error", unknown, err)
	}

	resources, err := h.bc.ListResources(ctx, &mcpbridgev1.ListResourcesRequest{})
	if err != nil {
		t.Fatalf("ListResources: %v", err)
	}
	var doc string
	for _, r := range resources.GetResources() {
		if strings.HasPrefix(r.GetUri(), "demo://resource/static/document/") {
			doc = r.GetUri()
		}
	}
	if doc == "" {
		t.Fatalf("ListResources = %v, want the static documents", resources.GetResources())
	}
	read, err := h.bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Uri: doc})
	if err != nil || len(read.GetContents()) != 1 || read.GetContents()[0].GetText() == "" || read.GetContents()[0].GetMimeType() != "text/markdown" {
		t.Errorf("ReadResource(%s) = %v, %v; want markdown text", doc, read, err)
	}
	tmpl, err := h.bc.ListResourceTemplates(ctx, &mcpbridgev1.ListResourceTemplatesRequest{})
	if err != nil || len(tmpl.GetResourceTemplates()) == 0 {
		t.Errorf("ListResourceTemplates = %v, %v", tmpl, err)
	}

	prompts, err := h.bc.ListPrompts(ctx, &mcpbridgev1.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("ListPrompts: %v", err)
	}
	var promptNames []string
	for _, p := range prompts.GetPrompts() {
		promptNames = append(promptNames, p.GetName())
	}
	if !slices.Contains(promptNames, "args-prompt") || !slices.Contains(promptNames, "completable-prompt") {
		t.Errorf("ListPrompts = %v", promptNames)
	}
	prompt, err := h.bc.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Name: "args-prompt", Arguments: map[string]string{"city": "Paris"}})
	want := &mcpbridgev1.GetPromptResponse{Messages: []*mcpbridgev1.PromptMessage{{Role: mcpbridgev1.Role_ROLE_USER, Content: text("What's weather in Paris?")}}}
	if diff := cmp.Diff(want, prompt, protocmp.Transform()); err != nil || diff != "" {
		t.Errorf("GetPrompt(args-prompt) = %v (-want +got):\n%s", err, diff)
	}

	completion, err := h.bc.Complete(ctx, &mcpbridgev1.CompleteRequest{
		Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "completable-prompt"}, ArgumentName: "department", ArgumentValue: "E"})
	wantCompletion := &mcpbridgev1.CompleteResponse{Values: []string{"Engineering"}, Total: proto.Uint32(1)}
	if diff := cmp.Diff(wantCompletion, completion, protocmp.Transform()); err != nil || diff != "" {
		t.Errorf("Complete(department E) = %v (-want +got):\n%s", err, diff)
	}

	// A method the child does not have: UNIMPLEMENTED with -32601.
	_, err = h.bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "no/such/method"})
	if rpc, _ := statusDetails(t, err, codes.Unimplemented); rpc.GetCode() != -32601 {
		t.Errorf("Call(no/such/method) JsonRpcError = %v, want -32601", rpc)
	}
}

// MRTR on a 2026-07-28 child (the Go SDK server): input_required with
// input_requests, then a retry with input_responses, and a round trip of
// request_state, for tools/call (unary and streamed) and prompts/get.
func TestTypedMRTR(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, goSDKServer(t, "go"))
	ctx := context.Background()
	caps := mustStruct(t, map[string]any{"elicitation": map[string]any{"form": map[string]any{}}})

	first, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "test_input_required_result_elicitation", ClientCapabilities: caps})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	ir := first.GetInputRequired()
	ask := ir.GetInputRequests().GetFields()["user_name"].GetStructValue().GetFields()
	if ir == nil || len(first.GetContent()) != 0 || ask["method"].GetStringValue() != "elicitation/create" ||
		ask["params"].GetStructValue().GetFields()["message"].GetStringValue() != "What is your name?" || ir.GetRequestState() != "" {
		t.Fatalf("CallTool = %v, want input_required asking user_name by elicitation/create, without request_state", first)
	}
	if diff := cmp.Diff(serverInfoMeta(t), ir.GetMeta(), protocmp.Transform()); diff != "" || first.GetMeta() != nil {
		t.Errorf("input_required meta (-want +got):\n%s; result meta %v, want none", diff, first.GetMeta())
	}
	answer := mustStruct(t, map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}})
	second, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "test_input_required_result_elicitation", ClientCapabilities: caps, InputResponses: answer})
	if err != nil || second.GetInputRequired() != nil || !slices.Equal(texts(second.GetContent()), []string{"Hello, Ada!"}) {
		t.Errorf("retry = %v, %v; want Hello, Ada!", second, err)
	}

	// request_state comes back byte for byte and is sent back the same way.
	first, err = h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "test_input_required_result_request_state", ClientCapabilities: caps})
	if err != nil || first.GetInputRequired().GetRequestState() != "request_state" {
		t.Fatalf("CallTool(request_state) = %v, %v; want input_required with request_state", first, err)
	}
	confirm := mustStruct(t, map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}})
	second, err = h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "test_input_required_result_request_state", ClientCapabilities: caps,
		InputResponses: confirm, RequestState: first.GetInputRequired().GetRequestState()})
	if err != nil || !slices.Equal(texts(second.GetContent()), []string{"state-ok: requestState received and confirmation accepted"}) {
		t.Errorf("retry with request_state = %v, %v", second, err)
	}
	// prompts/get has MRTR too.
	prompt, err := h.bc.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Name: "test_input_required_result_prompt", ClientCapabilities: caps})
	if err != nil || prompt.GetInputRequired().GetInputRequests().GetFields()["user_context"] == nil || len(prompt.GetMessages()) != 0 {
		t.Fatalf("GetPrompt = %v, %v; want input_required asking user_context", prompt, err)
	}
	prompt, err = h.bc.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Name: "test_input_required_result_prompt", ClientCapabilities: caps,
		InputResponses: mustStruct(t, map[string]any{"user_context": map[string]any{"action": "accept", "content": map[string]any{"context": "tests"}}})})
	wantPrompt := &mcpbridgev1.GetPromptResponse{Description: "A prompt with elicited context", Meta: serverInfoMeta(t),
		Messages: []*mcpbridgev1.PromptMessage{{Role: mcpbridgev1.Role_ROLE_USER, Content: text("Context: tests")}}}
	if diff := cmp.Diff(wantPrompt, prompt, protocmp.Transform()); err != nil || diff != "" {
		t.Errorf("GetPrompt retry = %v (-want +got):\n%s", err, diff)
	}

	// The same tool over CallToolStream: input_required is the result.
	stream, err := h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Name: "test_input_required_result_request_state", ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := recvAll(stream)
	if err != nil || len(msgs) != 1 || msgs[0].GetResult().GetInputRequired().GetRequestState() != "request_state" {
		t.Errorf("CallToolStream = %v, %v; want one result with input_required", msgs, err)
	}
}

// echoParams calls the "typed-child" fixture's echo tool with req and
// returns the params the child received.
func echoParams(tb testing.TB, h *typedHarness, ctx context.Context, server string, req *mcpbridgev1.CallToolRequest) map[string]any {
	tb.Helper()
	req.Server, req.Name = server, "echo"
	res, err := h.bc.CallTool(ctx, req)
	if err != nil {
		tb.Fatalf("CallTool(echo): %v", err)
	}
	var params map[string]any
	if err := json.Unmarshal([]byte(texts(res.GetContent())[0]), &params); err != nil {
		tb.Fatal(err)
	}
	return params
}

// What typed requests look like on the wire, per era: the caller's
// arguments and _meta verbatim, client_capabilities as the 2026 _meta key,
// MRTR fields on 2026 only, and nothing 2026 for a legacy child.
func TestTypedRequestShape(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, typedChildServer(t, "modern", "modern"), typedChildServer(t, "legacy", "legacy"))
	ctx := context.Background()
	args := mustStruct(t, map[string]any{"n": 1.5, "s": "x", "nested": map[string]any{"b": true, "z": nil}, "list": []any{1, "a"}})
	meta := mustStruct(t, map[string]any{"example.com/trace": "abc"})

	got := echoParams(t, h, ctx, "modern", &mcpbridgev1.CallToolRequest{
		Arguments: args, Meta: meta,
		ClientCapabilities: mustStruct(t, map[string]any{"elicitation": map[string]any{}}),
		InputResponses:     mustStruct(t, map[string]any{"k": map[string]any{"action": "decline"}}),
		RequestState:       "opaque\"state✓",
	})
	want := map[string]any{
		"name":           "echo",
		"arguments":      map[string]any{"n": 1.5, "s": "x", "nested": map[string]any{"b": true, "z": nil}, "list": []any{1.0, "a"}},
		"inputResponses": map[string]any{"k": map[string]any{"action": "decline"}},
		"requestState":   "opaque\"state✓",
		"_meta": map[string]any{
			"example.com/trace":             "abc",
			protocol.MetaProtocolVersion:    "2026-07-28",
			protocol.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}},
			protocol.MetaClientInfo:         map[string]any{"name": "mcpbridge", "version": "dev"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("2026 tools/call params (-want +got):\n%s", diff)
	}

	// A legacy child: client_capabilities is ignored (its capabilities
	// were settled by initialize) and nothing 2026 is stamped.
	got = echoParams(t, h, ctx, "legacy", &mcpbridgev1.CallToolRequest{Arguments: args, Meta: meta,
		ClientCapabilities: mustStruct(t, map[string]any{"elicitation": map[string]any{}})})
	want = map[string]any{"name": "echo", "arguments": want["arguments"], "_meta": map[string]any{"example.com/trace": "abc"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("legacy tools/call params (-want +got):\n%s", diff)
	}
	got = echoParams(t, h, ctx, "legacy", &mcpbridgev1.CallToolRequest{})
	if diff := cmp.Diff(map[string]any{"name": "echo"}, got); diff != "" {
		t.Errorf("legacy tools/call params without arguments or meta (-want +got):\n%s", diff)
	}
}

// Bad input from the gRPC client is INVALID_ARGUMENT with reason
// INVALID_INPUT, and never reaches the child: the "typed-child" fixture
// counts the tools/call requests it gets.
func TestTypedInvalidInput(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, typedChildServer(t, "modern", "modern"), typedChildServer(t, "legacy", "legacy"))
	ctx := context.Background()
	nan := &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewNumberValue(math.NaN())}}
	unset := &structpb.Struct{Fields: map[string]*structpb.Value{"x": {}}}
	caps := mustStruct(t, map[string]any{"roots": map[string]any{}})
	for _, tt := range []struct {
		name string
		call func() error
	}{
		{"empty tool name", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern"})
			return err
		}},
		{"progressToken in meta", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Meta: mustStruct(t, map[string]any{"progressToken": 1})})
			return err
		}},
		{"protocolVersion in meta", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Meta: mustStruct(t, map[string]any{protocol.MetaProtocolVersion: "2026-07-28"})})
			return err
		}},
		{"protocolVersion in meta, legacy", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "legacy", Name: "echo", Meta: mustStruct(t, map[string]any{protocol.MetaProtocolVersion: "2025-11-25"})})
			return err
		}},
		{"client_capabilities and the meta key", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", ClientCapabilities: caps, Meta: mustStruct(t, map[string]any{protocol.MetaClientCapabilities: map[string]any{}})})
			return err
		}},
		{"request_state to a legacy child", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "legacy", Name: "echo", RequestState: "s"})
			return err
		}},
		{"input_responses to a legacy child", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "legacy", Name: "echo", InputResponses: caps})
			return err
		}},
		{"NaN in arguments", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Arguments: nan})
			return err
		}},
		{"Value without a kind", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo", Arguments: unset})
			return err
		}},
		{"unknown server", func() error {
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "nope", Name: "echo"})
			return err
		}},
		{"server field and metadata disagree", func() error {
			md := metadata.AppendToOutgoingContext(ctx, ServerMetadataKey, "legacy")
			_, err := h.bc.CallTool(md, &mcpbridgev1.CallToolRequest{Server: "modern", Name: "echo"})
			return err
		}},
		{"stream: log_level and the meta key", func() error {
			s, err := h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "modern", Name: "echo",
				LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO, Meta: mustStruct(t, map[string]any{protocol.MetaLogLevel: "debug"})})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		{"stream: unknown log level", func() error {
			s, err := h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "modern", Name: "echo", LogLevel: 42})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		{"stream: empty tool name", func() error {
			s, err := h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "legacy"})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		{"CallStream: malformed params_json", func() error {
			s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "modern", Method: "tools/call", ParamsJson: `{"name":"echo",`})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		{"CallStream: params_json not an object", func() error {
			s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "modern", Method: "tools/call", ParamsJson: `["echo"]`})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		{"CallStream: progressToken in _meta", func() error {
			s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "legacy", Method: "tools/call", ParamsJson: `{"name":"echo","_meta":{"progressToken":"t"}}`})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		{"CallStream: log_level and the _meta key", func() error {
			s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "modern", Method: "tools/call",
				ParamsJson: `{"name":"echo","_meta":{"io.modelcontextprotocol/logLevel":"info"}}`, LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
		// A caller never chooses a progress token: the child's progress
		// for it would reach the call the child-side token names, which
		// may be another caller's.
		{"Call: progressToken in _meta", func() error {
			_, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "modern", Method: "tools/call", ParamsJson: `{"name":"echo","_meta":{"progressToken":1}}`})
			return err
		}},
		{"Call: _meta that is not an object", func() error {
			_, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "modern", Method: "tools/call", ParamsJson: `{"name":"echo","_meta":5}`})
			return err
		}},
		{"Call: malformed params_json", func() error {
			_, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "modern", Method: "tools/call", ParamsJson: `{`})
			return err
		}},
		{"Call: 100,000-deep params_json", func() error {
			_, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "modern", Method: "tools/call", ParamsJson: strings.Repeat("[", 100000) + strings.Repeat("]", 100000)})
			return err
		}},
		{"CallStream: a bridge-owned method", func() error {
			s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "legacy", Method: "initialize"})
			if err == nil {
				_, err = recvAll(s)
			}
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			_, info := statusDetails(t, err, codes.InvalidArgument)
			if r := info.GetReason(); r != "INVALID_INPUT" && r != "UNKNOWN_SERVER" {
				t.Errorf("ErrorInfo reason = %q, want INVALID_INPUT (or UNKNOWN_SERVER)", r)
			}
			// Invalid JSON is told from JSON of the wrong shape.
			msg := status.Convert(err).Message()
			switch {
			case strings.Contains(tt.name, "malformed") && !strings.Contains(msg, "not valid JSON"):
				t.Errorf("message %q does not say the JSON is invalid", msg)
			case strings.Contains(tt.name, "deep") && !strings.Contains(msg, "exceeded max depth"):
				t.Errorf("message %q does not say the JSON is nested too deeply", msg)
			}
		})
	}
	for _, server := range []string{"modern", "legacy"} {
		if n := seenCalls(t, h, ctx, server); n != 1 {
			t.Errorf("%s child saw %d tools/call requests, want only the final echo", server, n)
		}
	}
	// Requests a typed RPC cannot express are refused too.
	for _, tt := range []struct {
		name string
		call func() error
	}{
		{"ReadResource without uri", func() error {
			_, err := h.bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: "modern"})
			return err
		}},
		{"GetPrompt without name", func() error {
			_, err := h.bc.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Server: "modern"})
			return err
		}},
		{"Complete without ref", func() error {
			_, err := h.bc.Complete(ctx, &mcpbridgev1.CompleteRequest{Server: "modern", ArgumentName: "a"})
			return err
		}},
		{"Complete without argument_name", func() error {
			_, err := h.bc.Complete(ctx, &mcpbridgev1.CompleteRequest{Server: "modern", Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "p"}})
			return err
		}},
		{"ListTools with protocolVersion in meta", func() error {
			_, err := h.bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "legacy", Meta: mustStruct(t, map[string]any{protocol.MetaProtocolVersion: "x"})})
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, info := statusDetails(t, tt.call(), codes.InvalidArgument); info.GetReason() != "INVALID_INPUT" {
				t.Errorf("ErrorInfo reason = %q, want INVALID_INPUT", info.GetReason())
			}
		})
	}
}

// seenCalls returns how many tools/call requests the "typed-child" fixture
// has received, this echo included.
func seenCalls(tb testing.TB, h *typedHarness, ctx context.Context, server string) int {
	tb.Helper()
	res, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "echo"})
	if err != nil {
		tb.Fatalf("CallTool(echo): %v", err)
	}
	return int(res.GetMeta().GetFields()["seen"].GetNumberValue())
}

// Results the typed messages model only in part: unknown and malformed
// content blocks arrive as other_json, a non-object structured_content
// (2026) as a Value, and an integer above 2^53 rounds in the typed result
// while Call keeps it exact.
func TestTypedOddResult(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, typedChildServer(t, "modern", "modern"), typedChildServer(t, "legacy", "legacy"))
	ctx := context.Background()
	for _, server := range []string{"modern", "legacy"} {
		t.Run(server, func(t *testing.T) {
			res, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "odd"})
			if err != nil {
				t.Fatalf("CallTool(odd): %v", err)
			}
			size := int64(42)
			want := []*mcpbridgev1.Content{
				{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: "annotated",
					Annotations: mustStruct(t, map[string]any{"audience": []any{"user"}, "priority": 0.5}), Meta: mustStruct(t, map[string]any{"x/y": "z"})}}},
				{Block: &mcpbridgev1.Content_OtherJson{OtherJson: `{"frames":3,"type":"hologram"}`}},
				{Block: &mcpbridgev1.Content_OtherJson{OtherJson: `{"data":"not base64!","mimeType":"image/png","type":"image"}`}},
				{Block: &mcpbridgev1.Content_Audio{Audio: &mcpbridgev1.AudioContent{Data: []byte{0, 1, 2}, MimeType: "audio/wav"}}},
				{Block: &mcpbridgev1.Content_ResourceLink{ResourceLink: &mcpbridgev1.Resource{Uri: "x://y", Name: "y", Size: &size,
					Icons: []*mcpbridgev1.Icon{{Src: "data:,", Sizes: []string{"any"}}}}}},
				{Block: &mcpbridgev1.Content_Resource{Resource: &mcpbridgev1.EmbeddedResource{Resource: &mcpbridgev1.ResourceContents{Uri: "x://b", Contents: &mcpbridgev1.ResourceContents_Blob{Blob: []byte{0, 1, 2}}}}}},
			}
			if diff := cmp.Diff(want, res.GetContent(), protocmp.Transform()); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			big := map[string]any{"big": 9007199254740992.0} // 2^53+1 rounded: Struct holds doubles
			var wantSC any = big
			if server == "modern" {
				wantSC = []any{1.0, "two", big}
			}
			if diff := cmp.Diff(wantSC, res.GetStructuredContent().AsInterface()); diff != "" {
				t.Errorf("structured_content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(mustStruct(t, map[string]any{"a/b": 1, "seen": res.GetMeta().GetFields()["seen"].GetNumberValue()}), res.GetMeta(), protocmp.Transform()); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
			raw, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Server: server, Method: "tools/call", ParamsJson: `{"name":"odd"}`})
			if err != nil || !strings.Contains(raw.GetResultJson(), `"big":9007199254740993`) {
				t.Errorf("Call(odd) = %v, %v; want the integer exact", raw, err)
			}

			// A result the typed response cannot hold is INTERNAL, with
			// the reason in the details; Call still returns it.
			_, err = h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "badshape"})
			rpc, info := statusDetails(t, err, codes.Internal)
			if rpc.GetCode() != -32603 || !strings.Contains(rpc.GetDataJson(), "result.content") || info.GetMetadata()["method"] != "tools/call" {
				t.Errorf("CallTool(badshape): %v, %v; want -32603 naming result.content", rpc, info)
			}
			if raw, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Server: server, Method: "tools/call", ParamsJson: `{"name":"badshape"}`}); err != nil || !strings.Contains(raw.GetResultJson(), `"content":"not an array"`) {
				t.Errorf("Call(badshape) = %v, %v", raw, err)
			}
		})
	}
}

// Pagination where the child pages (this module's MCP runtime, two items a
// page): next_cursor walks every list to its end in both eras; 2026 pages
// carry the child's cache hints. An altered cursor is the child's -32602.
func TestTypedPagination(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t,
		func() ServerConfig {
			sc := fixtureServer(t, "modern", "typed-pager")
			sc.Versions = []string{protocol.Version20260728}
			return sc
		}(),
		func() ServerConfig {
			sc := fixtureServer(t, "legacy", "typed-pager")
			sc.Versions = []string{protocol.Version20250618}
			return sc
		}(),
	)
	ctx := context.Background()
	type page struct {
		items  []string
		next   string
		ttl    time.Duration
		hasTTL bool
		scope  mcpbridgev1.CacheScope
	}
	lists := []struct {
		name string
		get  func(server, cursor string) (page, error)
		want []string
	}{
		{"tools", func(server, cursor string) (page, error) {
			r, err := h.bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: server, Cursor: cursor})
			return page{toolNamesOf(r.GetTools()), r.GetNextCursor(), r.GetTtl().AsDuration(), r.Ttl != nil, r.GetCacheScope()}, err
		}, []string{"tool1", "tool2", "tool3", "tool4", "tool5"}},
		{"prompts", func(server, cursor string) (page, error) {
			r, err := h.bc.ListPrompts(ctx, &mcpbridgev1.ListPromptsRequest{Server: server, Cursor: cursor})
			var names []string
			for _, p := range r.GetPrompts() {
				names = append(names, p.GetName())
			}
			return page{names, r.GetNextCursor(), r.GetTtl().AsDuration(), r.Ttl != nil, r.GetCacheScope()}, err
		}, []string{"prompt1", "prompt2", "prompt3", "prompt4", "prompt5"}},
		{"resources", func(server, cursor string) (page, error) {
			r, err := h.bc.ListResources(ctx, &mcpbridgev1.ListResourcesRequest{Server: server, Cursor: cursor})
			var uris []string
			for _, x := range r.GetResources() {
				uris = append(uris, x.GetUri())
			}
			return page{uris, r.GetNextCursor(), r.GetTtl().AsDuration(), r.Ttl != nil, r.GetCacheScope()}, err
		}, []string{"pager://r/1", "pager://r/2", "pager://r/3", "pager://r/4", "pager://r/5"}},
		{"templates", func(server, cursor string) (page, error) {
			r, err := h.bc.ListResourceTemplates(ctx, &mcpbridgev1.ListResourceTemplatesRequest{Server: server, Cursor: cursor})
			var uris []string
			for _, x := range r.GetResourceTemplates() {
				uris = append(uris, x.GetUriTemplate())
			}
			return page{uris, r.GetNextCursor(), r.GetTtl().AsDuration(), r.Ttl != nil, r.GetCacheScope()}, err
		}, []string{"pager://t1/{id}", "pager://t2/{id}", "pager://t3/{id}"}},
	}
	for _, server := range []string{"modern", "legacy"} {
		for _, l := range lists {
			t.Run(server+"/"+l.name, func(t *testing.T) {
				var all []string
				var cursor string
				pages := 0
				for {
					p, err := l.get(server, cursor)
					if err != nil {
						t.Fatalf("page %d (cursor %q): %v", pages, cursor, err)
					}
					pages++
					if len(p.items) > 2 {
						t.Errorf("page %d has %d items, want at most 2", pages, len(p.items))
					}
					switch {
					case server == "modern" && (!p.hasTTL || p.ttl != 90*time.Second || p.scope != mcpbridgev1.CacheScope_CACHE_SCOPE_PUBLIC):
						t.Errorf("page %d ttl, cache_scope = %v (set %v), %v; want 90s, PUBLIC", pages, p.ttl, p.hasTTL, p.scope)
					case server == "legacy" && (p.hasTTL || p.scope != mcpbridgev1.CacheScope_CACHE_SCOPE_UNSPECIFIED):
						t.Errorf("page %d ttl, cache_scope = %v, %v; want unset for a legacy child", pages, p.ttl, p.scope)
					}
					all = append(all, p.items...)
					if p.next == "" {
						break
					}
					cursor = p.next
				}
				if !slices.Equal(all, l.want) || pages != (len(l.want)+1)/2 {
					t.Errorf("%d pages of %v, want %d pages of %v", pages, all, (len(l.want)+1)/2, l.want)
				}
			})
		}
		t.Run(server+"/bad cursor", func(t *testing.T) {
			_, err := h.bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: server, Cursor: "forged"})
			rpc, info := statusDetails(t, err, codes.InvalidArgument)
			if rpc.GetCode() != -32602 || info.GetReason() != "CHILD_ERROR" {
				t.Errorf("forged cursor: %v, %v; want the child's -32602", rpc, info)
			}
		})
	}
}

// Call is lossless: its result_json is byte for byte what a stdio.Client
// connected to the same kind of child gets for the same request (the
// bridge's own stdio.Client does nothing more), in both eras.
func TestCallByteIdentical(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		sc    func(tb testing.TB) ServerConfig
		calls [][2]string
	}{
		{"go-sdk-2026", func(tb testing.TB) ServerConfig { return goSDKServer(tb, "") }, [][2]string{
			{"tools/list", ""},
			{"tools/call", `{"name":"test_simple_text"}`},
			{"tools/call", `{"name":"test_multiple_content_types","arguments":{}}`},
			{"tools/call", `{"name":"test_error_handling"}`},
			{"resources/read", ` { "uri" : "test://static-binary" } `},
			{"resources/templates/list", `{}`},
			{"prompts/get", `{"name":"test_prompt_with_arguments","arguments":{"arg1":"é","arg2":"\u00e9"}}`},
			{"tools/call", `{"name":"test_input_required_result_elicitation","_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}`},
		}},
		{"go-sdk-2025-06-18", func(tb testing.TB) ServerConfig { return goSDKServer(tb, "", protocol.Version20250618) }, [][2]string{
			{"tools/list", ""},
			{"tools/call", `{"name":"test_image_content"}`},
			{"prompts/list", ""},
		}},
		{"server-everything", func(tb testing.TB) ServerConfig { return everythingServer(tb, "") }, [][2]string{
			{"tools/list", ""},
			{"tools/call", `{"name":"echo","arguments":{"message":"1e400 \u2028 \ud83d\ude00"}}`},
			{"tools/call", `{"name":"get-structured-content","arguments":{"location":"Chicago"}}`},
			{"prompts/list", ""},
			{"resources/read", `{"uri":"demo://resource/static/document/features.md"}`},
			{"completion/complete", `{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"department","value":"E"}}`},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := tt.sc(t)
			h := startTypedBridge(t, sc)
			direct := directClient(t, sc)
			ctx := context.Background()
			for _, c := range tt.calls {
				var params json.RawMessage
				if c[1] != "" {
					params = json.RawMessage(c[1])
				}
				want, err := direct.Call(ctx, c[0], params, nil)
				if err != nil {
					t.Fatalf("direct %s %s: %v", c[0], c[1], err)
				}
				got, err := h.bc.Call(ctx, &mcpbridgev1.CallRequest{Method: c[0], ParamsJson: c[1]})
				if err != nil {
					t.Fatalf("Call(%s %s): %v", c[0], c[1], err)
				}
				if got.GetResultJson() != string(want) {
					t.Errorf("Call(%s %s).result_json =\n%s\nwant (direct)\n%s", c[0], c[1], got.GetResultJson(), want)
				}
				// CallStream's result is the same bytes.
				s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Method: c[0], ParamsJson: c[1]})
				if err != nil {
					t.Fatal(err)
				}
				msgs, err := recvAll(s)
				if err != nil || len(msgs) == 0 || msgs[len(msgs)-1].GetResult().GetResultJson() != string(want) {
					t.Errorf("CallStream(%s %s) = %v, %v; want the same result_json last", c[0], c[1], msgs, err)
				}
			}
		})
	}
}
