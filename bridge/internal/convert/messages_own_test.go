package convert

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// TestLevels: every MCP level name is a LoggingLevel and back, the enum's
// names agreeing with MCP's; anything else is UNSPECIFIED and "".
func TestLevels(t *testing.T) {
	for i, name := range protocol.LogLevels {
		l := Level(name)
		if int(l) != i+1 || LevelName(l) != name || !strings.HasSuffix(l.String(), strings.ToUpper(name)) {
			t.Errorf("Level(%q) = %v (%d), LevelName of it %q", name, l, l, LevelName(l))
		}
	}
	for _, name := range []string{"", "Info", "warn", "fatal"} {
		if l := Level(name); l != mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED {
			t.Errorf("Level(%q) = %v, want UNSPECIFIED", name, l)
		}
	}
	for _, l := range []mcpbridgev1.LoggingLevel{0, -1, mcpbridgev1.LoggingLevel(len(protocol.LogLevels) + 1)} {
		if name := LevelName(l); name != "" {
			t.Errorf("LevelName(%d) = %q, want \"\"", l, name)
		}
	}
}

// TestLog: a notifications/message's params as a LogMessage; members of
// the wrong type are left out, not the message.
func TestLog(t *testing.T) {
	for _, tt := range []struct {
		params string
		want   *mcpbridgev1.LogMessage
	}{
		{`{"level":"error","logger":"database","data":{"error":"Connection failed","details":{"host":"localhost","port":5432}}}`,
			&mcpbridgev1.LogMessage{Level: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR, Logger: "database", Data: val(t, `{"error":"Connection failed","details":{"host":"localhost","port":5432}}`)}},
		{`{"level":"info","data":"plain text"}`, &mcpbridgev1.LogMessage{Level: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO, Data: val(t, `"plain text"`)}},
		{`{"level":"loud","logger":7,"data":[1,null]}`, &mcpbridgev1.LogMessage{Data: val(t, `[1,null]`)}},
		{`{"level":3,"logger":null,"data":null}`, &mcpbridgev1.LogMessage{}},
		{`[]`, &mcpbridgev1.LogMessage{}},
	} {
		same(t, "Log("+tt.params+")", tt.want, Log(json.RawMessage(tt.params)))
	}
}

// TestProgress: a child's progress as a stream's message.
func TestProgress(t *testing.T) {
	total := 100.0
	got := Progress(stdio.Progress{Progress: 50, Total: &total, Message: "Reticulating splines...", Raw: json.RawMessage(`{}`)})
	same(t, "Progress", &mcpbridgev1.Progress{Progress: 50, Total: &total, Message: "Reticulating splines..."}, got)
	if got := Progress(stdio.Progress{Progress: 0.5}); got.Total != nil || got.Progress != 0.5 {
		t.Errorf("Progress without total = %v", got)
	}
}

// TestEvents: every change notification a Subscribe stream carries, with
// its _meta but the bridge's subscription id.
func TestEvents(t *testing.T) {
	meta := `{"` + protocol.MetaSubscriptionID + `":"s1","k":"v"}`
	for method, event := range map[string]func(*mcpbridgev1.SubscribeResponse) *mcpbridgev1.ListChanged{
		"notifications/tools/list_changed":     (*mcpbridgev1.SubscribeResponse).GetToolsListChanged,
		"notifications/prompts/list_changed":   (*mcpbridgev1.SubscribeResponse).GetPromptsListChanged,
		"notifications/resources/list_changed": (*mcpbridgev1.SubscribeResponse).GetResourcesListChanged,
	} {
		ev := Event(method, json.RawMessage(`{"_meta":`+meta+`}`))
		lc := event(ev)
		if lc == nil || !cmp.Equal(lc.Meta, obj(t, `{"k":"v"}`), protocmp.Transform()) {
			t.Errorf("Event(%s) = %v, want its list_changed with meta {k:v}", method, ev)
		}
		// Without params, or with the subscription id alone: no meta.
		for _, params := range []string{``, `{}`, `{"_meta":{"` + protocol.MetaSubscriptionID + `":1}}`} {
			if ev := Event(method, json.RawMessage(params)); event(ev) == nil || event(ev).Meta != nil {
				t.Errorf("Event(%s, %s) = %v, want it without meta", method, params, ev)
			}
		}
	}
	ev := Event("notifications/resources/updated", json.RawMessage(`{"uri":"file:///project/src/main.rs","_meta":{"k":1}}`))
	same(t, "resources/updated", &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ResourceUpdated{ResourceUpdated: &mcpbridgev1.ResourceUpdated{
		Uri: "file:///project/src/main.rs", Meta: obj(t, `{"k":1}`)}}}, ev)
	for _, params := range []string{`{"uri":""}`, `{"uri":5}`} {
		if ev := Event("notifications/resources/updated", json.RawMessage(params)); ev != nil {
			t.Errorf("resources/updated %s = %v, want nil", params, ev)
		}
	}
}

