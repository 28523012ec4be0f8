package convert

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

var jsonSeeds = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.5e3`, `1E-7`, `9007199254740993`, `1e308`, `-1.7976931348623157e308`,
	`""`, `"plain"`, `"é✓"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u2028"`, `"a\\"`, `"\\\""`, `"\\\\x\"\\"`, `"\ud83d\ude00"`, `"x\u0000y"`,
	`[]`, `{}`, `[1,"a",null,[[]],{"k":{}}]`, `{"a":1,"b":[true,{"c":"d"}],"":""}`,
	` { "sp" : [ 1 , 2 ] } `, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}`,
}

// The hand-written JSON parser agrees with protojson, which it replaces on
// the hot path, on every value protojson accepts.
func TestParseJSONMatchesProtojson(t *testing.T) {
	for _, in := range jsonSeeds {
		want := &structpb.Value{}
		if err := protojson.Unmarshal([]byte(in), want); err != nil {
			t.Fatalf("protojson.Unmarshal(%s): %v", in, err)
		}
		got, err := Value(json.RawMessage(in))
		if err != nil {
			t.Errorf("Value(%s): %v", in, err)
			continue
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("Value(%s) (-protojson +got):\n%s", in, diff)
		}
	}
	// protojson refuses a lone surrogate; like encoding/json, this parser
	// reads it as U+FFFD, since children do send them.
	if v, err := Value(json.RawMessage(`"a\ud800b"`)); err != nil || v.GetStringValue() != "a\ufffdb" {
		t.Errorf("Value(lone surrogate) = %v, %v; want \"a\\ufffdb\"", v, err)
	}
	for _, in := range []string{`1e400`, `{"a":1e999}`, ``, `{`, `[1,]`, `"open`, `{"a"}`, `tru`, `"\x"`, `"\u12"`, `[1 2]`, `NaN`, `Inf`, `+1`, `0x1p3`, `01`, `1.`, `.5`, `1e`, `-`} {
		if v, err := Value(json.RawMessage(in)); err == nil {
			t.Errorf("Value(%s) = %v, want an error", in, v)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Value(json.RawMessage(in)) // never panics
		want := &structpb.Value{}
		if protojson.Unmarshal([]byte(in), want) != nil {
			return // protojson is stricter (duplicate keys, invalid UTF-8)
		}
		if err != nil {
			t.Fatalf("Value(%q): %v; protojson accepts it", in, err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Fatalf("Value(%q) (-protojson +got):\n%s", in, diff)
		}
		// What appendValue writes reads back the same.
		out, err := AppendValue(nil, got)
		if err != nil {
			t.Fatalf("AppendValue(%v): %v", got, err)
		}
		back := &structpb.Value{}
		if err := protojson.Unmarshal(out, back); err != nil || !cmp.Equal(got, back, protocmp.Transform()) {
			t.Fatalf("appendValue wrote %s, which reads back as %v, %v; want %v", out, back, err, got)
		}
	})
}

// appendValue writes compact JSON with sorted keys and numbers as
// encoding/json writes them, and refuses what JSON cannot hold.
func TestAppendValue(t *testing.T) {
	st, err := structpb.NewStruct(map[string]any{"b": 1.0, "a": []any{0.5, 1e21, 1e-7, -3.0, "é\"<"}, "c": map[string]any{}, "n": nil, "t": true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendStruct(nil, st)
	want := `{"a":[0.5,1e+21,1e-7,-3,"é\"<"],"b":1,"c":{},"n":null,"t":true}`
	if err != nil || string(got) != want {
		t.Errorf("appendStruct = %s, %v; want %s", got, err, want)
	}
	for _, v := range []*structpb.Value{{}, structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(1), {}}})} {
		if out, err := AppendValue(nil, v); err == nil {
			t.Errorf("AppendValue(%v) = %s, want an error for a Value without a kind", v, out)
		}
	}
}

