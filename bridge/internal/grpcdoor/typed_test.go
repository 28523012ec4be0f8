package grpcdoor

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// testTyped calls every typed unary RPC on a child of each era: the
// requests are built for the child's era and the results decoded from it.
func testTyped(t *testing.T, servers []*pool.Server) {
	_, client := twoEras(t, servers)
	ctx := testCtx(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Run("ListTools pages", func(t *testing.T) {
				var names []string
				cursor, pages := "", 0
				for {
					res, err := client.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: era, Cursor: cursor})
					if err != nil {
						t.Fatalf("ListTools(%q) = %v", cursor, err)
					}
					pages++
					if len(res.GetTools()) > fixturePageSize {
						t.Errorf("a page of %d tools, want at most %d", len(res.GetTools()), fixturePageSize)
					}
					for _, tool := range res.GetTools() {
						names = append(names, tool.GetName())
					}
					if cursor = res.GetNextCursor(); cursor == "" {
						break
					}
				}
				want := []string{"ask", "big", "echo", "exit", "fail", "grow", "hold", "job", "odd", "slow", "steps", "touch"}
				if !slices.Equal(names, want) || pages != 4 {
					t.Errorf("tools %v in %d pages, want %v in 4", names, pages, want)
				}
			})
			t.Run("ListTools bad cursor", func(t *testing.T) {
				_, err := client.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: era, Cursor: "not-a-cursor"})
				wantStatus(t, "ListTools(bad cursor)", err, codes.InvalidArgument, rpcerr.ReasonChildError, jsonrpc.CodeInvalidParams)
			})
			t.Run("ListResources", func(t *testing.T) {
				res, err := client.ListResources(ctx, &mcpbridgev1.ListResourcesRequest{Server: era})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.GetResources()) != 1 || res.GetResources()[0].GetUri() != "mem://a" {
					t.Errorf("ListResources = %v, want mem://a", res)
				}
			})
			t.Run("ListResourceTemplates", func(t *testing.T) {
				res, err := client.ListResourceTemplates(ctx, &mcpbridgev1.ListResourceTemplatesRequest{Server: era})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.GetResourceTemplates()) != 1 || res.GetResourceTemplates()[0].GetUriTemplate() != "mem://items/{id}" {
					t.Errorf("ListResourceTemplates = %v, want mem://items/{id}", res)
				}
			})
			t.Run("ListPrompts", func(t *testing.T) {
				res, err := client.ListPrompts(ctx, &mcpbridgev1.ListPromptsRequest{Server: era})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.GetPrompts()) != 1 || res.GetPrompts()[0].GetName() != "greet" || len(res.GetPrompts()[0].GetArguments()) != 1 {
					t.Errorf("ListPrompts = %v, want greet {name}", res)
				}
			})
			t.Run("CallTool", func(t *testing.T) {
				res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "echo", Arguments: args(t, map[string]any{"text": "hi " + era})})
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "hi "+era || res.GetIsError() {
					t.Errorf("echo = %q (is_error %v), want %q", got, res.GetIsError(), "hi "+era)
				}
			})
			t.Run("CallTool tool error", func(t *testing.T) {
				res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "fail"})
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "it failed" || !res.GetIsError() {
					t.Errorf("fail = %q (is_error %v), want an error result", got, res.GetIsError())
				}
			})
			t.Run("CallTool unknown tool", func(t *testing.T) {
				_, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "nope"})
				d := wantStatus(t, "CallTool(nope)", err, codes.InvalidArgument, rpcerr.ReasonChildError, jsonrpc.CodeInvalidParams)
				if d.info.GetMetadata()["server"] != era || d.info.GetMetadata()["method"] != "tools/call" {
					t.Errorf("ErrorInfo %v, want server %s and method tools/call", d.info, era)
				}
			})
			t.Run("CallTool without a name", func(t *testing.T) {
				_, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era})
				wantField(t, "CallTool(no name)", err, "name")
			})
			t.Run("CallTool input required", func(t *testing.T) {
				res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "ask"})
				if era == "legacy" {
					// Nobody is there to answer the child's elicitation:
					// the tool's error is its result.
					if err != nil || !res.GetIsError() {
						t.Errorf("ask with nobody to answer = %v, %v; want an error result", res, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if ir := res.GetInputRequired(); ir == nil || ir.GetInputRequests().GetFields()["who"] == nil {
					t.Errorf("ask = %v, want input_required asking who", res)
				}
			})
			t.Run("ReadResource", func(t *testing.T) {
				for uri, want := range map[string]string{"mem://a": "alpha", "mem://items/7": "item 7"} {
					res, err := client.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: era, Uri: uri})
					if err != nil {
						t.Fatalf("ReadResource(%s) = %v", uri, err)
					}
					if c := res.GetContents(); len(c) != 1 || c[0].GetText() != want || c[0].GetUri() != uri {
						t.Errorf("ReadResource(%s) = %v, want %q", uri, res, want)
					}
				}
			})
			t.Run("ReadResource unknown", func(t *testing.T) {
				_, err := client.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: era, Uri: "mem://nope"})
				code, rpcCode := codes.NotFound, int32(jsonrpc.CodeResourceNotFound)
				if era == "modern" {
					code, rpcCode = codes.InvalidArgument, jsonrpc.CodeInvalidParams
				}
				wantStatus(t, "ReadResource(mem://nope)", err, code, rpcerr.ReasonChildError, rpcCode)
			})
			t.Run("GetPrompt", func(t *testing.T) {
				res, err := client.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Server: era, Name: "greet", Arguments: map[string]string{"name": "Ada"}})
				if err != nil {
					t.Fatal(err)
				}
				if m := res.GetMessages(); len(m) != 1 || m[0].GetContent().GetText().GetText() != "Hello, Ada" || res.GetDescription() != "a greeting" {
					t.Errorf("GetPrompt = %v, want Hello, Ada", res)
				}
			})
			t.Run("Complete", func(t *testing.T) {
				res, err := client.Complete(ctx, &mcpbridgev1.CompleteRequest{Server: era, Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "greet"},
					ArgumentName: "name", ArgumentValue: "A"})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.GetValues(), []string{"Ada", "Alan"}) || res.GetTotal() != 2 {
					t.Errorf("Complete(A) = %v, want Ada, Alan of 2", res)
				}
			})
			t.Run("Complete a template", func(t *testing.T) {
				res, err := client.Complete(ctx, &mcpbridgev1.CompleteRequest{Server: era, Ref: &mcpbridgev1.CompleteRequest_ResourceTemplateUri{ResourceTemplateUri: "mem://items/{id}"},
					ArgumentName: "id", ArgumentValue: "1"})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.GetValues()) != 0 {
					t.Errorf("Complete(template) = %v, want no values", res)
				}
			})
			t.Run("Complete without a ref", func(t *testing.T) {
				_, err := client.Complete(ctx, &mcpbridgev1.CompleteRequest{Server: era, ArgumentName: "name"})
				d := detailsOf(err)
				if d.st.Code() != codes.InvalidArgument || d.bad == nil {
					t.Errorf("Complete(no ref) = %v, want INVALID_ARGUMENT with a field violation", err)
				}
			})
			t.Run("a result no typed response holds", func(t *testing.T) {
				_, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "odd"})
				d := wantStatus(t, "CallTool(odd)", err, codes.Internal, rpcerr.ReasonChildError, jsonrpc.CodeInternalError)
				if era == "modern" {
					// The 2026 runtime cannot add its _meta to an array:
					// the child's own -32603, for Call too.
					_, err = client.Call(ctx, &mcpbridgev1.CallRequest{Server: era, Method: "tools/call", ParamsJson: `{"name":"odd"}`})
					wantStatus(t, "Call(odd)", err, codes.Internal, rpcerr.ReasonChildError, jsonrpc.CodeInternalError)
					return
				}
				if !strings.Contains(d.rpc.GetMessage(), "Call returns it as JSON") || !strings.Contains(d.rpc.GetDataJson(), `"error"`) {
					t.Errorf("CallTool(odd): JsonRpcError %v, want it to point to Call, with the reason in its data", d.rpc)
				}
				st, err := client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: era, Name: "odd"})
				wantStatus(t, "CallToolStream(odd)", streamEnd(st, err), codes.Internal, rpcerr.ReasonChildError, jsonrpc.CodeInternalError)
				res, err := client.Call(ctx, &mcpbridgev1.CallRequest{Server: era, Method: "tools/call", ParamsJson: `{"name":"odd"}`})
				if err != nil || !strings.Contains(res.GetResultJson(), `"_meta":[5]`) {
					t.Errorf("Call(odd) = %v, %v; want the result as it is", res, err)
				}
			})
			t.Run("too large for the typed response", func(t *testing.T) {
				_, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "big", Arguments: args(t, map[string]any{"n": testMaxMessageBytes + 1})})
				d := wantStatus(t, "CallTool(big)", err, codes.ResourceExhausted, rpcerr.ReasonTooLarge, jsonrpc.CodeInternalError)
				if !strings.Contains(d.rpc.GetDataJson(), `"limit":65536`) {
					t.Errorf("JsonRpcError data %s, want the limit", d.rpc.GetDataJson())
				}
				// Just under the limit it is measured and fits.
				res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "big", Arguments: args(t, map[string]any{"n": testMaxMessageBytes / 2})})
				if err != nil || len(text(t, res)) != testMaxMessageBytes/2 {
					t.Errorf("CallTool(big, half the limit) = %v", err)
				}
			})
		})
	}
}