// TestAcknowledged: what a 2026 child granted; what is not a boolean or a
// list of strings is not granted.
func TestAcknowledged(t *testing.T) {
	got := Acknowledged(json.RawMessage(`{"toolsListChanged":false,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["a",1]}`))
	if !got.PromptsListChanged || !got.ResourcesListChanged || got.ToolsListChanged {
		t.Errorf("Acknowledged = %v", got)
	}
	if got := Acknowledged(json.RawMessage(`null`)); got == nil || got.ToolsListChanged || got.ResourceSubscriptions != nil {
		t.Errorf("Acknowledged(null) = %v, want nothing granted", got)
	}
}

// TestStructRoundTrips: JSON → Struct or Value → JSON gives the JSON back,
// compact with keys sorted, for what MCP results hold (schemas,
// annotations, _meta); and agrees with protojson both ways.
func TestStructRoundTrips(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","properties":{"location":{"type":"string","description":"City name or zip code"}},"required":["location"],"additionalProperties":false}`,
		`{"audience":["user","assistant"],"priority":0.8,"lastModified":"2025-01-12T15:00:58Z"}`,
		`{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"},"n":-0.000001,"big":1e21,"i":9007199254740992,"esc":"a\"b\\c\n\u0001\u2028é😀","nested":[[],{},[{}],null,true,false]}`,
		`{}`,
	} {
		st, err := Struct(json.RawMessage(in))
		if err != nil {
			t.Errorf("Struct(%s): %v", in, err)
			continue
		}
		want := &structpb.Struct{}
		if err := protojson.Unmarshal([]byte(in), want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, st, protocmp.Transform()); diff != "" {
			t.Errorf("Struct(%s) (-protojson +got):\n%s", in, diff)
		}
		out, err := AppendStruct(nil, st)
		if err != nil {
			t.Errorf("AppendStruct(%s): %v", in, err)
			continue
		}
		// What encoding/json writes of the same JSON: keys sorted,
		// numbers as Go formats float64s.
		var decoded any
		if err := json.Unmarshal([]byte(in), &decoded); err != nil {
			t.Fatal(err)
		}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		e.Encode(decoded)
		// (encoding/json escapes U+2028 for JavaScript; JSON needs no
		// escape there, and the writer has none.)
		wantJSON := strings.ReplaceAll(strings.TrimSuffix(enc.String(), "\n"), `\u2028`, "\u2028")
		if string(out) != wantJSON {
			t.Errorf("Struct(%s) wrote back\n%s\nwant\n%s", in, out, wantJSON)
		}
		// The same again: the writer is deterministic.
		again, _ := AppendStruct([]byte("prefix:"), st)
		if string(again) != "prefix:"+string(out) {
			t.Errorf("AppendStruct appended %s, want prefix:%s", again, out)
		}
	}
	// Not objects, and objects that are not JSON.
	for _, in := range []string{``, `[]`, `"s"`, `null`, `{"a":1} x`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":1e999}`, `  `} {
		if st, err := Struct(json.RawMessage(in)); err == nil {
			t.Errorf("Struct(%s) = %v, want an error", in, st)
		}
	}
	if v, err := Value(json.RawMessage(` [1, "x"] `)); err != nil || len(v.GetListValue().GetValues()) != 2 {
		t.Errorf("Value with spaces = %v, %v", v, err)
	}
	for _, in := range []string{`1 2`, `"\ud800\u"`, `[` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10002)} {
		if v, err := Value(json.RawMessage(in)); err == nil {
			t.Errorf("Value(%.40s) = %v, want an error", in, v)
		}
	}
	// A nil Struct is an empty object; a Struct whose value has no kind
	// is no JSON.
	if out, err := AppendStruct(nil, nil); err != nil || string(out) != `{}` {
		t.Errorf("AppendStruct(nil) = %s, %v", out, err)
	}
	if out, err := AppendStruct(nil, badStruct()); err == nil {
		t.Errorf("AppendStruct of a Value without a kind = %s, want an error", out)
	}
}
