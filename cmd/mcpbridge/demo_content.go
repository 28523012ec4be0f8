package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// This file is the demo's own content: one tool, resource or prompt per
// feature of MCP, each small enough to read as an example of the runtime
// (package stdio/mcp).

// Limits of the tools' arguments.
const (
	maxProgressSeconds = 600      // the request deadline cuts it sooner by default
	maxProgressSteps   = 1000     // the runtime's limit of progress reports per request
	maxResultBytes     = 32 << 20 // large_result; clients commonly cap lines at 16 MiB or less
)

// demo is the running demo server: its mcp.Server and the state of its
// timer-driven resources.
type demo struct {
	cfg  demoConfig
	log  *slog.Logger
	srv  *mcp.Server
	tick atomic.Int64 // ticks so far: the content of demo://counter
}

// newDemo builds the demo server with its content and, with
// cfg.conformance, the conformance fixtures.
func newDemo(cfg demoConfig, log *slog.Logger) (*demo, error) {
	srv, err := newDemoServer(cfg.versions, log, cfg.tracing)
	if err != nil {
		return nil, err
	}
	d := &demo{cfg: cfg, log: log, srv: srv}
	d.addTools()
	d.addResources()
	d.addPrompts()
	if cfg.conformance {
		d.addConformance()
	}
	return d, nil
}

// tickLoop advances the counter every cfg.tick and announces the change to
// subscribers, until ctx ends. With a zero tick it returns at once.
func (d *demo) tickLoop(ctx context.Context) {
	if d.cfg.tick <= 0 {
		return
	}
	t := time.NewTicker(d.cfg.tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.tick.Add(1)
			d.srv.ResourceUpdated(counterURI)
			if d.cfg.conformance {
				d.srv.ResourceUpdated(watchedURI)
			}
		}
	}
}

// args decodes a tool's arguments into v, whose fields hold the defaults
// beforehand: an argument that is absent keeps its default. A wrong type is
// an error the model sees (an isError result, as 2025-11-25 asks of input
// validation).
func args(req *mcp.CallToolRequest, v any) error {
	if err := json.Unmarshal(req.Arguments, v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v", req.Name, err)
	}
	return nil
}

// ptr returns a pointer to v, for the optional fields of ToolAnnotations
// and Resource.
func ptr[T any](v T) *T { return &v }

// invalidArgument is -32602 Invalid params, for prompts and resources,
// whose other errors the runtime turns into -32603.
func invalidArgument(format string, a ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: "+format, a...)
}

