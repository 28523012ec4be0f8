package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

type address struct {
	Street string `json:"street,omitempty"`
	Zip    string `json:"zip" mcp:"pattern=^[0-9]{5}$"`
}

// checkArgs exercises every kind of constraint the typed tests need.
type checkArgs struct {
	City    string   `json:"city" jsonschema:"the city"`
	Units   string   `json:"units,omitempty" mcp:"enum=celsius|fahrenheit,default=celsius"`
	Steps   int      `json:"steps,omitempty" mcp:"minimum=1,maximum=10"`
	ID      int64    `json:"id,omitempty"`
	Address *address `json:"address,omitempty"`
	Tags    []string `json:"tags,omitempty" mcp:"minLength=1"`
}

type checkResult struct {
	City  string `json:"city"`
	Units string `json:"units"`
	ID    int64  `json:"id"`
}

// typedServer registers the typed tools, prompt and template of the tests.
func typedServer(tb testing.TB) *mcp.Server {
	srv := newServer(tb, "typed", mcp.Config{})
	mcp.AddTool(srv, mcp.Tool{Name: "check", Description: "Checks its arguments"},
		func(_ context.Context, _ *mcp.CallToolRequest, in checkArgs) (checkResult, error) {
			return checkResult{City: in.City, Units: in.Units, ID: in.ID}, nil
		})
	mcp.AddPrompt(srv, mcp.Prompt{Name: "trip"},
		func(_ context.Context, _ *mcp.GetPromptRequest, args struct {
			City string `json:"city" jsonschema:"where to"`
			Mode string `json:"mode,omitempty" mcp:"enum=train|plane,title=Travel mode"`
		}) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser,
				Content: mcp.Text("Plan a trip to " + args.City + " by " + args.Mode)}}}, nil
		})
	mcp.AddResourceTemplate(srv, mcp.ResourceTemplate{URITemplate: "users/{id}/posts/{slug}", Name: "post"},
		func(_ context.Context, req *mcp.ReadResourceRequest, vars struct {
			ID   int64  `json:"id" mcp:"minimum=1"`
			Slug string `json:"slug"`
		}) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI,
				Text: fmt.Sprintf("post %s of user %d", vars.Slug, vars.ID)}}}, nil
		})
	return srv
}

// eraClient is a client of one era over the transport: it sends a
// method's params (adding _meta on 2026-07-28) and returns the line.
type eraClient struct {
	p       *pipe
	version string
	next    int
}

func newEraClient(t *testing.T, srv *mcp.Server, version string) *eraClient {
	p := serve(t, srv)
	if version != stdio.Version20260728 {
		p.initialize(version, `{}`)
	}
	return &eraClient{p: p, version: version}
}

func (c *eraClient) call(method, params string) (string, string) {
	c.next++
	if c.version == stdio.Version20260728 {
		params = strings.TrimSuffix(params, "}") + `,` + meta26 + `}`
		params = strings.Replace(params, "{,", "{", 1)
	}
	return c.p.call(request(c.next, method, params)), fmt.Sprint(c.next)
}

var eras = []string{stdio.Version20250618, stdio.Version20251125, stdio.Version20260728}

