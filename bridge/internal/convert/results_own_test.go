package convert

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// These tests read real MCP results, as servers of each era send them,
// into the typed messages, and results of the wrong shape into errors.

var (
	modernEra = EraOf(protocol.Version20260728)
	era1125   = EraOf(protocol.Version20251125)
	era0618   = EraOf(protocol.Version20250618)
)

// obj is the Struct of a JSON object, read by protojson (not by the
// package's own parser).
func obj(tb testing.TB, s string) *structpb.Struct {
	tb.Helper()
	st := &structpb.Struct{}
	if err := protojson.Unmarshal([]byte(s), st); err != nil {
		tb.Fatalf("protojson %s: %v", s, err)
	}
	return st
}

// val is the Value of any JSON text, read by protojson.
func val(tb testing.TB, s string) *structpb.Value {
	tb.Helper()
	v := &structpb.Value{}
	if err := protojson.Unmarshal([]byte(s), v); err != nil {
		tb.Fatalf("protojson %s: %v", s, err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

func same(tb testing.TB, what string, want, got proto.Message) {
	tb.Helper()
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		tb.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// TestDecodeListResults: the four list results, as a server of each era
// sends them (the 2025-11-25 ones from the spec's examples, with icons),
// each field where the era has it and nowhere else.
func TestDecodeListResults(t *testing.T) {
	icons := `"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48","96x96"],"theme":"light"}]`
	wantIcons := []*mcpbridgev1.Icon{{Src: "https://example.com/i.png", MimeType: "image/png", Sizes: []string{"48x48", "96x96"}, Theme: "light"}}
	hints := `,"ttlMs":60000,"cacheScope":"public","_meta":{"k":"v"},"nextCursor":"n2"`

	resources := `{"resources":[{"uri":"file:///project/src/main.rs","name":"main.rs","title":"Rust Software Application Main File","description":"Primary application entry point",` +
		`"mimeType":"text/x-rust","size":1024.0,"annotations":{"audience":["user"],"priority":0.8},` + icons + `,"_meta":{"m":1},"unknown":{"x":1}}]` + hints + `}`
	for _, tt := range []struct {
		r    Era
		want *mcpbridgev1.ListResourcesResponse
	}{
		{modernEra, &mcpbridgev1.ListResourcesResponse{Resources: []*mcpbridgev1.Resource{{
			Uri: "file:///project/src/main.rs", Name: "main.rs", Title: "Rust Software Application Main File", Description: "Primary application entry point",
			MimeType: "text/x-rust", Size: ptr[int64](1024), Annotations: obj(t, `{"audience":["user"],"priority":0.8}`), Icons: wantIcons, Meta: obj(t, `{"m":1}`),
		}}, NextCursor: "n2", Meta: obj(t, `{"k":"v"}`), Ttl: durationpb.New(time.Minute), CacheScope: mcpbridgev1.CacheScope_CACHE_SCOPE_PUBLIC}},
		{era0618, &mcpbridgev1.ListResourcesResponse{Resources: []*mcpbridgev1.Resource{{
			Uri: "file:///project/src/main.rs", Name: "main.rs", Title: "Rust Software Application Main File", Description: "Primary application entry point",
			MimeType: "text/x-rust", Size: ptr[int64](1024), Annotations: obj(t, `{"audience":["user"],"priority":0.8}`), Meta: obj(t, `{"m":1}`),
		}}, NextCursor: "n2", Meta: obj(t, `{"k":"v"}`)}},
	} {
		got, err := DecodeListResources(json.RawMessage(resources), tt.r)
		if err != nil {
			t.Fatalf("%s: DecodeListResources: %v", tt.r.version, err)
		}
		same(t, "resources/list of "+tt.r.version, tt.want, got)
	}

	templates := `{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"Project Files","title":"📁 Project Files","description":"Access files in the project directory",` +
		`"mimeType":"application/octet-stream","annotations":{"priority":1},` + icons + `,"_meta":{"m":2}}]` + hints + `}`
	got, err := DecodeListResourceTemplates(json.RawMessage(templates), era1125)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "resources/templates/list of 2025-11-25", &mcpbridgev1.ListResourceTemplatesResponse{ResourceTemplates: []*mcpbridgev1.ResourceTemplate{{
		UriTemplate: "file:///{path}", Name: "Project Files", Title: "📁 Project Files", Description: "Access files in the project directory",
		MimeType: "application/octet-stream", Annotations: obj(t, `{"priority":1}`), Icons: wantIcons, Meta: obj(t, `{"m":2}`),
	}}, NextCursor: "n2", Meta: obj(t, `{"k":"v"}`)}, got)
	if got, err := DecodeListResourceTemplates(json.RawMessage(templates), modernEra); err != nil || got.GetTtl().AsDuration() != time.Minute || got.GetCacheScope() != mcpbridgev1.CacheScope_CACHE_SCOPE_PUBLIC {
		t.Errorf("resources/templates/list of 2026: %v, %v; want its cache hints", got, err)
	}

	prompts := `{"prompts":[{"name":"code_review","title":"Request Code Review","description":"Asks the LLM to analyze code quality and suggest improvements",` +
		`"arguments":[{"name":"code","title":"Code","description":"The code to review","required":true},{"name":"style"}],` + icons + `,"_meta":{"m":3}}]` + hints + `}`
	wantPrompt := &mcpbridgev1.Prompt{
		Name: "code_review", Title: "Request Code Review", Description: "Asks the LLM to analyze code quality and suggest improvements",
		Arguments: []*mcpbridgev1.PromptArgument{{Name: "code", Title: "Code", Description: "The code to review", Required: true}, {Name: "style"}},
		Icons:     wantIcons,
		Meta:      obj(t, `{"m":3}`),
	}
	gotPrompts, err := DecodeListPrompts(json.RawMessage(prompts), era1125)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "prompts/list of 2025-11-25", &mcpbridgev1.ListPromptsResponse{Prompts: []*mcpbridgev1.Prompt{wantPrompt}, NextCursor: "n2", Meta: obj(t, `{"k":"v"}`)}, gotPrompts)
	legacyPrompt := proto.Clone(wantPrompt).(*mcpbridgev1.Prompt)
	legacyPrompt.Icons = nil
	if gotPrompts, err = DecodeListPrompts(json.RawMessage(prompts), era0618); err != nil {
		t.Fatal(err)
	}
	same(t, "prompts/list of 2025-06-18", &mcpbridgev1.ListPromptsResponse{Prompts: []*mcpbridgev1.Prompt{legacyPrompt}, NextCursor: "n2", Meta: obj(t, `{"k":"v"}`)}, gotPrompts)

	tools := `{"tools":[{"name":"get_weather","title":"Weather","description":"Get current weather","inputSchema":{"type":"object","required":["location"]},` +
		`"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"m":4},"execution":{"taskSupport":"forbidden"},` + icons + `}]}`
	gotTools, err := DecodeListTools(json.RawMessage(tools), era1125)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "tools/list of 2025-11-25", &mcpbridgev1.ListToolsResponse{Tools: []*mcpbridgev1.Tool{{
		Name: "get_weather", Title: "Weather", Description: "Get current weather", InputSchema: obj(t, `{"type":"object","required":["location"]}`),
		OutputSchema: obj(t, `{"type":"object"}`), Annotations: obj(t, `{"readOnlyHint":true}`), Meta: obj(t, `{"m":4}`),
		Execution: obj(t, `{"taskSupport":"forbidden"}`), Icons: wantIcons,
	}}}, gotTools)
	// execution is 2025-11-25's alone; icons 2025-11-25's and 2026's.
	for r, want := range map[Era][2]int{modernEra: {0, 1}, era0618: {0, 0}} {
		got, err := DecodeListTools(json.RawMessage(tools), r)
		if err != nil || got.GetTools()[0].GetName() != "get_weather" {
			t.Fatalf("tools/list of %s: %v, %v", r.version, got, err)
		}
		if exec, icons := got.GetTools()[0].Execution != nil, len(got.GetTools()[0].GetIcons()); exec != (want[0] == 1) || icons != want[1] {
			t.Errorf("tools/list of %s: execution %v, %d icons; want %v, %d", r.version, exec, icons, want[0] == 1, want[1])
		}
	}
}

// TestDecodeListErrors: a list result of the wrong shape is an error that
// names where, in every era that reads the member; null counts as absent.
func TestDecodeListErrors(t *testing.T) {
	type decoder func(json.RawMessage, Era) (proto.Message, error)
	lists := map[string]decoder{
		"tools":             func(b json.RawMessage, r Era) (proto.Message, error) { return DecodeListTools(b, r) },
		"resources":         func(b json.RawMessage, r Era) (proto.Message, error) { return DecodeListResources(b, r) },
		"resourceTemplates": func(b json.RawMessage, r Era) (proto.Message, error) { return DecodeListResourceTemplates(b, r) },
		"prompts":           func(b json.RawMessage, r Era) (proto.Message, error) { return DecodeListPrompts(b, r) },
	}
	for key, decode := range lists {
		for _, tt := range []struct {
			raw   string
			r     Era
			names string // what the error must name; "" for no error
		}{
			{`{"` + key + `":[]}`, modernEra, ""},
			{`{"` + key + `":null,"nextCursor":null,"_meta":null,"ttlMs":null}`, modernEra, ""},
			{`{"` + key + `":{}}`, era1125, "result." + key},
			{`{"` + key + `":[1]}`, era1125, "[0]"},
			{`{"` + key + `":[],"nextCursor":5}`, era1125, "result.nextCursor"},
			{`{"` + key + `":[],"_meta":"m"}`, era1125, "result._meta"},
			{`{"` + key + `":[],"ttlMs":1.5}`, modernEra, "result.ttlMs"},
			{`{"` + key + `":[],"ttlMs":"60"}`, modernEra, "result.ttlMs"},
			{`{"` + key + `":[],"ttlMs":"60","cacheScope":1}`, era1125, ""}, // not read in a legacy era
			{`{"` + key + `":[],"cacheScope":1}`, modernEra, "result.cacheScope"},
			{`{"` + key + `":[],"resultType":"input_required"}`, modernEra, "input_required"},
			{`{"` + key + `":[],"resultType":7}`, modernEra, "result.resultType"},
			{`{"` + key + `":[],"resultType":"input_required"}`, era1125, ""},
			{`[]`, era1125, "result"},
			{`"tools"`, modernEra, "result"},
		} {
			_, err := decode(json.RawMessage(tt.raw), tt.r)
			switch {
			case tt.names == "" && err != nil:
				t.Errorf("%s in %s: %v", tt.raw, tt.r.version, err)
			case tt.names != "" && (err == nil || !strings.Contains(err.Error(), tt.names)):
				t.Errorf("%s in %s: error %v, want one naming %s", tt.raw, tt.r.version, err, tt.names)
			}
		}
	}
	// Items of the wrong shape, member by member.
	for _, tt := range []struct {
		list, item, names string
	}{
		{"tools", `{"name":1}`, "tool.name"},
		{"tools", `{"name":"t","inputSchema":[]}`, "tool.inputSchema"},
		{"tools", `{"name":"t","icons":{}}`, "tool.icons"},
		{"tools", `{"name":"t","icons":[{"src":1}]}`, "icon.src"},
		{"tools", `{"name":"t","icons":[{"src":"s","sizes":[1]}]}`, "icon.sizes"},
		{"tools", `{"name":"t","execution":"x"}`, "tool.execution"},
		{"resources", `{"uri":"u","size":1.5}`, "resource.size"},
		{"resources", `{"uri":"u","size":"1"}`, "resource.size"},
		{"resources", `{"uri":true}`, "resource.uri"},
		{"resources", `{"uri":"u","annotations":1}`, "resource.annotations"},
		{"resourceTemplates", `{"uriTemplate":{}}`, "resourceTemplate.uriTemplate"},
		{"resourceTemplates", `{"uriTemplate":"u","mimeType":0}`, "resourceTemplate.mimeType"},
		{"prompts", `{"name":"p","arguments":{}}`, "prompt.arguments"},
		{"prompts", `{"name":"p","arguments":[{"name":"a","required":"yes"}]}`, "argument.required"},
		{"prompts", `{"name":"p","arguments":[3]}`, "argument"},
		{"prompts", `{"name":"p","description":false}`, "prompt.description"},
	} {
		raw := `{"` + tt.list + `":[` + tt.item + `]}`
		if _, err := lists[tt.list](json.RawMessage(raw), era1125); err == nil || !strings.Contains(err.Error(), tt.names) {
			t.Errorf("%s: error %v, want one naming %s", raw, err, tt.names)
		}
	}
	// A 2025-11-25 draft's icon sizes were one string; a big ttlMs is
	// capped, not overflowed.
	got, err := DecodeListTools(json.RawMessage(`{"tools":[{"name":"t","icons":[{"src":"s","sizes":"any"}]}],"ttlMs":9000000000000000000}`), modernEra)
	if err != nil || got.GetTools()[0].GetIcons()[0].GetSizes()[0] != "any" {
		t.Errorf("icon sizes as one string: %v, %v", got, err)
	}
	if err == nil && got.GetTtl().AsDuration() <= 0 {
		t.Errorf("ttlMs 9e18: %v, want the longest duration, not an overflow", got.GetTtl().AsDuration())
	}
}

// TestDecodeContentBlocks: every content block of a tools/call result,
// and blocks this API cannot model kept verbatim as other_json.
func TestDecodeContentBlocks(t *testing.T) {
	blocks := []struct {
		json string
		want *mcpbridgev1.Content
	}{
		{`{"type":"text","text":"Tool result text","annotations":{"audience":["user"]},"_meta":{"k":1}}`,
			&mcpbridgev1.Content{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: "Tool result text", Annotations: obj(t, `{"audience":["user"]}`), Meta: obj(t, `{"k":1}`)}}}},
		{`{"type":"image","data":"iVBORw0=","mimeType":"image/png","annotations":{"priority":1},"_meta":{"i":1}}`,
			&mcpbridgev1.Content{Block: &mcpbridgev1.Content_Image{Image: &mcpbridgev1.ImageContent{Data: []byte{0x89, 'P', 'N', 'G', 0x0d}, MimeType: "image/png", Annotations: obj(t, `{"priority":1}`), Meta: obj(t, `{"i":1}`)}}}},
		{`{"type":"audio","data":"UklGRg","mimeType":"audio/wav"}`, // padding left out: tolerated
			&mcpbridgev1.Content{Block: &mcpbridgev1.Content_Audio{Audio: &mcpbridgev1.AudioContent{Data: []byte("RIFF"), MimeType: "audio/wav"}}}},
		{`{"type":"resource_link","uri":"file:///project/src/main.rs","name":"main.rs","description":"Primary application entry point","mimeType":"text/x-rust","size":12}`,
			&mcpbridgev1.Content{Block: &mcpbridgev1.Content_ResourceLink{ResourceLink: &mcpbridgev1.Resource{Uri: "file:///project/src/main.rs", Name: "main.rs", Description: "Primary application entry point", MimeType: "text/x-rust", Size: ptr[int64](12)}}}},
		{`{"type":"resource","resource":{"uri":"file:///project/README.md","mimeType":"text/markdown","text":"# Title","_meta":{"r":1}},"annotations":{"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"e":1}}`,
			&mcpbridgev1.Content{Block: &mcpbridgev1.Content_Resource{Resource: &mcpbridgev1.EmbeddedResource{
				Resource:    &mcpbridgev1.ResourceContents{Uri: "file:///project/README.md", MimeType: "text/markdown", Contents: &mcpbridgev1.ResourceContents_Text{Text: "# Title"}, Meta: obj(t, `{"r":1}`)},
				Annotations: obj(t, `{"lastModified":"2025-01-12T15:00:58Z"}`), Meta: obj(t, `{"e":1}`)}}}},
		{`{"type":"resource","resource":{"uri":"file:///b.bin","blob":"AAEC"}}`,
			&mcpbridgev1.Content{Block: &mcpbridgev1.Content_Resource{Resource: &mcpbridgev1.EmbeddedResource{
				Resource: &mcpbridgev1.ResourceContents{Uri: "file:///b.bin", Contents: &mcpbridgev1.ResourceContents_Blob{Blob: []byte{0, 1, 2}}}}}}},
	}
	other := []string{
		`{"type":"video","data":"AA=="}`,               // unknown type
		`{"text":"no type"}`,                           // no type
		`{"type":7,"text":"x"}`,                        // a type that is no string
		`{"type":"text","text":5}`,                     // wrong member type
		`{"type":"text","text":"x","annotations":[1]}`, // annotations not an object
		`{"type":"image","data":"%%%","mimeType":"image/png"}`,
		`{"type":"audio","data":"AA==","mimeType":1}`,
		`{"type":"audio","data":"AA==","_meta":true}`,
		`{"type":"resource_link","uri":1}`,
		`{"type":"resource","annotations":{}}`,                  // no resource
		`{"type":"resource","resource":{"uri":"u","blob":"!"}}`, // bad base64
		`{"type":"resource","resource":"u"}`,
		`{"type":"resource","resource":{"uri":"u"},"_meta":1}`,
	}
	var content []string
	var want []*mcpbridgev1.Content
	for _, b := range blocks {
		content = append(content, b.json)
		want = append(want, b.want)
	}
	for _, o := range other {
		content = append(content, o)
		want = append(want, &mcpbridgev1.Content{Block: &mcpbridgev1.Content_OtherJson{OtherJson: o}})
	}
	raw := `{"content":[` + strings.Join(content, ",") + `],"structuredContent":{"temperature":22.5,"tags":["a"]},"isError":false,"_meta":{"m":true}}`
	for _, r := range []Era{modernEra, era1125, era0618} {
		got, err := DecodeCallToolResult(json.RawMessage(raw), r)
		if err != nil {
			t.Fatalf("%s: %v", r.version, err)
		}
		same(t, "tools/call of "+r.version, &mcpbridgev1.CallToolResponse{Content: want,
			StructuredContent: val(t, `{"temperature":22.5,"tags":["a"]}`), Meta: obj(t, `{"m":true}`)}, got)
	}
	// A resource_link's icons are read where the era has them.
	link := `{"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"s"}]}]}`
	for r, icons := range map[Era]int{modernEra: 1, era1125: 1, era0618: 0} {
		got, err := DecodeCallToolResult(json.RawMessage(link), r)
		if err != nil || len(got.GetContent()[0].GetResourceLink().GetIcons()) != icons {
			t.Errorf("%s: resource_link %v, %v; want %d icons", r.version, got, err, icons)
		}
	}
}

