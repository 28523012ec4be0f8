package convert

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// These tests build the params of child requests from typed requests, per
// era, and refuse what does not fit as a FieldError naming the field.

// wantField checks that err is a FieldError of field with reason, whose
// message starts with the field and holds words.
func wantField(tb testing.TB, what string, err error, field, reason, words string) {
	tb.Helper()
	var fe *FieldError
	if !errors.As(err, &fe) {
		tb.Errorf("%s: error %v, want a FieldError of %s", what, err, field)
		return
	}
	if fe.Field != field || fe.Reason != reason || !strings.HasPrefix(err.Error(), field) || !strings.Contains(err.Error(), words) {
		tb.Errorf("%s: %s %s %q, want %s %s naming %q", what, fe.Field, fe.Reason, err, field, reason, words)
	}
}

// badStruct is a Struct that JSON cannot hold: a Value without a kind.
func badStruct() *structpb.Struct {
	return &structpb.Struct{Fields: map[string]*structpb.Value{"x": {}}}
}

// TestCallToolParams: tools/call params in each era: arguments as sent
// (keys sorted), the caller's meta, the log level in a 2026 child's _meta
// only, MRTR fields for a 2026 child and refused for a legacy one.
func TestCallToolParams(t *testing.T) {
	req := &mcpbridgev1.CallToolRequest{Name: "get_weather", Arguments: obj(t, `{"location":"New York","units":{"t":"C"},"days":3}`), Meta: obj(t, `{"trace":"t1"}`)}
	for _, tt := range []struct {
		r     Era
		level mcpbridgev1.LoggingLevel
		want  string
	}{
		{era1125, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED, `{"name":"get_weather","arguments":{"days":3,"location":"New York","units":{"t":"C"}},"_meta":{"trace":"t1"}}`},
		{era1125, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG, `{"name":"get_weather","arguments":{"days":3,"location":"New York","units":{"t":"C"}},"_meta":{"trace":"t1"}}`},
		{modernEra, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING, `{"name":"get_weather","arguments":{"days":3,"location":"New York","units":{"t":"C"}},"_meta":{"trace":"t1","io.modelcontextprotocol/logLevel":"warning"}}`},
	} {
		got, err := CallToolParams(req, tt.level, tt.r)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s, level %v: %s, %v; want %s", tt.r.version, tt.level, got, err, tt.want)
		}
	}
	// Round trip: the arguments the child gets read back as the request's.
	got, _ := CallToolParams(req, 0, era1125)
	var p struct{ Arguments json.RawMessage }
	json.Unmarshal(got, &p)
	if back, err := Struct(p.Arguments); err != nil || !cmp.Equal(req.Arguments, back, protocmp.Transform()) {
		t.Errorf("arguments read back as %v, %v; want %v", back, err, req.Arguments)
	}
	// Nothing but the name: no arguments, no _meta.
	if got, err := CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n"}, 0, modernEra); err != nil || string(got) != `{"name":"n"}` {
		t.Errorf("name alone: %s, %v", got, err)
	}

	// MRTR: a 2026 child gets the client's answers, its state and
	// capabilities; a legacy child cannot take them.
	mrtr := &mcpbridgev1.CallToolRequest{Name: "n", InputResponses: obj(t, `{"confirm":{"action":"accept"}}`), RequestState: "opaque-1",
		ClientCapabilities: obj(t, `{"elicitation":{}}`)}
	got, err := CallToolParams(mrtr, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO, modernEra)
	if want := `{"name":"n","inputResponses":{"confirm":{"action":"accept"}},"requestState":"opaque-1","_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}`; err != nil || string(got) != want {
		t.Errorf("MRTR to 2026: %s, %v; want %s", got, err, want)
	}
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", InputResponses: obj(t, `{}`)}, 0, era1125)
	wantField(t, "input_responses to 2025-11-25", err, "input_responses", ReasonInvalidValue, "2025-11-25")
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", RequestState: "s"}, 0, era0618)
	wantField(t, "request_state to 2025-06-18", err, "request_state", ReasonInvalidValue, "2025-06-18")
	// Client capabilities mean nothing to a legacy child: left out.
	if got, err := CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", ClientCapabilities: obj(t, `{"x":{}}`)}, 0, era1125); err != nil || string(got) != `{"name":"n"}` {
		t.Errorf("client capabilities to 2025-11-25: %s, %v; want them left out", got, err)
	}

	// What does not fit.
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{}, 0, modernEra)
	wantField(t, "no name", err, "name", ReasonRequired, "required")
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n"}, mcpbridgev1.LoggingLevel(42), modernEra)
	wantField(t, "unknown level", err, "log_level", ReasonInvalidValue, "42")
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", Arguments: badStruct()}, 0, modernEra)
	wantField(t, "arguments JSON cannot hold", err, "arguments", ReasonInvalidValue, "arguments")
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", Meta: badStruct()}, 0, modernEra)
	wantField(t, "meta JSON cannot hold", err, "meta", ReasonInvalidValue, "meta")
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", InputResponses: badStruct()}, 0, modernEra)
	wantField(t, "input_responses JSON cannot hold", err, "input_responses", ReasonInvalidValue, "input_responses")
	_, err = CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", ClientCapabilities: badStruct()}, 0, modernEra)
	wantField(t, "client_capabilities JSON cannot hold", err, "client_capabilities", ReasonInvalidValue, "client_capabilities")
	// Keys of _meta the bridge sets are the caller's to leave alone.
	for _, tt := range []struct {
		key   string
		level mcpbridgev1.LoggingLevel
		r     Era
		caps  bool
	}{
		{protocol.MetaProgressToken, 0, era1125, false},
		{protocol.MetaProtocolVersion, 0, modernEra, false},
		{protocol.MetaLogLevel, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR, modernEra, false},
		{protocol.MetaClientCapabilities, 0, modernEra, true},
	} {
		req := &mcpbridgev1.CallToolRequest{Name: "n", Meta: obj(t, `{"`+tt.key+`":1}`)}
		if tt.caps {
			req.ClientCapabilities = obj(t, `{}`)
		}
		_, err := CallToolParams(req, tt.level, tt.r)
		wantField(t, "meta with "+tt.key, err, "meta", ReasonInvalidValue, tt.key)
	}
	// A key the bridge sets only when it sets it is the caller's otherwise.
	if got, err := CallToolParams(&mcpbridgev1.CallToolRequest{Name: "n", Meta: obj(t, `{"`+protocol.MetaLogLevel+`":"debug"}`)}, 0, modernEra); err != nil || !strings.Contains(string(got), `"debug"`) {
		t.Errorf("the caller's own logLevel without log_level: %s, %v", got, err)
	}
}