// Arguments that break the schema are answered in every era as its
// specification says: -32602 with data.errors on 2025-06-18; an isError
// result with the same violations in _meta on 2025-11-25 and 2026-07-28.
// Each case is a kind of violation, found wherever it is in the arguments.
func TestTypedToolValidation(t *testing.T) {
	cases := []struct {
		name, args string
		want       []mcp.Violation
	}{
		{"missing required", `{}`, []mcp.Violation{{Path: "city", Message: "required"}}},
		{"wrong type", `{"city":"Paris","steps":"ten"}`, []mcp.Violation{{Path: "steps", Message: `want an integer, got "ten"`}}},
		{"string for a number", `{"city":7}`, []mcp.Violation{{Path: "city", Message: `want a string, got 7`}}},
		{"null for a string", `{"city":null}`, []mcp.Violation{{Path: "city", Message: `want a string, got null`}}},
		{"enum", `{"city":"Paris","units":"kelvin"}`, []mcp.Violation{{Path: "units", Message: `"kelvin" is not one of celsius, fahrenheit`}}},
		{"above maximum", `{"city":"Paris","steps":11}`, []mcp.Violation{{Path: "steps", Message: "11 is above the maximum 10"}}},
		{"below minimum", `{"city":"Paris","steps":0}`, []mcp.Violation{{Path: "steps", Message: "0 is below the minimum 1"}}},
		{"unknown", `{"city":"Paris","extra":true}`, []mcp.Violation{{Path: "extra", Message: "unknown argument"}}},
		{"case differs", `{"City":"Paris"}`, []mcp.Violation{{Path: "City", Message: "unknown argument"}, {Path: "city", Message: "required"}}},
		{"repeated", `{"city":"Paris","city":"Rome"}`, []mcp.Violation{{Path: "city", Message: "appears more than once"}}},
		{"fraction for an integer", `{"city":"Paris","id":1.5}`, []mcp.Violation{{Path: "id", Message: "want an integer, got 1.5"}}},
		{"integer too large", `{"city":"Paris","id":9223372036854775808}`,
			[]mcp.Violation{{Path: "id", Message: "9223372036854775808 is outside the integer range -9223372036854775808 to 9223372036854775807"}}},
		{"nested", `{"city":"Paris","address":{"zip":"75OO1"}}`, []mcp.Violation{{Path: "address.zip", Message: `"75OO1" does not match the pattern ^[0-9]{5}$`}}},
		{"nested unknown and missing", `{"city":"Paris","address":{"town":"x"}}`,
			[]mcp.Violation{{Path: "address.town", Message: "unknown property"}, {Path: "address.zip", Message: "required"}}},
		{"array item", `{"city":"Paris","tags":["a","b",""]}`, []mcp.Violation{{Path: "tags[2]", Message: `"" is shorter than 1 character`}}},
		{"all at once", `{"steps":11,"units":"kelvin","extra":1}`, []mcp.Violation{
			{Path: "steps", Message: "11 is above the maximum 10"}, {Path: "units", Message: `"kelvin" is not one of celsius, fahrenheit`},
			{Path: "extra", Message: "unknown argument"}, {Path: "city", Message: "required"}}},
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			c := newEraClient(t, typedServer(t), era)
			for _, tc := range cases {
				line, id := c.call("tools/call", `{"name":"check","arguments":`+tc.args+`}`)
				text := (&mcp.ValidationError{Violations: tc.want}).Error()
				if era == stdio.Version20250618 {
					m := wantError(t, line, id, -32602)
					var data struct{ Errors []mcp.Violation }
					if err := json.Unmarshal(m.Error.Data, &data); err != nil {
						t.Fatalf("%s: data %s: %v", tc.name, m.Error.Data, err)
					}
					if m.Error.Message != "Invalid params: "+text {
						t.Errorf("%s: message = %q, want %q", tc.name, m.Error.Message, "Invalid params: "+text)
					}
					if diff := cmp.Diff(tc.want, data.Errors); diff != "" {
						t.Errorf("%s: data.errors (-want +got):\n%s", tc.name, diff)
					}
					continue
				}
				var res struct {
					Content []struct{ Type, Text string }
					IsError bool
					Meta    map[string]json.RawMessage `json:"_meta"`
				}
				if err := json.Unmarshal(wantResult(t, line, id), &res); err != nil {
					t.Fatal(err)
				}
				var got []mcp.Violation
				if err := json.Unmarshal(res.Meta[mcp.MetaArgumentErrors], &got); err != nil {
					t.Fatalf("%s: _meta %v: %v", tc.name, res.Meta, err)
				}
				if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != "Invalid arguments: "+text {
					t.Errorf("%s: result = %+v, want isError with %q", tc.name, res, "Invalid arguments: "+text)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: _meta violations (-want +got):\n%s", tc.name, diff)
				}
			}
			c.p.eof()
		})
	}
}

