package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// maxSmallServerLines is what the typed API promises a small server costs:
// add(a,b)->{sum}, greet(name, formal?), slow(steps 1..10) with progress,
// a prompt with a required argument and a resource template.
const maxSmallServerLines = 75

// The small server of testdata/smallserver stays within its line budget
// without decoding or validating anything by hand, and, run as a real
// process, keeps every promise of the typed API in every era: exact
// integers, closed schemas, readable messages sent as the era requires,
// progress, a prompt's required argument, a template's integer variable.
func TestSmallServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with go build")
	}
	root := testkit.ModuleRoot(t)
	dir := filepath.Join(root, "stdio", "mcp", "testdata", "smallserver")
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := testkit.CodeLines(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("testdata/smallserver/main.go: %d code lines", n)
	if n > maxSmallServerLines {
		t.Errorf("the small server has %d code lines, want at most %d", n, maxSmallServerLines)
	}
	for _, byHand := range []string{"encoding/json", "Unmarshal", "req.Arguments", "strconv", "req.Vars"} {
		if bytes.Contains(src, []byte(byHand)) {
			t.Errorf("the small server uses %s: it decodes by hand", byHand)
		}
	}
	bin := testkit.GoBuild(t, "./stdio/mcp/testdata/smallserver")
	for _, version := range []string{stdio.Version20260728, stdio.Version20251125, stdio.Version20250618} {
		t.Run(version, func(t *testing.T) {
			c := stdiotest.ConnectProgram(t, bin, version)
			smallServerChecks(t, c, version)
		})
	}
}

func smallServerChecks(t *testing.T, c *stdio.Client, version string) {
	type result struct {
		Content           []struct{ Text string }
		StructuredContent json.RawMessage
		IsError           bool
	}
	call := func(tool, args string) result {
		t.Helper()
		var r result
		if err := json.Unmarshal(stdiotest.Call(t, c, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`, nil), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// An argument error: -32602 on 2025-06-18, else an isError result.
	invalid := func(tool, args, want string) {
		t.Helper()
		if version == stdio.Version20250618 {
			_, err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"`+tool+`","arguments":`+args+`}`), nil)
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || e.Message != "Invalid params: "+want {
				t.Errorf("%s(%s) = %v, want -32602 %q", tool, args, err, "Invalid params: "+want)
			}
			return
		}
		if r := call(tool, args); !r.IsError || len(r.Content) != 1 || r.Content[0].Text != "Invalid arguments: "+want {
			t.Errorf("%s(%s) = %+v, want an isError result %q", tool, args, r, "Invalid arguments: "+want)
		}
	}

	if r := call("add", `{"a":9007199254740993,"b":1}`); string(r.StructuredContent) != `{"sum":9007199254740994}` ||
		r.Content[0].Text != `{"sum":9007199254740994}` {
		t.Errorf("add(2^53+1, 1) = %+v, want the exact sum", r)
	}
	if r := call("add", `{"a":9223372036854775807,"b":1}`); !r.IsError || r.Content[0].Text != "the sum overflows 64 bits" {
		t.Errorf("add(MaxInt64, 1) = %+v, want an isError result", r)
	}
	invalid("add", `{"a":1}`, "b: required")
	invalid("add", `{"a":1,"b":2,"c":3}`, "c: unknown argument")
	invalid("add", `{"a":1.5,"b":"2"}`, `a: want an integer, got 1.5; b: want an integer, got "2"`)
	invalid("add", `{"a":1e20,"b":0}`, "a: 1e20 is outside the integer range -9223372036854775808 to 9223372036854775807")

	if r := call("greet", `{"name":"Ada","formal":true}`); r.Content[0].Text != "Good day, Ada." {
		t.Errorf("greet = %+v", r)
	}
	invalid("greet", `{"name":""}`, `name: "" is shorter than 1 character`)

	var progress []float64
	res := stdiotest.Call(t, c, "tools/call", `{"name":"slow","arguments":{"steps":3}}`,
		&stdio.CallOptions{Progress: func(p stdio.Progress) { progress = append(progress, p.Progress) }})
	if !strings.Contains(string(res), `"text":"done in 3 steps"`) || len(progress) != 3 || progress[2] != 3 {
		t.Errorf("slow(3) = %s with progress %v, want 3 reports", res, progress)
	}
	invalid("slow", `{"steps":11}`, "steps: 11 is above the maximum 10")
	invalid("slow", `{"steps":0}`, "steps: 0 is below the minimum 1")

	var list struct {
		Tools []struct{ InputSchema json.RawMessage }
	}
	if err := json.Unmarshal(stdiotest.Call(t, c, "tools/list", `{}`, nil), &list); err != nil || len(list.Tools) != 3 {
		t.Fatalf("tools/list: %v, %d tools", err, len(list.Tools))
	}
	for _, tool := range list.Tools {
		if !strings.HasSuffix(string(tool.InputSchema), `"additionalProperties":false}`) {
			t.Errorf("inputSchema %s is not closed", tool.InputSchema)
		}
	}

	if res := stdiotest.Call(t, c, "prompts/get", `{"name":"review","arguments":{"code":"x := 1"}}`, nil); !strings.Contains(string(res), `Review this code:\nx := 1`) {
		t.Errorf("review = %s", res)
	}
	stdiotest.CallErr(t, c, "prompts/get", `{"name":"review"}`, jsonrpc.CodeInvalidParams)
	stdiotest.CallErr(t, c, "prompts/get", `{"name":"review","arguments":{"code":"x","lang":"go"}}`, jsonrpc.CodeInvalidParams)

	if res := stdiotest.Call(t, c, "resources/read", `{"uri":"users://9007199254740993"}`, nil); !strings.Contains(string(res), `"text":"user 9007199254740993"`) {
		t.Errorf("read users://9007199254740993 = %s", res)
	}
	notFound := int64(jsonrpc.CodeResourceNotFound)
	if version == stdio.Version20260728 {
		notFound = jsonrpc.CodeInvalidParams
	}
	stdiotest.CallErr(t, c, "resources/read", `{"uri":"users://ada"}`, notFound)
	stdiotest.CallErr(t, c, "resources/read", `{"uri":"users://0"}`, notFound)
}
