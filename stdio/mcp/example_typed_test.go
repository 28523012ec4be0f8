package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// exampleClient is the client's side of a server served in-process over
// two pipes, as the typed examples use it. Requests carry 2026-07-28 _meta
// unless the client initialized a 2025 session.
type exampleClient struct {
	in     io.WriteCloser
	lines  *bufio.Scanner
	done   chan error
	legacy bool
	id     int
}

func startExample(srv *mcp.Server) *exampleClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &exampleClient{in: inW, lines: bufio.NewScanner(outR), done: make(chan error)}
	go func() {
		c.done <- server.Serve(context.Background(), srv, inR, outW, server.Config{})
		outW.Close()
	}()
	return c
}

// call sends a request and returns its response's result, or its error,
// without the result's _meta.
func (c *exampleClient) call(method, params string) (result, rpcError map[string]json.RawMessage) {
	c.id++
	if !c.legacy {
		params = strings.Replace(params, "{", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
			`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},`, 1)
		params = strings.Replace(params, ",}", "}", 1)
	}
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	c.lines.Scan()
	var resp struct{ Result, Error map[string]json.RawMessage }
	if err := json.Unmarshal(c.lines.Bytes(), &resp); err != nil {
		log.Fatalf("%s: %v", c.lines.Text(), err)
	}
	delete(resp.Result, "_meta")
	return resp.Result, resp.Error
}