// Valid arguments reach the handler decoded, integers exact and defaults
// applied, and the result carries structuredContent and the same JSON as
// text, in every era.
func TestTypedToolResult(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			c := newEraClient(t, typedServer(t), era)
			for _, tc := range []struct{ args, want string }{
				// 2^53+1: a float64 would make it 2^53.
				{`{"city":"Paris","id":9007199254740993}`, `{"city":"Paris","units":"celsius","id":9007199254740993}`},
				{`{"city":"Rome","units":"fahrenheit","id":-9223372036854775808}`, `{"city":"Rome","units":"fahrenheit","id":-9223372036854775808}`},
				// An integer may be spelt with a zero fraction or an exponent
				// (JSON Schema's integer is a number with no fractional part).
				{`{"city":"Oslo","id":1.0e3,"steps":10.0}`, `{"city":"Oslo","units":"celsius","id":1000}`},
				{`{"city":"Nice","address":null,"tags":null}`, `{"city":"Nice","units":"celsius","id":0}`},
			} {
				line, id := c.call("tools/call", `{"name":"check","arguments":`+tc.args+`}`)
				res := wantResult(t, line, id)
				wantText, _ := json.Marshal(tc.want)
				if got := field(res, "structuredContent"); got != tc.want {
					t.Errorf("check(%s) structuredContent = %s, want %s", tc.args, got, tc.want)
				}
				if got := field(res, "content"); got != `[{"type":"text","text":`+string(wantText)+`}]` {
					t.Errorf("check(%s) content = %s", tc.args, got)
				}
				if got := field(res, "isError"); got != "" {
					t.Errorf("check(%s) isError = %s", tc.args, got)
				}
			}
			c.p.eof()
		})
	}
}

// tools/list carries the schemas inferred from the Go types, mcp tags
// applied, input closed.
func TestTypedToolSchemas(t *testing.T) {
	c := newEraClient(t, typedServer(t), stdio.Version20260728)
	line, id := c.call("tools/list", `{}`)
	var list struct{ Tools []mcp.Tool }
	if err := json.Unmarshal(wantResult(t, line, id), &list); err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools/list = %s", line)
	}
	wantIn := `{"type":"object","properties":{"city":{"type":"string","description":"the city"},` +
		`"units":{"type":"string","default":"celsius","enum":["celsius","fahrenheit"]},"steps":{"type":"integer","minimum":1,"maximum":10},` +
		`"id":{"type":"integer"},"address":{"type":["null","object"],"properties":{"street":{"type":"string"},` +
		`"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["zip"],"additionalProperties":false},` +
		`"tags":{"type":["null","array"],"items":{"type":"string","minLength":1}}},"required":["city"],"additionalProperties":false}`
	if got := string(list.Tools[0].InputSchema); got != wantIn {
		t.Errorf("inputSchema =\n%s\nwant\n%s", got, wantIn)
	}
	wantOut := `{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string"},"id":{"type":"integer"}},` +
		`"required":["city","units","id"],"additionalProperties":false}`
	if got := string(list.Tools[0].OutputSchema); got != wantOut {
		t.Errorf("outputSchema =\n%s\nwant\n%s", got, wantOut)
	}
	c.p.eof()
}

// At most ten violations are reported, however many there are.
func TestTypedToolViolationsBounded(t *testing.T) {
	c := newEraClient(t, typedServer(t), stdio.Version20250618)
	var args []string
	for i := range 25 {
		args = append(args, fmt.Sprintf(`"x%d":%d`, i, i))
	}
	line, id := c.call("tools/call", `{"name":"check","arguments":{`+strings.Join(args, ",")+`}}`)
	m := wantError(t, line, id, -32602)
	var data struct{ Errors []mcp.Violation }
	if err := json.Unmarshal(m.Error.Data, &data); err != nil || len(data.Errors) != 10 {
		t.Errorf("data = %s, want 10 violations", m.Error.Data)
	}
	c.p.eof()
}