func (d *demo) addTools() {
	d.srv.AddTool(mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns its message, as text and as structured content.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"message":{"type":"string","description":"What to echo","default":"hello"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		a := struct {
			Message string `json:"message"`
		}{"hello"}
		if err := args(req, &a); err != nil {
			return nil, err
		}
		res := mcp.TextResult(a.Message)
		res.StructuredContent = a
		return res, nil
	})

	d.srv.AddTool(mcp.Tool{
		Name:  "progress",
		Title: "Progress",
		Description: "Works for the given number of seconds, reporting progress (with a total and a message) " +
			"after each of the given number of equal steps. Send a progress token to see the reports.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"seconds":{"type":"number","minimum":0,"maximum":600,"description":"How long the work takes","default":2},
			"steps":{"type":"integer","minimum":1,"maximum":1000,"description":"How many progress reports","default":4}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		a := struct {
			Seconds float64 `json:"seconds"`
			Steps   int     `json:"steps"`
		}{2, 4}
		if err := args(req, &a); err != nil {
			return nil, err
		}
		if a.Seconds < 0 || a.Seconds > maxProgressSeconds || a.Steps < 1 || a.Steps > maxProgressSteps {
			return nil, fmt.Errorf("seconds must be within [0, %d] and steps within [1, %d]", maxProgressSeconds, maxProgressSteps)
		}
		step := time.Duration(a.Seconds * float64(time.Second) / float64(a.Steps))
		start := time.Now()
		for i := 1; i <= a.Steps; i++ {
			if err := wait(ctx, step); err != nil {
				// Say why on stderr, where a host's log shows that a
				// cancellation reached the server.
				d.log.Info("progress: stopped", "step", i, "cause", context.Cause(ctx))
				return nil, err
			}
			err := req.ReportProgress(ctx, mcp.Progress{
				Progress: float64(i), Total: float64(a.Steps),
				Message: fmt.Sprintf("step %d of %d", i, a.Steps),
			})
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		return mcp.TextResult(fmt.Sprintf("done: %d steps in %v", a.Steps, time.Since(start).Round(time.Millisecond))), nil
	})

	d.srv.AddTool(mcp.Tool{
		Name:        "large_result",
		Title:       "Large result",
		Description: "Returns one text block of exactly the given number of bytes (ASCII), to test size limits.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"bytes":{"type":"integer","minimum":0,"maximum":33554432,"description":"The text's size in bytes","default":100000}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		a := struct {
			Bytes int `json:"bytes"`
		}{100_000}
		if err := args(req, &a); err != nil {
			return nil, err
		}
		if a.Bytes < 0 || a.Bytes > maxResultBytes {
			return nil, fmt.Errorf("bytes must be within [0, %d]", maxResultBytes)
		}
		return mcp.TextResult(filler(a.Bytes)), nil
	})

	d.srv.AddTool(mcp.Tool{
		Name:        "fail",
		Title:       "Fail",
		Description: "Always fails: the result has isError set and carries the message, for the model to see.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"message":{"type":"string","description":"The error text","default":"this tool always fails"}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		a := struct {
			Message string `json:"message"`
		}{"this tool always fails"}
		if err := args(req, &a); err != nil {
			return nil, err
		}
		return mcp.ErrorResult(a.Message), nil
	})

	d.srv.AddTool(mcp.Tool{
		Name:  "ask",
		Title: "Ask the user",
		Description: "Asks the user a question through elicitation (a one-field form) and returns the answer. " +
			"Needs the elicitation capability: on 2025 connections it sends elicitation/create; " +
			"on 2026-07-28 it answers input_required, and the retry carrying the answer completes.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"question":{"type":"string","description":"What to ask","default":"What is your name?"}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		a := struct {
			Question string `json:"question"`
		}{"What is your name?"}
		if err := args(req, &a); err != nil {
			return nil, err
		}
		res, err := req.Elicit(ctx, "answer", mcp.ElicitParams{
			Message: a.Question,
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"answer":{"type":"string","title":"Answer"}},"required":["answer"]}`),
		})
		if err != nil {
			return nil, err // input_required, a missing capability, or the client's failure
		}
		switch res.Action {
		case "accept":
			var c struct {
				Answer string `json:"answer"`
			}
			if err := json.Unmarshal(res.Content, &c); err != nil || c.Answer == "" {
				return nil, errors.New("the user accepted but sent no answer")
			}
			return mcp.TextResult("The user answered: " + c.Answer), nil
		case "decline":
			return mcp.TextResult("The user declined to answer."), nil
		default:
			return mcp.TextResult("The user cancelled."), nil
		}
	})

	d.srv.AddTool(mcp.Tool{
		Name:  "exit",
		Title: "Exit",
		Description: "Exits the server process at once with the given code, without answering: " +
			"a crash, for testing what a client or bridge does when its server dies.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"code":{"type":"integer","minimum":0,"maximum":255,"description":"The exit code","default":1}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		a := struct {
			Code int `json:"code"`
		}{1}
		if err := args(req, &a); err != nil {
			return nil, err
		}
		if a.Code < 0 || a.Code > 255 {
			return nil, errors.New("code must be within [0, 255]")
		}
		d.log.Warn("mcpbridge demo: exiting as the exit tool asked", "code", a.Code)
		os.Exit(a.Code)
		panic("unreachable")
	})
}

// wait waits for d, or returns ctx's error when it ends first.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// filler returns n bytes of printable ASCII in lines of 64.
func filler(n int) string {
	const line = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.\n"
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		b.WriteString(line[:min(len(line), n-b.Len())])
	}
	return b.String()
}

// The demo's resources.
const (
	aboutURI    = "demo://about"
	counterURI  = "demo://counter"
	pixelURI    = "demo://pixel.png"
	greetingURI = "demo://greeting/{name}"
)

func (d *demo) addResources() {
	d.srv.AddResource(mcp.Resource{
		URI: aboutURI, Name: "about", Title: "About this server", MIMEType: "text/plain",
		Description: "What the demo server offers",
	}, mcp.TextResource(demoAbout))

	d.srv.AddResource(mcp.Resource{
		URI: counterURI, Name: "counter", Title: "Counter", MIMEType: "text/plain",
		Description: "A counter that the server advances on a timer (mcpbridge demo -tick); " +
			"subscribers are told each time it changes",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text := fmt.Sprintf("tick %d", d.tick.Load())
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
	})

	d.srv.AddResource(mcp.Resource{
		URI: pixelURI, Name: "pixel.png", Title: "A pixel", MIMEType: "image/png",
		Description: "A 1x1 PNG image: a binary resource", Size: ptr(int64(len(pixelPNG))),
	}, mcp.BlobResource(pixelPNG))

	d.srv.AddResourceTemplate(mcp.ResourceTemplate{
		URITemplate: greetingURI, Name: "greeting", Title: "Greeting", MIMEType: "text/plain",
		Description: "A greeting for anyone: the template's variable is the name",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text := "Hello, " + req.Vars["name"] + "!"
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
	})
	d.srv.AddCompletion(mcp.TemplateReference(greetingURI), completeFrom(map[string][]string{"name": names}))
}

// names and styles are what completion suggests.
var (
	names  = []string{"Ada", "Alan", "Barbara", "Dennis", "Grace", "Katherine", "Ken", "Linus", "Margaret", "Radia"}
	styles = []string{"casual", "formal", "pirate", "poetic"}
)

// completeFrom suggests, for each argument, the candidates that start with
// what the user typed, ignoring case.
func completeFrom(candidates map[string][]string) mcp.CompletionHandler {
	return func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		var out []string
		for _, c := range candidates[req.Argument] {
			if strings.HasPrefix(strings.ToLower(c), strings.ToLower(req.Value)) {
				out = append(out, c)
			}
		}
		return &mcp.Completion{Values: out, Total: len(out)}, nil
	}
}

func (d *demo) addPrompts() {
	d.srv.AddPrompt(mcp.Prompt{
		Name: "greet", Title: "Greet someone",
		Description: "Asks the model to greet someone in a style; both arguments complete",
		Arguments: []mcp.PromptArgument{
			{Name: "name", Description: "Who to greet", Required: true},
			{Name: "style", Description: "How: " + strings.Join(styles, ", ") + " (default casual)"},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		style := req.Arguments["style"]
		if style == "" {
			style = "casual"
		}
		if !slices.Contains(styles, style) {
			return nil, invalidArgument("style must be one of %s", strings.Join(styles, ", "))
		}
		return &mcp.GetPromptResult{
			Description: "A " + style + " greeting",
			Messages: []mcp.PromptMessage{{
				Role:    mcp.RoleUser,
				Content: mcp.Text(fmt.Sprintf("Please greet %s in a %s style, in one sentence.", req.Arguments["name"], style)),
			}},
		}, nil
	})
	d.srv.AddCompletion(mcp.PromptReference("greet"), completeFrom(map[string][]string{"name": names, "style": styles}))
}