// Fields are read as the child's era has them (bridge.proto "Eras:" tags).
func TestDecodeEras(t *testing.T) {
	const list = `{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[{"src":"data:,","theme":"dark","sizes":"48x48"}],"execution":{"taskSupport":"optional"},"future":1}],` +
		`"ttlMs":1500,"cacheScope":"private","resultType":"complete","nextCursor":"c2"}`
	schema := &structpb.Struct{Fields: map[string]*structpb.Value{"type": structpb.NewStringValue("object")}}
	icons := []*mcpbridgev1.Icon{{Src: "data:,", Theme: "dark", Sizes: []string{"48x48"}}}
	execution := &structpb.Struct{Fields: map[string]*structpb.Value{"taskSupport": structpb.NewStringValue("optional")}}
	for _, tt := range []struct {
		version string
		want    *mcpbridgev1.ListToolsResponse
	}{
		{protocol.Version20260728, &mcpbridgev1.ListToolsResponse{NextCursor: "c2", Tools: []*mcpbridgev1.Tool{{Name: "t", InputSchema: schema, Icons: icons}},
			Ttl: durationpb.New(1500 * time.Millisecond), CacheScope: mcpbridgev1.CacheScope_CACHE_SCOPE_PRIVATE}},
		{protocol.Version20251125, &mcpbridgev1.ListToolsResponse{NextCursor: "c2", Tools: []*mcpbridgev1.Tool{{Name: "t", InputSchema: schema, Icons: icons, Execution: execution}}}},
		{protocol.Version20250618, &mcpbridgev1.ListToolsResponse{NextCursor: "c2", Tools: []*mcpbridgev1.Tool{{Name: "t", InputSchema: schema}}}},
	} {
		got, err := DecodeListTools(json.RawMessage(list), EraOf(tt.version))
		if err != nil {
			t.Errorf("%s: DecodeListTools: %v", tt.version, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, protocmp.Transform()); diff != "" {
			t.Errorf("%s: DecodeListTools (-want +got):\n%s", tt.version, diff)
		}
	}
}

// Cache hints and result types of 2026-07-28 results, and results that do
// not fit a typed response.
func TestDecodeResults(t *testing.T) {
	modern, legacy := EraOf(protocol.Version20260728), EraOf(protocol.Version20251125)
	for _, tt := range []struct {
		name  string
		raw   string
		r     Era
		check func(*mcpbridgev1.ReadResourceResponse) bool
	}{
		{"negative ttl counts as 0", `{"contents":[],"ttlMs":-5,"cacheScope":"public"}`, modern, func(r *mcpbridgev1.ReadResourceResponse) bool {
			return r.Ttl != nil && r.GetTtl().AsDuration() == 0 && r.GetCacheScope() == mcpbridgev1.CacheScope_CACHE_SCOPE_PUBLIC
		}},
		{"no ttl: unset", `{"contents":[]}`, modern, func(r *mcpbridgev1.ReadResourceResponse) bool { return r.Ttl == nil }},
		{"unknown scope", `{"contents":[],"cacheScope":"galaxy"}`, modern, func(r *mcpbridgev1.ReadResourceResponse) bool {
			return r.GetCacheScope() == mcpbridgev1.CacheScope_CACHE_SCOPE_UNSPECIFIED
		}},
		{"legacy: 2026 members ignored", `{"contents":[{"uri":"u","text":"x"}],"ttlMs":5,"resultType":"input_required"}`, legacy, func(r *mcpbridgev1.ReadResourceResponse) bool {
			return r.Ttl == nil && r.InputRequired == nil && r.GetContents()[0].GetText() == "x"
		}},
		{"input_required with state only", `{"resultType":"input_required","requestState":"s","contents":null}`, modern, func(r *mcpbridgev1.ReadResourceResponse) bool {
			return r.GetInputRequired().GetRequestState() == "s" && r.GetInputRequired().InputRequests == nil && r.Ttl == nil
		}},
		{"blob and text", `{"contents":[{"uri":"a","blob":""},{"uri":"b","text":"","blob":"AA=="}]}`, modern, func(r *mcpbridgev1.ReadResourceResponse) bool {
			c := r.GetContents()
			_, blob := c[0].GetContents().(*mcpbridgev1.ResourceContents_Blob)
			_, text := c[1].GetContents().(*mcpbridgev1.ResourceContents_Text)
			return blob && text
		}},
	} {
		got, err := DecodeReadResourceResult(json.RawMessage(tt.raw), tt.r)
		if err != nil || !tt.check(got) {
			t.Errorf("%s: DecodeReadResourceResult(%s) = %v, %v", tt.name, tt.raw, got, err)
		}
	}
	for _, tt := range []struct {
		name string
		raw  string
		r    Era
	}{
		{"an extension's result type", `{"resultType":"task","task":{}}`, modern},
		{"content not an array", `{"content":{"type":"text"}}`, legacy},
		{"isError not a boolean", `{"content":[],"isError":"yes"}`, legacy},
		{"_meta not an object", `{"content":[],"_meta":[]}`, modern},
		{"not an object", `[]`, modern},
	} {
		if got, err := DecodeCallToolResult(json.RawMessage(tt.raw), tt.r); err == nil {
			t.Errorf("%s: DecodeCallToolResult(%s) = %v, want an error", tt.name, tt.raw, got)
		}
	}
	if _, err := DecodeCompleteResult(json.RawMessage(`{"resultType":"input_required"}`), modern); err == nil || !strings.Contains(err.Error(), "input_required") {
		t.Errorf("completion/complete answered input_required: error %v, want one naming it", err)
	}
}

// The Subscribe conversions: the listen filter a request asks for, and the
// acknowledgement and events a child sends back.
func TestSubscribeConversions(t *testing.T) {
	filter := ListenFilter(&mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a", `x"y`}})
	if want := `{"toolsListChanged":true,"resourceSubscriptions":["file:///a","x\"y"]}`; string(filter) != want {
		t.Errorf("ListenFilter = %s, want %s", filter, want)
	}
	if got := ListenFilter(&mcpbridgev1.SubscribeRequest{}); string(got) != `{}` {
		t.Errorf("ListenFilter(nothing) = %s, want {}", got)
	}
	ack := Acknowledged(json.RawMessage(`{"toolsListChanged":true,"promptsListChanged":"yes","resourceSubscriptions":["u"]}`))
	want := &mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourceSubscriptions: []string{"u"}}
	if diff := cmp.Diff(want, ack, protocmp.Transform()); diff != "" {
		t.Errorf("Acknowledged (-want +got):\n%s", diff)
	}
	ev := Event("notifications/resources/updated", json.RawMessage(`{"uri":"u","_meta":{"io.modelcontextprotocol/subscriptionId":7,"k":1}}`))
	if ev.GetResourceUpdated().GetUri() != "u" || len(ev.GetResourceUpdated().GetMeta().GetFields()) != 1 {
		t.Errorf("Event(resources/updated) = %v, want uri u and meta without the subscription id", ev)
	}
	for _, bad := range []struct{ method, params string }{
		{"notifications/resources/updated", `{}`},
		{"notifications/message", `{"level":"info"}`},
		{"notifications/other", `{}`},
	} {
		if ev := Event(bad.method, json.RawMessage(bad.params)); ev != nil {
			t.Errorf("Event(%s, %s) = %v, want nil", bad.method, bad.params, ev)
		}
	}
}
