package sidebysidetest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The line counts of docs/server.md come from
//
//	go test -run TestSideBySideLines -v ./cmd/mcpbridge/internal/sidebysidetest
func TestSideBySideLines(t *testing.T) {
	for _, name := range Servers {
		src, err := os.ReadFile(Source(t, name))
		if err != nil {
			t.Fatal(err)
		}
		n, err := testkit.CodeLines(src)
		if err != nil || n == 0 {
			t.Fatalf("testkit.CodeLines(%s) = %d, %v", Source(t, name), n, err)
		}
		t.Logf("server=%s: %d lines of code (%s/main.go, neither blank nor comment)", name, n, name)
	}
}

// Both servers behave as the package documentation says, through the
// project's stdio client, in both eras; each exits 0 at stdin EOF.
func TestServers(t *testing.T) {
	for _, name := range Servers {
		t.Run("server="+name, func(t *testing.T) {
			t.Parallel()
			bin := Build(t, name)
			for _, version := range []string{stdio.Version20260728, stdio.Version20251125} {
				t.Run("era="+version, func(t *testing.T) {
					c := stdiotest.ConnectProgram(t, bin, version)
					if got := c.Protocol(); got != version {
						t.Fatalf("Protocol() = %s, want %s", got, version)
					}
					for _, check := range checks {
						t.Run(check.name, func(t *testing.T) { check.run(t, c) })
					}
				})
			}
		})
	}
}

// toolResult is a tools/call result as the checks read it.
type toolResult struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}

// text returns the result's one text block, failing t otherwise.
func (r toolResult) text(t *testing.T) string {
	t.Helper()
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("content %+v, want one text block", r.Content)
	}
	return r.Content[0].Text
}

func callTool(t *testing.T, c *stdio.Client, params string, opts *stdio.CallOptions) toolResult {
	t.Helper()
	var r toolResult
	raw := stdiotest.Call(t, c, "tools/call", params, opts)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("tools/call %s = %s: %v", params, raw, err)
	}
	return r
}

func decode[T any](t *testing.T, c *stdio.Client, method, params string) T {
	t.Helper()
	var v T
	raw := stdiotest.Call(t, c, method, params, nil)
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s = %s: %v", method, params, raw, err)
	}
	return v
}

type schema struct {
	Type       string
	Properties map[string]struct{ Type string }
	Required   []string
}

