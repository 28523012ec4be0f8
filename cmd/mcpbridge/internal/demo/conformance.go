package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// This file holds the fixtures of the official MCP conformance suite
// (@modelcontextprotocol/conformance; docs/testing.md,
// "The conformance suite"), served with `mcpbridge demo -conformance`: the
// tools, resources and prompts its server scenarios call by name, each
// behaving as the scenario's "Server Implementation Requirements" describe.
// They are kept out of the default demo, whose listing should stay short
// enough to read.
//
// Where a scenario leaves room, a fixture does what the runtime does for
// any server rather than what the test looks for: questions go through
// Request.Ask, so a missing capability is the runtime's -32021 and a
// tampered requestState fails its AES-GCM seal, not a suffix check.

// The conformance suite's resource URIs.
const (
	watchedURI      = "test://watched-resource"
	fixtureTemplate = "test://template/{id}/data"
)

func (d *Demo) addConformance() {
	d.addConformanceTools()
	d.addConformanceMRTRTools()
	d.addConformanceResources()
	d.addConformancePrompts()
	d.addConformanceTaskTools()
}

// noArgs is the input schema of the fixtures that take no arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// fixed returns a handler that always returns res.
func fixed(res *mcp.ToolResult) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) { return res, nil }
}

// tool registers a fixture tool with a name, a description and a schema
// (nil: no arguments).
func (d *Demo) tool(name, description string, schema json.RawMessage, h mcp.ToolHandler) {
	if schema == nil {
		schema = noArgs
	}
	d.srv.AddTool(mcp.Tool{Name: name, Description: description, InputSchema: schema}, h)
}