// initialize opens a 2025 session at version; later requests belong to it.
func (c *exampleClient) initialize(version string) {
	c.legacy = true
	c.call("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"example","version":"1"}}`)
	fmt.Fprintln(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (c *exampleClient) close() {
	c.in.Close()
	if err := <-c.done; err != nil {
		log.Fatal(err)
	}
}

// A typed tool: the input schema is inferred from the struct, the
// arguments are validated and decoded before the handler runs (integers
// exactly: 2^53+1 stays 2^53+1), and the result is the output struct as
// structuredContent. Invalid arguments are a tool error the model can
// read on 2026-07-28 and 2025-11-25, and a protocol error on 2025-06-18.
func ExampleAddTool() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	type Args struct {
		City  string `json:"city" jsonschema:"the city"`
		Days  int    `json:"days,omitempty" mcp:"minimum=1,maximum=10,default=1"`
		Units string `json:"units,omitempty" mcp:"enum=celsius|fahrenheit,default=celsius"`
		Seed  int64  `json:"seed,omitempty"`
	}
	type Forecast struct {
		City  string `json:"city"`
		Days  int    `json:"days"`
		High  int    `json:"high"`
		Units string `json:"units"`
		Seed  int64  `json:"seed"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: "The forecast for a city"},
		func(ctx context.Context, req *mcp.CallToolRequest, in Args) (Forecast, error) {
			return Forecast{City: in.City, Days: in.Days, High: 21, Units: in.Units, Seed: in.Seed}, nil
		})

	c := startExample(srv)
	list, _ := c.call("tools/list", `{}`)
	var tools []mcp.Tool
	json.Unmarshal(list["tools"], &tools)
	fmt.Printf("inputSchema: %s\n", tools[0].InputSchema)

	res, _ := c.call("tools/call", `{"name":"forecast","arguments":{"city":"Paris","days":3,"seed":9007199254740993}}`)
	fmt.Printf("structuredContent: %s\n", res["structuredContent"])

	res, _ = c.call("tools/call", `{"name":"forecast","arguments":{"days":11,"units":"kelvin"}}`)
	fmt.Printf("2026-07-28: isError %s, content %s\n", res["isError"], res["content"])

	c.initialize(stdio.Version20250618)
	_, rpcErr := c.call("tools/call", `{"name":"forecast","arguments":{"days":11,"units":"kelvin"}}`)
	fmt.Printf("2025-06-18: error %s %s\n", rpcErr["code"], rpcErr["message"])
	fmt.Printf("data: %s\n", rpcErr["data"])
	c.close()
	// Output:
	// inputSchema: {"type":"object","properties":{"city":{"type":"string","description":"the city"},"days":{"type":"integer","default":1,"minimum":1,"maximum":10},"units":{"type":"string","default":"celsius","enum":["celsius","fahrenheit"]},"seed":{"type":"integer"}},"required":["city"],"additionalProperties":false}
	// structuredContent: {"city":"Paris","days":3,"high":21,"units":"celsius","seed":9007199254740993}
	// 2026-07-28: isError true, content [{"type":"text","text":"Invalid arguments: days: 11 is above the maximum 10; units: \"kelvin\" is not one of celsius, fahrenheit; city: required"}]
	// 2025-06-18: error -32602 "Invalid params: days: 11 is above the maximum 10; units: \"kelvin\" is not one of celsius, fahrenheit; city: required"
	// data: {"errors":[{"path":"days","message":"11 is above the maximum 10"},{"path":"units","message":"\"kelvin\" is not one of celsius, fahrenheit"},{"path":"city","message":"required"}]}
}

// A typed prompt: its arguments are inferred from the struct's string
// fields, and a missing, unknown or invalid argument is -32602.
func ExampleAddPrompt() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "travel", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	type Trip struct {
		City string `json:"city" jsonschema:"where to go"`
		Mode string `json:"mode,omitempty" mcp:"enum=train|plane,default=train"`
	}
	mcp.AddPrompt(srv, mcp.Prompt{Name: "plan_trip"},
		func(ctx context.Context, req *mcp.GetPromptRequest, trip Trip) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text("Plan a trip to " + trip.City + " by " + trip.Mode)},
			}}, nil
		})

	c := startExample(srv)
	list, _ := c.call("prompts/list", `{}`)
	fmt.Printf("prompts: %s\n", list["prompts"])
	res, _ := c.call("prompts/get", `{"name":"plan_trip","arguments":{"city":"Lisbon"}}`)
	fmt.Printf("messages: %s\n", res["messages"])
	for _, args := range []string{`{}`, `{"city":"Lisbon","mode":"car"}`} {
		_, rpcErr := c.call("prompts/get", `{"name":"plan_trip","arguments":`+args+`}`)
		fmt.Printf("%s: %s %s\n", args, rpcErr["code"], rpcErr["message"])
	}
	c.close()
	// Output:
	// prompts: [{"name":"plan_trip","arguments":[{"name":"city","description":"where to go","required":true},{"name":"mode"}]}]
	// messages: [{"role":"user","content":{"type":"text","text":"Plan a trip to Lisbon by train"}}]
	// {}: -32602 "Invalid params: prompt plan_trip needs the argument city"
	// {"city":"Lisbon","mode":"car"}: -32602 "Invalid params: mode: \"car\" is not one of train, plane"
}

// A typed resource template: the URI's variables are decoded into the
// struct's fields, integers exactly; a URI whose variables do not decode
// names no resource.
func ExampleAddResourceTemplate() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "users", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	type User struct {
		ID     int64  `json:"id" mcp:"minimum=1"`
		Format string `json:"format" mcp:"enum=json|text"`
	}
	mcp.AddResourceTemplate(srv, mcp.ResourceTemplate{URITemplate: "users://{id}.{format}", Name: "user"},
		func(ctx context.Context, req *mcp.ReadResourceRequest, u User) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
				{URI: req.URI, Text: fmt.Sprintf("user %d as %s", u.ID, u.Format)},
			}}, nil
		})

	c := startExample(srv)
	for _, uri := range []string{"users://9007199254740993.json", "users://ada.json", "users://7.xml"} {
		res, rpcErr := c.call("resources/read", `{"uri":"`+uri+`"}`)
		if rpcErr != nil {
			fmt.Printf("%s: %s %s\n", uri, rpcErr["code"], rpcErr["message"])
			continue
		}
		fmt.Printf("%s: %s\n", uri, res["contents"])
	}
	c.close()
	// Output:
	// users://9007199254740993.json: [{"uri":"users://9007199254740993.json","text":"user 9007199254740993 as json"}]
	// users://ada.json: -32602 "Resource not found"
	// users://7.xml: -32602 "Resource not found"
}

// Typed elicitation: the form is inferred from the struct, and the user's
// answer comes back decoded and validated. On 2026-07-28 the first call
// answers input_required with the form; the client's retry carries the
// answer.
func ExampleElicit() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "signup", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	type Contact struct {
		Name string `json:"name" mcp:"title=Your name,minLength=1"`
		Age  int    `json:"age,omitempty" mcp:"minimum=0,maximum=150"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "signup"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			contact, action, err := mcp.Elicit[Contact](ctx, &req.Request, "contact", "Who are you?")
			if err != nil {
				return "", err // ErrInputRequired on the first 2026-07-28 round
			}
			if action != mcp.ElicitAccept {
				return "no signup: " + string(action), nil
			}
			return fmt.Sprintf("signed up %s, %d", contact.Name, contact.Age), nil
		})

	c := startExample(srv)
	first, _ := c.call("tools/call", `{"name":"signup"}`)
	var ask struct {
		Contact struct{ Params mcp.ElicitParams }
	}
	json.Unmarshal(first["inputRequests"], &ask)
	fmt.Printf("%s: %s\n", first["resultType"], ask.Contact.Params.RequestedSchema)
	for _, answer := range []string{
		`{"action":"accept","content":{"name":"Ada","age":36}}`,
		`{"action":"accept","content":{"name":"Ada","age":-1}}`,
		`{"action":"decline"}`,
	} {
		res, _ := c.call("tools/call", `{"name":"signup","requestState":`+string(first["requestState"])+
			`,"inputResponses":{"contact":`+answer+`}}`)
		fmt.Printf("%s\n", res["content"])
	}
	c.close()
	// Output:
	// "input_required": {"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":1},"age":{"type":"integer","minimum":0,"maximum":150}},"required":["name"]}
	// [{"type":"text","text":"signed up Ada, 36"}]
	// [{"type":"text","text":"mcp: Elicit \"contact\": the answer does not fit the form: age: -1 is below the minimum 0"}]
	// [{"type":"text","text":"no signup: decline"}]
}