// The other kinds of In and Out: a pointer to a struct, json.RawMessage
// validated against a given schema, a given schema and a struct (both
// apply), Out as *ToolResult, as a string and as a map; a handler's
// errors are sent as a raw handler's.
func TestTypedToolKinds(t *testing.T) {
	srv := newServer(t, "kinds", mcp.Config{})
	type pt struct {
		X int `json:"x"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "ptr"}, func(_ context.Context, _ *mcp.CallToolRequest, in *pt) (string, error) {
		return fmt.Sprint("x=", in.X), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","multipleOf":2}}}`)},
		func(_ context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (map[string]json.RawMessage, error) {
			return map[string]json.RawMessage{"got": in}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "both", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer","multipleOf":2}}}`)},
		func(_ context.Context, _ *mcp.CallToolRequest, in pt) (*mcp.ToolResult, error) {
			return mcp.TextResult(fmt.Sprint(in.X)), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "fails"}, func(_ context.Context, _ *mcp.CallToolRequest, in pt) ([]int, error) {
		switch in.X {
		case 1:
			return nil, errors.New("it broke")
		case 2:
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: x is odd in spirit")
		}
		return []int{in.X}, nil
	})
	c := newEraClient(t, srv, stdio.Version20251125)
	for _, tc := range []struct{ tool, args, want string }{
		{"ptr", `{"x":3}`, `{"content":[{"type":"text","text":"x=3"}]}`},
		{"ptr", `{"y":3}`, `"isError":true`},
		{"raw", `{"n":4,"m":"kept as sent"}`, `{"content":[{"type":"text","text":"{\"got\":{\"n\":4,\"m\":\"kept as sent\"}}"}],"structuredContent":{"got":{"n":4,"m":"kept as sent"}}}`},
		{"raw", `{"n":3}`, `multipleOf`},
		{"both", `{"x":4}`, `{"content":[{"type":"text","text":"4"}]}`},
		{"both", `{"x":3}`, `multipleOf`},
		{"both", `{"x":"4"}`, `"isError":true`},
		{"fails", `{"x":1}`, `{"content":[{"type":"text","text":"it broke"}],"isError":true}`},
		{"fails", `{"x":5}`, `{"content":[{"type":"text","text":"[5]"}]}`},
	} {
		line, id := c.call("tools/call", `{"name":"`+tc.tool+`","arguments":`+tc.args+`}`)
		if got := string(wantResult(t, line, id)); !strings.Contains(got, tc.want) {
			t.Errorf("%s(%s) = %s, want %s", tc.tool, tc.args, got, tc.want)
		}
	}
	line, id := c.call("tools/call", `{"name":"fails","arguments":{"x":2}}`)
	wantError(t, line, id, -32602)
	line, id = c.call("tools/list", `{}`)
	list := string(wantResult(t, line, id))
	for _, want := range []string{
		`{"name":"ptr","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}}`,
		`"outputSchema":{"type":"object","additionalProperties":true}}`, // raw's map[string]json.RawMessage
	} {
		if !strings.Contains(list, want) {
			t.Errorf("tools/list = %s, want it to contain %s", list, want)
		}
	}
	c.p.eof()
}

// Registration refuses what cannot work, naming the problem.
func TestTypedToolPanics(t *testing.T) {
	srv := newServer(t, "panics", mcp.Config{})
	noop := func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil }
	for _, tc := range []struct {
		name string
		add  func()
		want string
	}{
		{"no name", func() { mcp.AddTool(srv, mcp.Tool{}, noop) }, "needs a name"},
		{"int In", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, int) (string, error) { return "", nil })
		}, "the arguments type In must be a struct"},
		{"raw without schema", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, json.RawMessage) (string, error) { return "", nil })
		}, "need an InputSchema"},
		{"unknown key", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				A int `json:"a" mcp:"minimun=1"`
			}) (string, error) {
				return "", nil
			})
		}, `unknown key "minimun"`},
		{"key on the wrong type", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				A string `json:"a" mcp:"minimum=1"`
			}) (string, error) {
				return "", nil
			})
		}, "minimum=1: applies to integer and number, not string"},
		{"enum of the wrong type", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				A int `json:"a" mcp:"enum=1|1.5"`
			}) (string, error) {
				return "", nil
			})
		}, `"1.5" is not an integer`},
		{"bad pattern", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				A string `json:"a" mcp:"pattern=("`
			}) (string, error) {
				return "", nil
			})
		}, "missing closing )"},
		{"default out of range", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				A int `json:"a,omitempty" mcp:"maximum=10,default=11"`
			}) (string, error) {
				return "", nil
			})
		}, "the default 11 is invalid: 11 is above the maximum 10"},
		{"string option", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				A int `json:"a,string"`
			}) (string, error) {
				return "", nil
			})
		}, "the json tag option string is not supported"},
		{"unsupported type", func() {
			mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct {
				C chan int `json:"c"`
			}) (string, error) {
				return "", nil
			})
		}, "unsupported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) || !strings.HasPrefix(s, "mcp: AddTool") {
					t.Errorf("panic = %v, want one containing %q", r, tc.want)
				}
			}()
			tc.add()
		})
	}
}