func (d *Demo) addConformanceTools() {
	d.tool("test_simple_text", "Returns a simple text block", nil,
		fixed(mcp.TextResult("This is a simple text response for testing.")))
	d.tool("test_image_content", "Returns an image block (a 1x1 PNG)", nil,
		fixed(&mcp.ToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pixelPNG, MIMEType: "image/png"}}}))
	d.tool("test_audio_content", "Returns an audio block (10 ms of silence, WAV)", nil,
		fixed(&mcp.ToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: silenceWAV, MIMEType: "audio/wav"}}}))
	d.tool("test_embedded_resource", "Returns an embedded text resource", nil,
		fixed(&mcp.ToolResult{Content: []mcp.Content{embedded("test://embedded-resource", "This is an embedded resource")}}))
	d.tool("test_multiple_content_types", "Returns text, an image and an embedded resource", nil,
		fixed(&mcp.ToolResult{Content: []mcp.Content{
			mcp.Text("This is text content"),
			&mcp.ImageContent{Data: pixelPNG, MIMEType: "image/png"},
			embedded("test://embedded-in-multiple", "This is an embedded resource"),
		}}))
	d.tool("test_error_handling", "Always fails with an isError result", nil,
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			//lint:ignore ST1005 the conformance suite's reference text, sent to the client as is
			return nil, errors.New("This tool intentionally returns an error for testing")
		})

	d.tool("test_tool_with_logging", "Sends three info logs about 50 ms apart, if the client asked for logs", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := wait(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				if err := req.Log(ctx, mcp.LevelInfo, "test_tool_with_logging", msg); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult("Tool with logging executed successfully"), nil
		})
	d.tool("test_logging_tool", "Logs one info message; the runtime sends it only if the request set a log level", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			if err := req.Log(ctx, mcp.LevelInfo, "test_logging_tool", "test_logging_tool executed"); err != nil {
				return nil, err
			}
			return mcp.TextResult("Logged at info, if the request asked for info or lower."), nil
		})
	d.tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100, about 50 ms apart; returns the progress token", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := wait(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				if err := req.ReportProgress(ctx, mcp.Progress{Progress: p, Total: 100, Message: fmt.Sprintf("%.0f%% done", p)}); err != nil {
					return nil, err
				}
			}
			token := progressToken(req.Params())
			if token == "" {
				return mcp.TextResult("no progress token: nothing was reported"), nil
			}
			return mcp.TextResult(token), nil
		})

	d.tool("test_sampling", "Asks the client's LLM to answer the prompt (sampling)",
		json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"What to ask the LLM"}},"required":["prompt"]}`),
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct {
				Prompt *string `json:"prompt"`
			}
			if err := args(req, &a); err != nil || a.Prompt == nil {
				return nil, errors.New("test_sampling needs a prompt")
			}
			res, err := req.CreateMessage(ctx, "sampling", mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{userText(*a.Prompt)},
				MaxTokens: 100,
			})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("LLM response: " + samplingText(res)), nil
		})
	d.tool("test_elicitation", "Asks the user for a username and an email (elicitation)",
		json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"What to show the user"}},"required":["message"]}`),
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct {
				Message *string `json:"message"`
			}
			if err := args(req, &a); err != nil || a.Message == nil {
				return nil, errors.New("test_elicitation needs a message")
			}
			return elicitReport(ctx, req, "User response", *a.Message, `{"type":"object","properties":{
				"username":{"type":"string","description":"User's response"},
				"email":{"type":"string","description":"User's email address"}},
				"required":["username","email"]}`)
		})
	d.tool("test_elicitation_sep1034_defaults", "Elicits a form whose fields have defaults (SEP-1034)", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return elicitReport(ctx, req, "Elicitation completed", "Test defaults for primitives", `{"type":"object","properties":{
				"name":{"type":"string","description":"User name","default":"John Doe"},
				"age":{"type":"integer","description":"User age","default":30},
				"score":{"type":"number","description":"User score","default":95.5},
				"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
				"verified":{"type":"boolean","description":"Verification status","default":true}}}`)
		})
	d.tool("test_elicitation_sep1330_enums", "Elicits a form with the five kinds of enum (SEP-1330)", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return elicitReport(ctx, req, "Elicitation completed", "Test enum schemas", `{"type":"object","properties":{
				"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
				"titledSingle":{"type":"string","oneOf":[
					{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
				"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
				"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},
				"titledMulti":{"type":"array","items":{"anyOf":[
					{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)
		})

	d.tool("json_schema_2020_12_tool", "Has an input schema using JSON Schema 2020-12 keywords (SEP-1613, SEP-2106), listed verbatim",
		json.RawMessage(`{
			"$schema":"https://json-schema.org/draft/2020-12/schema",
			"type":"object",
			"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
			"properties":{
				"name":{"type":"string"},
				"address":{"$ref":"#/$defs/address"},
				"contactMethod":{"type":"string","enum":["phone","email"]},
				"phone":{"type":"string"},
				"email":{"type":"string"}},
			"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
			"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
			"then":{"required":["phone"]},
			"else":{"required":["email"]},
			"additionalProperties":false}`),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return mcp.TextResult("json_schema_2020_12_tool called with " + string(req.Arguments)), nil
		})
	d.tool("test_x_mcp_header", "Has an argument mirrored into the Mcp-Param-Region HTTP header (SEP-2243)",
		json.RawMessage(`{"type":"object","properties":{
			"region":{"type":"string","description":"Mirrored into Mcp-Param-Region","x-mcp-header":"Region"},
			"level":{"type":"integer","description":"Not mirrored"}}}`),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct {
				Region string `json:"region"`
			}
			if err := args(req, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult("region=" + a.Region), nil
		})
	// Over stdio there is no stream to close: the server's part of SEP-1699
	// (resumption) belongs to an HTTP transport, so this only answers.
	d.tool("test_reconnection", "Answers; an HTTP server would close the SSE stream first (SEP-1699)", nil,
		fixed(mcp.TextResult("Reconnection test completed: the result arrived.")))

	// Fixtures of the stateless scenario (SEP-2575).
	d.tool("test_missing_capability", "Asks the client's LLM (sampling), so a client without the sampling capability gets -32021", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.CreateMessage(ctx, "sampling", mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{userText("Say hello.")}, MaxTokens: 20,
			})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("The client can sample: " + samplingText(res)), nil
		})
	d.tool("test_streaming_elicitation", "Reports progress, then elicits: on 2026-07-28 the response stream carries notifications and an input_required result, never a request", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			if err := req.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2, Message: "asking the user"}); err != nil {
				return nil, err
			}
			res, err := req.Elicit(ctx, "confirm", mcp.ElicitParams{Message: "Continue?", RequestedSchema: okSchema})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("The user chose " + res.Action + "."), nil
		})
	d.tool("test_trigger_tool_change", "Announces a tools/list_changed to listeners", nil,
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			d.srv.NotifyToolsChanged()
			return mcp.TextResult("tools/list_changed announced"), nil
		})
	d.tool("test_trigger_prompt_change", "Announces a prompts/list_changed to listeners", nil,
		func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			d.srv.NotifyPromptsChanged()
			return mcp.TextResult("prompts/list_changed announced"), nil
		})
}

// The schemas of the multi round-trip fixtures' questions.
var (
	nameSchema  = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	colorSchema = json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
	okSchema    = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
)

// addConformanceMRTRTools adds the fixtures of the input-required-result
// scenarios (SEP-2322). Each is straight-line code over Request.Ask: on
// 2026-07-28 a round that lacks an answer ends in input_required and the
// retry runs the handler again; on 2025 connections the same code sends
// real server-to-client requests.
func (d *Demo) addConformanceMRTRTools() {
	d.tool("test_input_required_result_elicitation", "Asks for the user's name (elicitation key user_name)", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.Elicit(ctx, "user_name", mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(greeting(res)), nil
		})
	d.tool("test_input_required_result_sampling", "Asks the client's LLM for the capital of France (sampling key capital_question)", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.CreateMessage(ctx, "capital_question", mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{userText("What is the capital of France?")}, MaxTokens: 100,
			})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("Sampling response: " + samplingText(res)), nil
		})
	d.tool("test_input_required_result_list_roots", "Asks for the client's roots (key client_roots)", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.ListRoots(ctx, "client_roots")
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(rootsText(res)), nil
		})
	d.tool("test_input_required_result_request_state", "Asks for a confirmation, carrying its own state in the sealed requestState", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			// The runtime seals this into requestState and refuses a
			// retry whose requestState fails to open; State returns it on
			// the retry only once it has been verified.
			req.SetState(json.RawMessage(`{"asked":"confirm"}`))
			res, err := req.Elicit(ctx, "confirm", mcp.ElicitParams{Message: "Please confirm", RequestedSchema: okSchema})
			if err != nil {
				return nil, err
			}
			if !req.Stateless() {
				return mcp.TextResult("state-ok: confirmed (" + res.Action + ") in one round; 2025 needs no requestState"), nil
			}
			if req.State() == nil {
				return nil, errors.New("the retry carried no requestState")
			}
			return mcp.TextResult("state-ok: requestState verified, confirmation " + res.Action), nil
		})
	d.tool("test_input_required_result_multiple_inputs", "Asks three questions in one round: a name, an LLM greeting and the roots", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			answers, err := req.Ask(ctx, map[string]mcp.InputRequest{
				"user_name":    mcp.ElicitInput(mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema}),
				"greeting":     mcp.SamplingInput(mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{userText("Generate a greeting")}, MaxTokens: 50}),
				"client_roots": mcp.RootsInput(),
			})
			if err != nil {
				return nil, err
			}
			var name mcp.ElicitResult
			var sample mcp.CreateMessageResult
			var roots mcp.ListRootsResult
			if json.Unmarshal(answers["user_name"], &name) != nil || json.Unmarshal(answers["greeting"], &sample) != nil ||
				json.Unmarshal(answers["client_roots"], &roots) != nil {
				return nil, errors.New("an answer is malformed")
			}
			return mcp.TextResult(fmt.Sprintf("%s %s: %d root(s) visible", samplingText(&sample), elicitedName(&name), len(roots.Roots))), nil
		})
	d.tool("test_input_required_result_multi_round", "Asks two questions in two rounds: a name, then a favourite colour", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			// On 2026-07-28 the second round re-runs the first Elicit,
			// which finds its answer in requestState, and stops at the
			// second.
			first, err := req.Elicit(ctx, "step1", mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: nameSchema})
			if err != nil {
				return nil, err
			}
			second, err := req.Elicit(ctx, "step2", mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: colorSchema})
			if err != nil {
				return nil, err
			}
			var c struct {
				Color string `json:"color"`
			}
			if second.Action != "accept" || json.Unmarshal(second.Content, &c) != nil || c.Color == "" {
				c.Color = "no colour"
			}
			return mcp.TextResult(fmt.Sprintf("Multi-round complete: %s likes %s", elicitedName(first), c.Color)), nil
		})
	d.tool("test_input_required_result_tampered_state", "Asks for a confirmation; a retry whose requestState was altered is refused with -32602", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.Elicit(ctx, "confirm", mcp.ElicitParams{Message: "Please confirm", RequestedSchema: okSchema})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("state-ok: requestState intact, confirmation " + res.Action), nil
		})
	d.tool("test_input_required_result_capabilities", "Asks only what the client declared it can answer: elicitation, sampling, roots", nil,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			caps := req.ClientCapabilities()
			questions := map[string]mcp.InputRequest{}
			if caps.Elicitation != nil {
				questions["user_name"] = mcp.ElicitInput(mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
			}
			if caps.Sampling != nil {
				questions["greeting"] = mcp.SamplingInput(mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{userText("Generate a short greeting")}, MaxTokens: 50})
			}
			if caps.Roots != nil {
				questions["client_roots"] = mcp.RootsInput()
			}
			if len(questions) == 0 {
				return mcp.TextResult("The client declared no capability to answer a question with."), nil
			}
			answers, err := req.Ask(ctx, questions)
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("Answered: " + strings.Join(slices.Sorted(maps.Keys(answers)), ", ")), nil
		})
}

func (d *Demo) addConformanceResources() {
	d.srv.AddResource(mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain",
		Description: "A static text resource"},
		mcp.TextResource("This is the content of the static text resource."))
	d.srv.AddResource(mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png",
		Description: "A static binary resource (a 1x1 PNG)"},
		mcp.BlobResource(pixelPNG))
	d.srv.AddResource(mcp.Resource{URI: watchedURI, Name: "watched-resource", MIMEType: "text/plain",
		Description: "Changes every -tick; subscribers are told"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text := fmt.Sprintf("Watched resource content, tick %d", d.tick.Load())
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
		})
	d.srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: fixtureTemplate, Name: "template", MIMEType: "application/json",
		Description: "JSON data for any id"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := req.Vars["id"]
			text, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: string(text)}}}, nil
		})
	d.srv.AddCompletion(mcp.TemplateReference(fixtureTemplate), completeFrom(map[string][]string{"id": {"1", "2", "3", "42", "123"}}))
}

func (d *Demo) addConformancePrompts() {
	d.srv.AddPrompt(mcp.Prompt{Name: "test_simple_prompt", Title: "Simple prompt", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "A simple prompt", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text("This is a simple prompt for testing.")},
			}}, nil
		})
	d.srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt with arguments",
		Description: "A prompt with two required arguments, both completed",
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "First argument", Required: true},
			{Name: "arg2", Description: "Second argument", Required: true},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "A prompt with arguments", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Arguments["arg1"], req.Arguments["arg2"]))},
			}}, nil
		})
	d.srv.AddCompletion(mcp.PromptReference("test_prompt_with_arguments"), completeFrom(map[string][]string{
		"arg1": {"paris", "park", "party", "test", "testing"},
		"arg2": {"hello", "help", "world"},
	}))
	d.srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt with an embedded resource",
		Description: "A prompt that embeds the resource it is given",
		Arguments:   []mcp.PromptArgument{{Name: "resourceUri", Description: "The URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "A prompt with an embedded resource", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: embedded(req.Arguments["resourceUri"], "Embedded resource content for testing.")},
				{Role: mcp.RoleUser, Content: mcp.Text("Please process the embedded resource above.")},
			}}, nil
		})
	d.srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt with an image", Description: "A prompt that carries an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "A prompt with an image", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.ImageContent{Data: pixelPNG, MIMEType: "image/png"}},
				{Role: mcp.RoleUser, Content: mcp.Text("Please analyze the image above.")},
			}}, nil
		})
	d.srv.AddPrompt(mcp.Prompt{Name: "test_input_required_result_prompt", Title: "Prompt that asks first",
		Description: "Asks the user for context (elicitation key user_context) before rendering"},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			res, err := req.Elicit(ctx, "user_context", mcp.ElicitParams{Message: "Please provide context for the prompt",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)})
			if err != nil {
				return nil, err
			}
			var c struct {
				Context string `json:"context"`
			}
			if res.Action != "accept" || json.Unmarshal(res.Content, &c) != nil {
				c.Context = "(none given)"
			}
			return &mcp.GetPromptResult{Description: "A prompt with elicited context", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text("Context: " + c.Context)},
			}}, nil
		})
}

// embedded is an embedded text/plain resource block.
func embedded(uri, text string) *mcp.EmbeddedResource {
	return &mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}
}

// userText is a user message of one text block, for sampling.
func userText(text string) mcp.SamplingMessage {
	block, _ := rawjson.Marshal(mcp.Text(text))
	return mcp.SamplingMessage{Role: mcp.RoleUser, Content: block}
}

// samplingText returns the text of a sampling answer: its text block, the
// first text block of its array (2025-11-25), or a placeholder.
func samplingText(res *mcp.CreateMessageResult) string {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var one block
	if json.Unmarshal(res.Content, &one) == nil && one.Type == "text" {
		return one.Text
	}
	var many []block
	if json.Unmarshal(res.Content, &many) == nil {
		for _, b := range many {
			if b.Type == "text" {
				return b.Text
			}
		}
	}
	return "(a non-text answer)"
}

// elicitReport elicits a form and reports the answer as the scenarios
// describe: "<prefix>: action=<action>, content=<content>".
func elicitReport(ctx context.Context, req *mcp.CallToolRequest, prefix, message, schema string) (*mcp.ToolResult, error) {
	res, err := req.Elicit(ctx, "form", mcp.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)})
	if err != nil {
		return nil, err
	}
	content := string(res.Content)
	if content == "" {
		content = "{}"
	}
	return mcp.TextResult(fmt.Sprintf("%s: action=%s, content=%s", prefix, res.Action, content)), nil
}

// elicitedName returns the name an elicitation of nameSchema got.
func elicitedName(res *mcp.ElicitResult) string {
	var c struct {
		Name string `json:"name"`
	}
	if res.Action != "accept" || json.Unmarshal(res.Content, &c) != nil || c.Name == "" {
		return "stranger"
	}
	return c.Name
}

// greeting greets the user an elicitation of nameSchema named.
func greeting(res *mcp.ElicitResult) string { return "Hello, " + elicitedName(res) + "!" }

// rootsText describes a roots/list answer.
func rootsText(res *mcp.ListRootsResult) string {
	uris := make([]string, len(res.Roots))
	for i, r := range res.Roots {
		uris[i] = r.URI
	}
	return fmt.Sprintf("Client exposed %d root(s): %s", len(res.Roots), strings.Join(uris, ", "))
}

// progressToken returns the request's _meta.progressToken as text: a
// string's value, a number as written, or "" when there is none.
func progressToken(params json.RawMessage) string {
	meta, ok := rawjson.Member(params, "_meta")
	if !ok {
		return ""
	}
	raw, ok := rawjson.Member(meta, "progressToken")
	if !ok {
		return ""
	}
	if s, ok := rawjson.StringValue(raw); ok {
		return s
	}
	return string(raw)
}