// TestOtherParams: resources/read, prompts/get, completion/complete and
// the list methods.
func TestOtherParams(t *testing.T) {
	got, err := ReadResourceParams(&mcpbridgev1.ReadResourceRequest{Uri: "file:///a b.txt", Meta: obj(t, `{"k":"v"}`), RequestState: "s"}, modernEra)
	if want := `{"uri":"file:///a b.txt","requestState":"s","_meta":{"k":"v"}}`; err != nil || string(got) != want {
		t.Errorf("ReadResourceParams = %s, %v; want %s", got, err, want)
	}
	_, err = ReadResourceParams(&mcpbridgev1.ReadResourceRequest{}, modernEra)
	wantField(t, "resources/read without uri", err, "uri", ReasonRequired, "required")
	_, err = ReadResourceParams(&mcpbridgev1.ReadResourceRequest{Uri: "u", RequestState: "s"}, era1125)
	wantField(t, "resources/read with request_state to 2025-11-25", err, "request_state", ReasonInvalidValue, "2026-07-28")

	got, err = GetPromptParams(&mcpbridgev1.GetPromptRequest{Name: "code_review", Arguments: map[string]string{"code": "def hello():\n\tprint(\"world\")", "a": "é"}}, era1125)
	if want := `{"name":"code_review","arguments":{"a":"é","code":"def hello():\n\tprint(\"world\")"}}`; err != nil || string(got) != want {
		t.Errorf("GetPromptParams = %s, %v; want %s", got, err, want)
	}
	_, err = GetPromptParams(&mcpbridgev1.GetPromptRequest{}, era1125)
	wantField(t, "prompts/get without name", err, "name", ReasonRequired, "required")

	for _, tt := range []struct {
		req  *mcpbridgev1.CompleteRequest
		want string
	}{
		{&mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "code_review"}, ArgumentName: "language", ArgumentValue: "py"},
			`{"ref":{"type":"ref/prompt","name":"code_review"},"argument":{"name":"language","value":"py"}}`},
		{&mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_ResourceTemplateUri{ResourceTemplateUri: "file:///{path}"}, ArgumentName: "path",
			ContextArguments: map[string]string{"root": "/", "b": "2"}, Meta: obj(t, `{"k":1}`)},
			`{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":""},"context":{"arguments":{"b":"2","root":"/"}},"_meta":{"k":1}}`},
	} {
		if got, err := CompleteParams(tt.req); err != nil || string(got) != tt.want {
			t.Errorf("CompleteParams = %s, %v; want %s", got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		req           *mcpbridgev1.CompleteRequest
		field, reason string
	}{
		{&mcpbridgev1.CompleteRequest{ArgumentName: "a"}, "ref", ReasonRequired},
		{&mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_PromptName{}, ArgumentName: "a"}, "prompt_name", ReasonRequired},
		{&mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_ResourceTemplateUri{}, ArgumentName: "a"}, "resource_template_uri", ReasonRequired},
		{&mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "p"}}, "argument_name", ReasonRequired},
		{&mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "p"}, ArgumentName: "a", Meta: obj(t, `{"progressToken":1}`)}, "meta", ReasonInvalidValue},
	} {
		_, err := CompleteParams(tt.req)
		wantField(t, "CompleteParams", err, tt.field, tt.reason, "")
	}

	for _, tt := range []struct {
		cursor string
		meta   *structpb.Struct
		want   string
	}{
		{"", nil, ""}, // no params at all
		{"", &structpb.Struct{}, ""},
		{"c2", nil, `{"cursor":"c2"}`},
		{"c2", obj(t, `{"k":[1,"x"]}`), `{"cursor":"c2","_meta":{"k":[1,"x"]}}`},
	} {
		if got, err := ListParams(tt.cursor, tt.meta); err != nil || string(got) != tt.want {
			t.Errorf("ListParams(%q, %v) = %s, %v; want %s", tt.cursor, tt.meta, got, err, tt.want)
		}
	}
	_, err = ListParams("", obj(t, `{"progressToken":"p"}`))
	wantField(t, "list with a progress token", err, "meta", ReasonInvalidValue, "progressToken")
	_, err = ListParams("", badStruct())
	wantField(t, "list with meta JSON cannot hold", err, "meta", ReasonInvalidValue, "meta")
}