// TestDecodeCallToolInputRequired: a 2026-07-28 tools/call that needs
// input is InputRequired, content and all else left out; a legacy child's
// resultType means nothing.
func TestDecodeCallToolInputRequired(t *testing.T) {
	raw := `{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Sure?"}}},"requestState":"opaque-1","_meta":{"m":1},"content":null}`
	got, err := DecodeCallToolResult(json.RawMessage(raw), modernEra)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "input_required", &mcpbridgev1.CallToolResponse{InputRequired: &mcpbridgev1.InputRequired{
		InputRequests: obj(t, `{"confirm":{"method":"elicitation/create","params":{"message":"Sure?"}}}`), RequestState: "opaque-1", Meta: obj(t, `{"m":1}`),
	}}, got)
	for _, bad := range []string{
		`{"resultType":"input_required","inputRequests":[]}`,
		`{"resultType":"input_required","requestState":1}`,
		`{"resultType":"input_required","_meta":"m"}`,
		`{"resultType":["complete"]}`,
	} {
		if got, err := DecodeCallToolResult(json.RawMessage(bad), modernEra); err == nil {
			t.Errorf("%s: %v, want an error", bad, got)
		}
	}
	if got, err := DecodeCallToolResult(json.RawMessage(`{"resultType":"input_required","content":[]}`), era1125); err != nil || got.InputRequired != nil {
		t.Errorf("legacy input_required: %v, %v; want a plain result", got, err)
	}
}