// A typed prompt lists the arguments inferred from its struct, and refuses
// a missing, unknown or invalid argument with -32602 in every era.
func TestTypedPrompt(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			c := newEraClient(t, typedServer(t), era)
			line, id := c.call("prompts/list", `{}`)
			if got := field(wantResult(t, line, id), "prompts"); got != `[{"name":"trip","arguments":[`+
				`{"name":"city","description":"where to","required":true},{"name":"mode","title":"Travel mode"}]}]` {
				t.Errorf("prompts = %s", got)
			}
			line, id = c.call("prompts/get", `{"name":"trip","arguments":{"city":"Oslo","mode":"train"}}`)
			if got := field(wantResult(t, line, id), "messages"); !strings.Contains(got, "Plan a trip to Oslo by train") {
				t.Errorf("messages = %s", got)
			}
			for _, tc := range []struct{ args, message, data string }{
				{`{"mode":"train"}`, "Invalid params: prompt trip needs the argument city", ""},
				{`{"city":"Oslo","speed":"fast"}`, "Invalid params: speed: unknown argument", `{"errors":[{"path":"speed","message":"unknown argument"}]}`},
				{`{"city":"Oslo","mode":"car"}`, `Invalid params: mode: "car" is not one of train, plane`,
					`{"errors":[{"path":"mode","message":"\"car\" is not one of train, plane"}]}`},
			} {
				line, id := c.call("prompts/get", `{"name":"trip","arguments":`+tc.args+`}`)
				m := wantError(t, line, id, -32602)
				if m.Error.Message != tc.message || string(m.Error.Data) != tc.data {
					t.Errorf("prompts/get %s = %q %s, want %q %s", tc.args, m.Error.Message, m.Error.Data, tc.message, tc.data)
				}
			}
			c.p.eof()
		})
	}
}

// A typed template decodes its variables, integers exactly; a URI whose
// variables do not decode is not found, with the era's code.
func TestTypedResourceTemplate(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			c := newEraClient(t, typedServer(t), era)
			line, id := c.call("resources/read", `{"uri":"users/9007199254740993/posts/hello%20world"}`)
			if got := field(wantResult(t, line, id), "contents"); got != `[{"uri":"users/9007199254740993/posts/hello%20world","text":"post hello world of user 9007199254740993"}]` {
				t.Errorf("contents = %s", got)
			}
			code := int64(-32002)
			if era == stdio.Version20260728 {
				code = -32602
			}
			for _, uri := range []string{"users/abc/posts/x", "users/1.5/posts/x", "users/0/posts/x", "users/99999999999999999999/posts/x"} {
				line, id := c.call("resources/read", `{"uri":"`+uri+`"}`)
				if m := wantError(t, line, id, code); string(m.Error.Data) != `{"uri":"`+uri+`"}` {
					t.Errorf("read %s: data = %s", uri, m.Error.Data)
				}
			}
			c.p.eof()
		})
	}
}

func TestTypedRegistrationPanics(t *testing.T) {
	srv := newServer(t, "panics", mcp.Config{})
	for _, tc := range []struct {
		name string
		add  func()
		want string
	}{
		{"prompt with an int field", func() {
			mcp.AddPrompt(srv, mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest, struct {
				N int `json:"n"`
			}) (*mcp.GetPromptResult, error) {
				return nil, nil
			})
		}, "field n of struct { N int \"json:\\\"n\\\"\" } has an unsupported type"},
		{"prompt arguments disagree", func() {
			mcp.AddPrompt(srv, mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "a"}}}, func(context.Context, *mcp.GetPromptRequest, struct {
				A string `json:"a"`
			}) (*mcp.GetPromptResult, error) {
				return nil, nil
			})
		}, "disagree"},
		{"template variable without a field", func() {
			mcp.AddResourceTemplate(srv, mcp.ResourceTemplate{URITemplate: "x/{a}/{b}", Name: "x"}, func(context.Context, *mcp.ReadResourceRequest, struct {
				A string `json:"a"`
			}) (*mcp.ReadResourceResult, error) {
				return nil, nil
			})
		}, `the variables ["a" "b"] and the fields ["a"]`},
		{"template with a float field", func() {
			mcp.AddResourceTemplate(srv, mcp.ResourceTemplate{URITemplate: "x/{a}", Name: "x"}, func(context.Context, *mcp.ReadResourceRequest, struct {
				A float64 `json:"a"`
			}) (*mcp.ReadResourceResult, error) {
				return nil, nil
			})
		}, "unsupported type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if s, _ := recover().(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic = %q, want one containing %q", s, tc.want)
				}
			}()
			tc.add()
		})
	}
}