// TestRawParams: Call's params_json travels as sent (compacted), and only
// what the bridge owns is refused; CallStream's log_level puts a logLevel
// in a 2026 child's _meta, beside the caller's own.
func TestRawParams(t *testing.T) {
	params, meta, err := RawParams(` { "name" : "echo", "_meta" : { "trace" : 1 } } `)
	if err != nil || string(params) != `{"name":"echo","_meta":{"trace":1}}` || string(meta) != `{"trace":1}` {
		t.Errorf("RawParams = %s, %s, %v", params, meta, err)
	}
	if params, meta, err := RawParams(""); params != nil || meta != nil || err != nil {
		t.Errorf("RawParams(\"\") = %s, %s, %v; want nothing", params, meta, err)
	}
	for _, tt := range []struct {
		text, reason, words string
	}{
		{`{"a":`, ReasonInvalidJSON, "not valid JSON"},
		{`[1]`, ReasonWrongJSONType, "an array"},
		{`"s"`, ReasonWrongJSONType, "a string"},
		{`{"_meta":[]}`, ReasonWrongJSONType, "._meta must be a JSON object, not an array"},
		{`{"_meta":{"progressToken":7}}`, ReasonInvalidValue, "progressToken"},
	} {
		_, _, err := RawParams(tt.text)
		wantField(t, "RawParams("+tt.text+")", err, "params_json", tt.reason, tt.words)
	}

	params, extra, err := CallParams(`{"name":"echo","_meta":{"trace":1}}`, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_NOTICE, modernEra)
	if err != nil || string(params) != `{"name":"echo","_meta":{"trace":1}}` || string(extra) != `{"io.modelcontextprotocol/logLevel":"notice"}` {
		t.Errorf("CallParams to 2026 = %s, %s, %v", params, extra, err)
	}
	if _, extra, err := CallParams(`{}`, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_NOTICE, era1125); err != nil || extra != nil {
		t.Errorf("CallParams to 2025-11-25 = %s, %v; want no _meta added", extra, err)
	}
	_, _, err = CallParams(`{"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}`, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR, modernEra)
	wantField(t, "CallParams with both levels", err, "params_json", ReasonInvalidValue, "logLevel")
	_, _, err = CallParams(`{}`, mcpbridgev1.LoggingLevel(9), modernEra)
	wantField(t, "CallParams with an unknown level", err, "log_level", ReasonInvalidValue, "9")
	_, _, err = CallParams(`[`, 0, modernEra)
	wantField(t, "CallParams of bad JSON", err, "params_json", ReasonInvalidJSON, "")
}

// TestFieldErrors: a FieldError's message starts with its field, it
// unwraps to its cause, and a value's error inside a field becomes that
// field's unless it names a field of its own.
func TestFieldErrors(t *testing.T) {
	err := FieldErrorf("error.code", ReasonInvalidValue, " %d is reserved", -32000)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "error.code" || fe.Reason != ReasonInvalidValue || err.Error() != "error.code -32000 is reserved" {
		t.Errorf("FieldErrorf = %#v %q", err, err)
	}
	if errors.Unwrap(err) == nil || errors.Unwrap(err).Error() != err.Error() {
		t.Errorf("Unwrap = %v", errors.Unwrap(err))
	}
	cause := errors.New("not a JSON object")
	under := underField("arguments", cause)
	if !errors.As(under, &fe) || fe.Field != "arguments" || fe.Reason != ReasonInvalidValue || under.Error() != "arguments: not a JSON object" || !errors.Is(under, cause) {
		t.Errorf("underField = %#v %q", under, under)
	}
	if got := underField("meta", err); got != err {
		t.Errorf("underField of a FieldError = %v, want it unchanged", got)
	}
	for v, want := range map[string]string{
		"": "nothing", `{}`: "an object", `[1]`: "an array", `"s"`: "a string", `true`: "a boolean", `false`: "a boolean",
		`null`: "null", `-1`: "a number", `2.5e3`: "a number",
	} {
		if got := JSONKind(json.RawMessage(v)); got != want {
			t.Errorf("JSONKind(%s) = %q, want %q", v, got, want)
		}
	}
}