// TestDecodeGetPromptResult: prompts/get results of both eras (the spec's
// example), roles, and messages of the wrong shape.
func TestDecodeGetPromptResult(t *testing.T) {
	raw := `{"description":"Code review prompt","messages":[` +
		`{"role":"user","content":{"type":"text","text":"Please review this Python code:\ndef hello():\n    print('world')"}},` +
		`{"role":"assistant","content":{"type":"image","data":"AA==","mimeType":"image/png"}},` +
		`{"role":"system","content":{"type":"mystery"}}],"_meta":{"m":1}}`
	want := &mcpbridgev1.GetPromptResponse{Description: "Code review prompt", Meta: obj(t, `{"m":1}`), Messages: []*mcpbridgev1.PromptMessage{
		{Role: mcpbridgev1.Role_ROLE_USER, Content: &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: "Please review this Python code:\ndef hello():\n    print('world')"}}}},
		{Role: mcpbridgev1.Role_ROLE_ASSISTANT, Content: &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Image{Image: &mcpbridgev1.ImageContent{Data: []byte{0}, MimeType: "image/png"}}}},
		{Role: mcpbridgev1.Role_ROLE_UNSPECIFIED, Content: &mcpbridgev1.Content{Block: &mcpbridgev1.Content_OtherJson{OtherJson: `{"type":"mystery"}`}}},
	}}
	for _, r := range []Era{modernEra, era1125, era0618} {
		got, err := DecodeGetPromptResult(json.RawMessage(raw), r)
		if err != nil {
			t.Fatalf("%s: %v", r.version, err)
		}
		same(t, "prompts/get of "+r.version, want, got)
	}
	ir, err := DecodeGetPromptResult(json.RawMessage(`{"resultType":"input_required","requestState":"s"}`), modernEra)
	if err != nil || ir.GetInputRequired().GetRequestState() != "s" || ir.Messages != nil {
		t.Errorf("prompts/get input_required: %v, %v", ir, err)
	}
	for _, bad := range []string{
		`{"messages":{}}`, `{"messages":[{"role":1}]}`, `{"messages":[[]]}`, `{"description":2}`, `{"_meta":[]}`, `null`,
	} {
		if got, err := DecodeGetPromptResult(json.RawMessage(bad), era1125); err == nil {
			t.Errorf("%s: %v, want an error", bad, got)
		}
	}
	if _, err := DecodeGetPromptResult(json.RawMessage(`{"resultType":"task"}`), modernEra); err == nil {
		t.Error("prompts/get answered with a task: no error")
	}
}