type contact struct {
	Name  string `json:"name" mcp:"title=Your name,minLength=1"`
	Email string `json:"email,omitempty" mcp:"format=email"`
	Age   int    `json:"age,omitempty" mcp:"minimum=0,maximum=150"`
	Plan  string `json:"plan,omitempty" mcp:"enum=free|pro,default=free"`
}

func elicitServer(tb testing.TB) *mcp.Server {
	srv := newServer(tb, "elicit", mcp.Config{})
	mcp.AddTool(srv, mcp.Tool{Name: "signup"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		c, action, err := mcp.Elicit[contact](ctx, &req.Request, "contact", "Who are you?")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %+v", action, c), nil
	})
	return srv
}

// Elicit asks with the schema inferred from the struct and decodes the
// answer; on 2026-07-28 through an input_required round.
func TestElicitTyped(t *testing.T) {
	p := serve(t, elicitServer(t))
	first := wantResult(t, p.call(request(1, "tools/call", `{"name":"signup",`+meta26All+`}`)), "1")
	wantSchema := `{"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":1},` +
		`"email":{"type":"string","format":"email"},"age":{"type":"integer","minimum":0,"maximum":150},` +
		`"plan":{"type":"string","default":"free","enum":["free","pro"]}},"required":["name"]}`
	if got := field(first, "inputRequests", "contact", "params", "requestedSchema"); got != wantSchema {
		t.Errorf("requestedSchema =\n%s\nwant\n%s", got, wantSchema)
	}
	state := field(first, "requestState")
	for i, tc := range []struct{ answer, want string }{
		{`{"action":"accept","content":{"name":"Ada","age":36,"extra":"ignored"}}`, `"text":"accept {Name:Ada Email: Age:36 Plan:free}"`},
		{`{"action":"decline"}`, `"text":"decline {Name: Email: Age:0 Plan:}"`},
		{`{"action":"accept","content":{"name":"","age":200}}`,
			`"text":"mcp: Elicit \"contact\": the answer does not fit the form: name: \"\" is shorter than 1 character; age: 200 is above the maximum 150"}],"isError":true`},
	} {
		res := wantResult(t, p.call(request(2+i, "tools/call", `{"name":"signup",`+meta26All+`,"requestState":`+state+
			`,"inputResponses":{"contact":`+tc.answer+`}}`)), fmt.Sprint(2+i))
		if !strings.Contains(string(res), tc.want) {
			t.Errorf("answer %s: result %s, want %s", tc.answer, res, tc.want)
		}
	}
	p.eof()
}

// On a 2025 connection, Elicit sends the form as a real elicitation/create.
func TestElicitTypedLegacy(t *testing.T) {
	p := serve(t, elicitServer(t))
	p.initialize(stdio.Version20251125, `{"elicitation":{}}`)
	p.send(request(1, "tools/call", `{"name":"signup"}`))
	ask := decode(t, p.next())
	if ask.Method != "elicitation/create" || !strings.Contains(string(ask.Params), `"message":"Who are you?"`) {
		t.Fatalf("got %s, want elicitation/create", ask.Params)
	}
	p.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"name":"Bo","age":9007199254740993}}}`)
	res := wantResult(t, p.next(), "1")
	if !strings.Contains(string(res), `age: 9007199254740993 is above the maximum 150`) {
		t.Errorf("result = %s", res)
	}
	p.eof()
}

// Elicit refuses a type that cannot be a form before it asks anything.
func TestElicitPanics(t *testing.T) {
	defer func() {
		if s, _ := recover().(string); !strings.Contains(s, "field a of") || !strings.Contains(s, "a form's fields are strings") {
			t.Errorf("panic = %q, want one naming the field", s)
		}
	}()
	mcp.Elicit[struct {
		A address `json:"a"`
	}](context.Background(), nil, "k", "m")
}