var checks = []struct {
	name string
	run  func(t *testing.T, c *stdio.Client)
}{
	{"tools/list", func(t *testing.T, c *stdio.Client) {
		list := decode[struct {
			Tools []struct {
				Name         string
				InputSchema  schema
				OutputSchema *schema
			}
		}](t, c, "tools/list", `{}`)
		got := map[string]schema{}
		for _, tool := range list.Tools {
			slices.Sort(tool.InputSchema.Required)
			got[tool.Name] = tool.InputSchema
			if (tool.OutputSchema != nil) != (tool.Name == "add") {
				t.Errorf("tool %s has output schema %+v; want one for add only", tool.Name, tool.OutputSchema)
			}
		}
		prop := func(typ string) struct{ Type string } { return struct{ Type string }{typ} }
		want := map[string]schema{
			"add":   {"object", map[string]struct{ Type string }{"a": prop("integer"), "b": prop("integer")}, []string{"a", "b"}},
			"greet": {"object", map[string]struct{ Type string }{"name": prop("string"), "formal": prop("boolean")}, []string{"name"}},
			"slow":  {"object", map[string]struct{ Type string }{"steps": prop("integer")}, []string{"steps"}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tools/list input schemas (-want +got):\n%s", diff)
		}
	}},
	{"add", func(t *testing.T, c *stdio.Client) {
		r := callTool(t, c, `{"name":"add","arguments":{"a":2,"b":3}}`, nil)
		if r.IsError || string(r.StructuredContent) != `{"sum":5}` || r.text(t) != `{"sum":5}` {
			t.Errorf("add(2, 3) = %+v, want structuredContent and text {\"sum\":5}", r)
		}
		if r := callTool(t, c, `{"name":"add","arguments":{"a":"two","b":3}}`, nil); !r.IsError {
			t.Errorf("add(\"two\", 3) = %+v, want a tool error", r)
		}
	}},
	{"greet", func(t *testing.T, c *stdio.Client) {
		for args, want := range map[string]string{
			`{"name":"Ada"}`:                "Hello, Ada!",
			`{"name":"Ada","formal":false}`: "Hello, Ada!",
			`{"name":"Ada","formal":true}`:  "Good day, Ada.",
		} {
			if r := callTool(t, c, `{"name":"greet","arguments":`+args+`}`, nil); r.IsError || r.text(t) != want {
				t.Errorf("greet(%s) = %+v, want %q", args, r, want)
			}
		}
	}},
	{"slow", func(t *testing.T, c *stdio.Client) {
		var got []float64
		opts := &stdio.CallOptions{Progress: func(p stdio.Progress) {
			if p.Total == nil || *p.Total != 3 {
				t.Errorf("progress %+v, want a total of 3", p)
			}
			got = append(got, p.Progress)
		}}
		r := callTool(t, c, `{"name":"slow","arguments":{"steps":3}}`, opts)
		if r.IsError || r.text(t) != "done in 3 steps" {
			t.Errorf("slow(3) = %+v, want \"done in 3 steps\"", r)
		}
		if want := []float64{1, 2, 3}; !slices.Equal(got, want) {
			t.Errorf("slow(3) reported progress %v, want %v", got, want)
		}
		if r := callTool(t, c, `{"name":"slow","arguments":{"steps":1}}`, nil); r.IsError || r.text(t) != "done in 1 steps" {
			t.Errorf("slow(1) without a progress token = %+v", r)
		}
	}},
	{"slow out of range", func(t *testing.T, c *stdio.Client) {
		for _, steps := range []string{"0", "11"} {
			if r := callTool(t, c, `{"name":"slow","arguments":{"steps":`+steps+`}}`, nil); !r.IsError {
				t.Errorf("slow(%s) = %+v, want a tool error", steps, r)
			}
		}
	}},
	{"prompts/list", func(t *testing.T, c *stdio.Client) {
		type arg struct {
			Name     string
			Required bool
		}
		list := decode[struct {
			Prompts []struct {
				Name      string
				Arguments []arg
			}
		}](t, c, "prompts/list", `{}`)
		if len(list.Prompts) != 1 || list.Prompts[0].Name != "review" ||
			!slices.Equal(list.Prompts[0].Arguments, []arg{{"code", true}, {"focus", false}}) {
			t.Errorf("prompts/list = %+v, want review(code, focus?)", list.Prompts)
		}
	}},
	{"review", func(t *testing.T, c *stdio.Client) {
		type message struct {
			Role    string
			Content struct{ Type, Text string }
		}
		for args, want := range map[string]string{
			`{"code":"x := 1"}`:                  "Please review this code:\n\nx := 1",
			`{"code":"x := 1","focus":"naming"}`: "Please review this code, looking at naming:\n\nx := 1",
		} {
			res := decode[struct{ Messages []message }](t, c, "prompts/get", `{"name":"review","arguments":`+args+`}`)
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" || res.Messages[0].Content.Type != "text" || res.Messages[0].Content.Text != want {
				t.Errorf("review(%s) = %+v, want one user message %q", args, res.Messages, want)
			}
		}
	}},
	{"review without code", func(t *testing.T, c *stdio.Client) {
		for _, args := range []string{`{}`, `{"focus":"naming"}`} {
			stdiotest.CallErr(t, c, "prompts/get", `{"name":"review","arguments":`+args+`}`, jsonrpc.CodeInvalidParams)
		}
	}},
	{"resources/templates/list", func(t *testing.T, c *stdio.Client) {
		type template struct{ URITemplate, Name, MIMEType string }
		list := decode[struct{ ResourceTemplates []template }](t, c, "resources/templates/list", `{}`)
		if want := []template{{"note://{id}", "note", "text/plain"}}; !slices.Equal(list.ResourceTemplates, want) {
			t.Errorf("resources/templates/list = %+v, want %+v", list.ResourceTemplates, want)
		}
	}},
	{"note", func(t *testing.T, c *stdio.Client) {
		type contents struct{ URI, MIMEType, Text string }
		for uri, text := range map[string]string{"note://1": "Buy milk", "note://2": "Call Ada"} {
			res := decode[struct{ Contents []contents }](t, c, "resources/read", `{"uri":"`+uri+`"}`)
			if want := []contents{{uri, "text/plain", text}}; !slices.Equal(res.Contents, want) {
				t.Errorf("resources/read %s = %+v, want %+v", uri, res.Contents, want)
			}
		}
	}},
	{"missing note", func(t *testing.T, c *stdio.Client) {
		// -32602 on 2026-07-28. On 2025 connections the runtime keeps the
		// 2025 spec's -32002, where the Go SDK has moved to -32602 in every
		// era (SEP-2164); either is a not-found.
		ctx, cancel := context.WithTimeout(t.Context(), stdiotest.Wait)
		defer cancel()
		res, err := c.Call(ctx, "resources/read", json.RawMessage(`{"uri":"note://3"}`), nil)
		want := []int64{jsonrpc.CodeInvalidParams}
		if c.Protocol() != stdio.Version20260728 {
			want = append(want, jsonrpc.CodeResourceNotFound)
		}
		var e *jsonrpc.Error
		if !errors.As(err, &e) || !slices.Contains(want, e.Code) {
			t.Errorf("resources/read note://3 = %s, %v; want -32602 (or -32002 on 2025)", res, err)
		}
	}},
}
