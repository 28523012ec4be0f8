package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// This file is the demo's own content: one tool, resource or prompt per
// feature of MCP, each small enough to read as an example of the runtime
// (package stdio/mcp).

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

// The demo tools' arguments: the runtime infers each tool's input schema
// from its struct, validates the arguments against it and fills in the
// defaults before a handler runs (mcp.AddTool).
type (
	echoArgs struct {
		Message string `json:"message,omitempty" jsonschema:"What to echo" mcp:"default=hello"`
	}
	// progress: at most 600 s (the request deadline cuts it sooner by
	// default) and 1,000 reports (the runtime's limit per request).
	progressArgs struct {
		Seconds float64 `json:"seconds,omitempty" jsonschema:"How long the work takes" mcp:"minimum=0,maximum=600,default=2"`
		Steps   int     `json:"steps,omitempty" jsonschema:"How many progress reports" mcp:"minimum=1,maximum=1000,default=4"`
	}
	// large_result: at most 32 MiB; clients commonly cap lines at 16 MiB
	// or less.
	largeResultArgs struct {
		Bytes int `json:"bytes,omitempty" jsonschema:"The text's size in bytes" mcp:"minimum=0,maximum=33554432,default=100000"`
	}
	failArgs struct {
		Message string `json:"message,omitempty" jsonschema:"The error text" mcp:"default=this tool always fails"`
	}
	askArgs struct {
		Question string `json:"question,omitempty" jsonschema:"What to ask" mcp:"default=What is your name?"`
	}
	exitArgs struct {
		Code int `json:"code,omitempty" jsonschema:"The exit code" mcp:"minimum=0,maximum=255,default=1"`
	}
	// build: a long job, as a task when the client takes one.
	buildArgs struct {
		Steps   int     `json:"steps,omitempty" jsonschema:"How many build steps" mcp:"minimum=1,maximum=100,default=5"`
		Seconds float64 `json:"seconds,omitempty" jsonschema:"How long each step takes" mcp:"minimum=0,maximum=60,default=1"`
		Confirm bool    `json:"confirm,omitempty" jsonschema:"Ask the user before publishing the build"`
	}
	// publishForm is the build tool's question.
	publishForm struct {
		Publish bool `json:"publish" mcp:"title=Publish the build?"`
	}
	// answerForm is the form the ask tool's question is.
	answerForm struct {
		Answer string `json:"answer" mcp:"title=Answer"`
	}
)

func (d *Demo) addTools() {
	mcp.AddTool(d.srv, mcp.Tool{
		Name:         "echo",
		Title:        "Echo",
		Description:  "Returns its message, as text and as structured content.",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.ToolResult, error) {
		res := mcp.TextResult(a.Message) // the message as it is, not as JSON
		res.StructuredContent = a
		return res, nil
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:  "progress",
		Title: "Progress",
		Description: "Works for the given number of seconds, reporting progress (with a total and a message) " +
			"after each of the given number of equal steps. Send a progress token to see the reports.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, a progressArgs) (string, error) {
		step := time.Duration(a.Seconds * float64(time.Second) / float64(a.Steps))
		start := time.Now()
		for i := 1; i <= a.Steps; i++ {
			if err := wait(ctx, step); err != nil {
				// Say why on stderr, where a host's log shows that a
				// cancellation reached the server.
				d.log.Info("progress: stopped", "step", i, "cause", context.Cause(ctx))
				return "", err
			}
			err := req.ReportProgress(ctx, mcp.Progress{
				Progress: float64(i), Total: float64(a.Steps),
				Message: fmt.Sprintf("step %d of %d", i, a.Steps),
			})
			if err != nil && ctx.Err() != nil {
				return "", ctx.Err()
			}
		}
		return fmt.Sprintf("done: %d steps in %v", a.Steps, time.Since(start).Round(time.Millisecond)), nil
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:        "large_result",
		Title:       "Large result",
		Description: "Returns one text block of exactly the given number of bytes (ASCII), to test size limits.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, a largeResultArgs) (string, error) {
		return filler(a.Bytes), nil
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:        "fail",
		Title:       "Fail",
		Description: "Always fails: the result has isError set and carries the message, for the model to see.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, a failArgs) (*mcp.ToolResult, error) {
		return mcp.ErrorResult(a.Message), nil
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:  "ask",
		Title: "Ask the user",
		Description: "Asks the user a question through elicitation (a one-field form) and returns the answer. " +
			"Needs the elicitation capability: on 2025 connections it sends elicitation/create; " +
			"on 2026-07-28 it answers input_required, and the retry carrying the answer completes.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, a askArgs) (string, error) {
		form, action, err := mcp.Elicit[answerForm](ctx, &req.Request, "answer", a.Question)
		switch {
		case err != nil:
			return "", err // input_required, a missing capability, or the client's failure
		case action == mcp.ElicitAccept && form.Answer == "":
			return "", errors.New("the user accepted but sent no answer")
		case action == mcp.ElicitAccept:
			return "The user answered: " + form.Answer, nil
		case action == mcp.ElicitDecline:
			return "The user declined to answer.", nil
		}
		return "The user cancelled.", nil
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:  "exit",
		Title: "Exit",
		Description: "Exits the server process at once with the given code, without answering: " +
			"a crash, for testing what a client or bridge does when its server dies.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, a exitArgs) (*mcp.ToolResult, error) {
		d.log.Warn("mcpbridge demo: exiting as the exit tool asked", "code", a.Code)
		os.Exit(a.Code)
		panic("unreachable")
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:  "build",
		Title: "Build",
		Description: "A long job: works through its steps (a status message and a progress report each), " +
			"optionally asks the user whether to publish, and returns a report. It runs as a task when the client " +
			"takes one (the 2026-07-28 tasks extension, or params.task on 2025-11-25): poll it, answer its question, " +
			"cancel it. Otherwise it runs in the request.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   &mcp.ToolExecution{TaskSupport: mcp.TaskOptional},
	}, func(ctx context.Context, req *mcp.CallToolRequest, a buildArgs) (*mcp.ToolResult, error) {
		return req.RunTask(ctx, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			step := time.Duration(a.Seconds * float64(time.Second))
			for i := 1; i <= a.Steps; i++ {
				msg := fmt.Sprintf("step %d of %d", i, a.Steps)
				req.SetTaskStatus(msg)
				if err := wait(ctx, step); err != nil {
					d.log.Info("build: stopped", "step", i, "cause", context.Cause(ctx))
					return nil, err
				}
				if err := req.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(a.Steps), Message: msg}); err != nil && ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
			published := "not asked to publish"
			if a.Confirm {
				req.SetTaskStatus("waiting for the user")
				form, action, err := mcp.Elicit[publishForm](ctx, &req.Request, "publish", "Publish the build?")
				switch {
				case err != nil:
					return nil, err
				case action == mcp.ElicitAccept && form.Publish:
					published = "published"
				default:
					published = "not published"
				}
			}
			return mcp.TextResult(fmt.Sprintf("built in %d steps; %s", a.Steps, published)), nil
		})
	})

	mcp.AddTool(d.srv, mcp.Tool{
		Name:  "whoami",
		Title: "Who am I",
		Description: "Says which process answered: its process id, its host name (a pod's name on Kubernetes) and " +
			"the DEMO_SESSION environment variable, which a session server can set from the caller's mcp-session " +
			"(env_from_metadata). For seeing where a balancer sent a call.",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"pid":{"type":"integer"},"host":{"type":"string"},"session":{"type":"string"}},"required":["pid","host","session"]}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.ToolResult, error) {
		host, _ := os.Hostname()
		who := whoami{PID: os.Getpid(), Host: host, Session: os.Getenv("DEMO_SESSION")}
		res := mcp.TextResult(fmt.Sprintf("pid %d on %s, session %q", who.PID, who.Host, who.Session))
		res.StructuredContent = who
		return res, nil
	})
}