// TestDecodeCompleteResult: completion/complete results, with a total
// this API cannot hold left unset ("unknown"), and results of the wrong
// shape.
func TestDecodeCompleteResult(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want *mcpbridgev1.CompleteResponse
	}{
		{`{"completion":{"values":["python","pytorch","pyside"],"total":10,"hasMore":true},"_meta":{"m":1}}`,
			&mcpbridgev1.CompleteResponse{Values: []string{"python", "pytorch", "pyside"}, Total: ptr[uint32](10), HasMore: true, Meta: obj(t, `{"m":1}`)}},
		{`{"completion":{"values":[],"total":10.0}}`, &mcpbridgev1.CompleteResponse{Total: ptr[uint32](10)}},
		{`{"completion":{"values":["a"],"total":-1}}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}}},
		{`{"completion":{"values":["a"],"total":4294967296}}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}}},
		{`{"completion":{"values":["a"],"total":4294967295}}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}, Total: ptr[uint32](4294967295)}},
		{`{"completion":{"values":["a"],"total":1.5}}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}}},
		{`{"completion":{"values":["a"],"total":"3"}}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}}},
		{`{"completion":{"values":["a"],"total":null,"hasMore":null}}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}}},
		{`{"completion":{"values":["a"]},"resultType":"complete"}`, &mcpbridgev1.CompleteResponse{Values: []string{"a"}}},
	} {
		for _, r := range []Era{modernEra, era0618} {
			got, err := DecodeCompleteResult(json.RawMessage(tt.raw), r)
			if err != nil {
				t.Errorf("%s in %s: %v", tt.raw, r.version, err)
				continue
			}
			same(t, tt.raw, tt.want, got)
		}
	}
	for _, bad := range []string{
		`{"completion":[]}`, `{"completion":{"values":"a"}}`, `{"completion":{"values":[1]}}`,
		`{"completion":{"values":[],"hasMore":"no"}}`, `{"_meta":1}`, `[]`,
	} {
		if got, err := DecodeCompleteResult(json.RawMessage(bad), era1125); err == nil {
			t.Errorf("%s: %v, want an error", bad, got)
		}
	}
	if _, err := DecodeCompleteResult(json.RawMessage(`{"resultType":1}`), modernEra); err == nil {
		t.Error("resultType 1: no error")
	}
}

// TestDecodeReadResourceErrors: resources/read results of the wrong shape.
func TestDecodeReadResourceErrors(t *testing.T) {
	for _, bad := range []string{
		`{"contents":{}}`, `{"contents":[1]}`, `{"contents":[{"uri":1}]}`, `{"contents":[{"uri":"u","text":2}]}`,
		`{"contents":[{"uri":"u","blob":"%"}]}`, `{"contents":[{"uri":"u","mimeType":[]}]}`, `{"contents":[{"uri":"u","_meta":1}]}`,
		`{"contents":[],"_meta":"x"}`, `{"contents":[],"ttlMs":true}`,
	} {
		if got, err := DecodeReadResourceResult(json.RawMessage(bad), modernEra); err == nil {
			t.Errorf("%s: %v, want an error", bad, got)
		}
	}
	got, err := DecodeReadResourceResult(json.RawMessage(`{"contents":[{"uri":"u","mimeType":"text/plain","_meta":{"k":1}}]}`), era0618)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "contents without text or blob", &mcpbridgev1.ReadResourceResponse{Contents: []*mcpbridgev1.ResourceContents{{Uri: "u", MimeType: "text/plain", Meta: obj(t, `{"k":1}`)}}}, got)
}