// whoami is the whoami tool's result.
type whoami struct {
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	Session string `json:"session"`
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
	AboutURI    = "demo://about"
	CounterURI  = "demo://counter"
	PixelURI    = "demo://pixel.png"
	GreetingURI = "demo://greeting/{name}"
)

func (d *Demo) addResources() {
	d.srv.AddResource(mcp.Resource{
		URI: AboutURI, Name: "about", Title: "About this server", MIMEType: "text/plain",
		Description: "What the demo server offers",
	}, mcp.TextResource(About))

	d.srv.AddResource(mcp.Resource{
		URI: CounterURI, Name: "counter", Title: "Counter", MIMEType: "text/plain",
		Description: "A counter that the server advances on a timer (mcpbridge demo -tick); " +
			"subscribers are told each time it changes",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text := fmt.Sprintf("tick %d", d.tick.Load())
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
	})

	d.srv.AddResource(mcp.Resource{
		URI: PixelURI, Name: "pixel.png", Title: "A pixel", MIMEType: "image/png",
		Description: "A 1x1 PNG image: a binary resource", Size: ptr(int64(len(pixelPNG))),
	}, mcp.BlobResource(pixelPNG))

	mcp.AddResourceTemplate(d.srv, mcp.ResourceTemplate{
		URITemplate: GreetingURI, Name: "greeting", Title: "Greeting", MIMEType: "text/plain",
		Description: "A greeting for anyone: the template's variable is the name",
	}, func(_ context.Context, req *mcp.ReadResourceRequest, v struct {
		Name string `json:"name"`
	}) (*mcp.ReadResourceResult, error) {
		text := "Hello, " + v.Name + "!"
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
	})
	d.srv.AddCompletion(mcp.TemplateReference(GreetingURI), completeFrom(map[string][]string{"name": names}))
}

// greetArgs are the greet prompt's arguments; styles lists the style's
// values, which its enum must repeat.
type greetArgs struct {
	Name  string `json:"name" jsonschema:"Who to greet"`
	Style string `json:"style,omitempty" jsonschema:"How: casual, formal, pirate, poetic (default casual)" mcp:"enum=casual|formal|pirate|poetic,default=casual"`
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

func (d *Demo) addPrompts() {
	mcp.AddPrompt(d.srv, mcp.Prompt{
		Name: "greet", Title: "Greet someone",
		Description: "Asks the model to greet someone in a style; both arguments complete",
	}, func(_ context.Context, _ *mcp.GetPromptRequest, a greetArgs) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Description: "A " + a.Style + " greeting",
			Messages: []mcp.PromptMessage{{
				Role:    mcp.RoleUser,
				Content: mcp.Text(fmt.Sprintf("Please greet %s in a %s style, in one sentence.", a.Name, a.Style)),
			}},
		}, nil
	})
	d.srv.AddCompletion(mcp.PromptReference("greet"), completeFrom(map[string][]string{"name": names, "style": styles}))
}
