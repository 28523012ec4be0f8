package apiwire

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// ctCodec is the codec Codec installs.
var ctCodec = utf8Codec{encoding.GetCodecV2("proto")}

// ctMarshal marshals m with the server's codec.
func ctMarshal(tb testing.TB, m any) ([]byte, error) {
	tb.Helper()
	data, err := ctCodec.Marshal(m)
	if err != nil {
		return nil, err
	}
	defer data.Free()
	return data.Materialize(), nil
}

// checkCallToolCodec holds the server codec's bytes of r to what a client parses
// from proto.Marshal's: the same message, or the same failure.
func checkCallToolCodec(t *testing.T, name string, r *mcpbridgev1.CallToolResponse) {
	t.Helper()
	want, werr := proto.Marshal(r)
	got, err := ctMarshal(t, r)
	if (werr != nil) != (err != nil) {
		t.Fatalf("%s: proto.Marshal error %v, the codec's %v", name, werr, err)
	}
	if werr != nil {
		return
	}
	var parsedWant, parsedGot mcpbridgev1.CallToolResponse
	if err := proto.Unmarshal(want, &parsedWant); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(got, &parsedGot); err != nil {
		t.Fatalf("%s: the codec's bytes do not parse: %v", name, err)
	}
	// proto.Equal first: cmp takes minutes over the deep case.
	if !proto.Equal(&parsedWant, &parsedGot) {
		t.Errorf("%s: what a client reads (-proto.Marshal +codec):\n%s", name, cmp.Diff(&parsedWant, &parsedGot, protocmp.Transform()))
	}
	if len(got) != len(want) {
		t.Errorf("%s: the codec wrote %d bytes, proto.Marshal %d", name, len(got), len(want))
	}
}

func ctValue(tb testing.TB, j string) *structpb.Value {
	tb.Helper()
	v, err := convert.Value(json.RawMessage(j))
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func ctStruct(tb testing.TB, j string) *structpb.Struct {
	tb.Helper()
	s, err := convert.Struct(json.RawMessage(j))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// ctWithUnknown sets raw as m's unknown fields and returns m.
func ctWithUnknown[M proto.Message](m M, raw []byte) M {
	m.ProtoReflect().SetUnknown(raw)
	return m
}

// The server's codec writes every CallToolResponse as a client would read
// it from proto.Marshal: ordinary results, the odd corners of Struct and
// Value that no JSON gives (nil members, a Value with no kind, a NullValue
// out of range, unknown fields at every level), the other fields around
// them, and results large enough for pooled buffers.
func TestCallToolCodec(t *testing.T) {
	text := func(s string) *mcpbridgev1.Content {
		return &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: s}}}
	}
	unknown := protowire.AppendString(protowire.AppendTag(nil, 999, protowire.BytesType), "extra")
	big := strings.Repeat("0123456789", 20_000)
	cases := map[string]*mcpbridgev1.CallToolResponse{
		"echo": {
			Content:           []*mcpbridgev1.Content{text("hello")},
			StructuredContent: ctValue(t, `{"message":"hello"}`),
			Meta:              ctStruct(t, `{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1"}}`),
		},
		"meta only":       {Meta: ctStruct(t, `{"k":{"n":1.5,"l":[{},[],null,true,false,"é"]}}`)},
		"structured only": {StructuredContent: ctValue(t, `[null,false,true,0,-0.5e3,1e308,"\u00e9\ud83d\ude00"]`)},
		"scalar":          {StructuredContent: ctValue(t, `"just a string"`), IsError: true},
		"empty":           {StructuredContent: ctValue(t, `{}`), Meta: ctStruct(t, `{}`)},
		"everything": {
			Content:           []*mcpbridgev1.Content{text("a"), nil, text("")},
			StructuredContent: ctValue(t, `{"deep":{"a":{"b":[[],{},""]}},"n":-1}`),
			IsError:           true,
			Meta:              ctStruct(t, `{"a/b":1}`),
			InputRequired:     &mcpbridgev1.InputRequired{RequestState: "s", Meta: ctStruct(t, `{"x":"y"}`)},
		},
		"no kind":        {StructuredContent: &structpb.Value{}},
		"nil kinds":      {StructuredContent: &structpb.Value{Kind: &structpb.Value_StructValue{}}, Meta: &structpb.Struct{Fields: map[string]*structpb.Value{"nil": nil, "": {}}}},
		"nil list":       {StructuredContent: &structpb.Value{Kind: &structpb.Value_ListValue{}}},
		"nil elements":   {StructuredContent: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{nil, {}, structpb.NewNullValue()}})},
		"null in range":  {StructuredContent: &structpb.Value{Kind: &structpb.Value_NullValue{NullValue: 7}}},
		"negative null":  {StructuredContent: &structpb.Value{Kind: &structpb.Value_NullValue{NullValue: -1}}},
		"special floats": {StructuredContent: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(math.NaN()), structpb.NewNumberValue(math.Inf(-1)), structpb.NewNumberValue(math.Copysign(0, -1))}})},
		"unknown fields": ctWithUnknown(&mcpbridgev1.CallToolResponse{
			StructuredContent: ctWithUnknown(structpb.NewListValue(ctWithUnknown(&structpb.ListValue{Values: []*structpb.Value{ctWithUnknown(structpb.NewBoolValue(true), unknown)}}, unknown)), unknown),
			Meta:              ctWithUnknown(&structpb.Struct{Fields: map[string]*structpb.Value{"k": ctWithUnknown(structpb.NewStringValue("v"), unknown)}}, unknown),
		}, unknown),
		"large content":    {Content: []*mcpbridgev1.Content{text(big)}, Meta: ctStruct(t, `{"k":"v"}`)},
		"large structured": {StructuredContent: ctValue(t, `{"s":"`+big+`","l":[`+strings.Repeat(`{"k":[1,"x",{"y":null}]},`, 5000)+`0]}`)},
		"deep":             {StructuredContent: ctValue(t, strings.Repeat(`{"a":[`, 1000)+`"bottom"`+strings.Repeat(`]}`, 1000))},
		"invalid text":     {Content: []*mcpbridgev1.Content{text("\xff")}, Meta: ctStruct(t, `{}`)},
		"invalid string":   {StructuredContent: structpb.NewStringValue("bad \xff")},
		"invalid key":      {Meta: &structpb.Struct{Fields: map[string]*structpb.Value{"\xfe": structpb.NewNullValue()}}},
		"invalid deep":     {StructuredContent: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("ok"), structpb.NewStringValue("\xc3")}})},
	}
	for name, r := range cases {
		for range 2 { // the second time in buffers that held the first
			checkCallToolCodec(t, name, r)
		}
	}
}

// What the codec refuses it refuses as proto.Marshal does, with
// protobuf-go's own error.
func TestCallToolCodecErrors(t *testing.T) {
	r := &mcpbridgev1.CallToolResponse{StructuredContent: structpb.NewStringValue("bad \xff")}
	_, want := proto.Marshal(r)
	_, err := ctMarshal(t, r)
	if want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("codec error %v, want proto.Marshal's %v", err, want)
	}
}

// The fields the codec writes are CallToolResponse's, all of them: a field
// added to bridge.proto fails this until calltool.go writes it.
func TestCallToolFields(t *testing.T) {
	fields := (&mcpbridgev1.CallToolResponse{}).ProtoReflect().Descriptor().Fields()
	want := map[protoreflect.Name]protowire.Number{
		"content":            callToolContent,
		"structured_content": callToolStructuredContent,
		"is_error":           callToolIsError,
		"meta":               callToolMeta,
		"input_required":     callToolInputRequired,
	}
	if fields.Len() != len(want) {
		t.Errorf("CallToolResponse has %d fields; marshalCallTool writes %d", fields.Len(), len(want))
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if n, ok := want[fd.Name()]; !ok || n != fd.Number() {
			t.Errorf("field %s = %d is not the one marshalCallTool writes (%d)", fd.Name(), fd.Number(), n)
		}
	}
	v := (&structpb.Value{}).ProtoReflect().Descriptor().Fields()
	for name, num := range map[protoreflect.Name]protowire.Number{
		"null_value": valueNull, "number_value": valueNumber, "string_value": valueString,
		"bool_value": valueBool, "struct_value": valueStruct, "list_value": valueList,
	} {
		if fd := v.ByName(name); fd == nil || fd.Number() != num {
			t.Errorf("google.protobuf.Value.%s is not field %d", name, num)
		}
	}
	if v.Len() != 6 {
		t.Errorf("google.protobuf.Value has %d fields, want 6", v.Len())
	}
}

// valueWireCases are JSON values that convert.Value converts, and some it
// refuses.
var valueWireCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.5`, `-12e-3`, `1e308`, `""`, `"plain"`,
	`"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800"`,
	`{}`, `[]`, `{"a":1}`, `{"a":{"b":{"c":[1,[2,[3]]]}}}`, `[{},[],{"":""}]`,
	` { "k" : [ 1 , "x" , null ] , "z" : { } } `,
	`{"dup":1,"dup":{"x":2}}`,
	`{"long":"` + strings.Repeat("0123456789", 30) + `"}`,
	`[` + strings.Repeat(`{"k":[1,2,3]},`, 40) + `0]`,
	`{` + strings.Repeat(`"k":{`, 200) + `"z":1` + strings.Repeat(`}`, 200) + `}`,
	// Refused by convert.Value.
	``, `{`, `[1,]`, `1e999`,
	// Not valid UTF-8: Value keeps it, and marshalling fails.
	"\"\xff\"", "{\"\xfe\":1}",
}

// What a client parses from the codec's structured_content and meta is
// the Value and Struct a JSON text converts to: the codec and proto.Marshal
// agree on every value convert.Value makes, failures included.
func TestValueWire(t *testing.T) {
	for _, c := range valueWireCases {
		checkValueWire(t, c)
	}
}

func FuzzValueWire(f *testing.F) {
	for _, c := range valueWireCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) { checkValueWire(t, c) })
}

func checkValueWire(t *testing.T, c string) {
	t.Helper()
	v, err := convert.Value(json.RawMessage(c))
	if err != nil {
		return
	}
	r := &mcpbridgev1.CallToolResponse{StructuredContent: v}
	if s := v.GetStructValue(); s != nil {
		r.Meta = s
	}
	checkCallToolCodec(t, c, r)
}

// The codec writes the message it is handed, whatever happened to it after
// it was made: an interceptor that redacts deep inside StructuredContent,
// replaces Meta or empties a list is what the client reads.
func TestCallToolCodecAfterChanges(t *testing.T) {
	r, err := convert.DecodeCallToolResult(json.RawMessage(
		`{"content":[],"structuredContent":{"user":{"name":"a","secret":"s"},"l":[1,2]},"_meta":{"k":"v"}}`),
		convert.EraOf(protocol.Version20260728))
	if err != nil {
		t.Fatal(err)
	}
	checkCallToolCodec(t, "as decoded", r)
	sc := r.GetStructuredContent().GetStructValue().GetFields()
	sc["user"].GetStructValue().GetFields()["secret"] = structpb.NewStringValue("[redacted]")
	sc["l"].GetListValue().Values = nil
	r.Meta.Fields["added"] = structpb.NewBoolValue(true)
	b, err := ctMarshal(t, r)
	if err != nil {
		t.Fatal(err)
	}
	var got mcpbridgev1.CallToolResponse
	if err := proto.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(r, &got) {
		t.Errorf("the client reads %v, want the changed message %v", &got, r)
	}
	if s := got.GetStructuredContent().GetStructValue().GetFields()["user"].GetStructValue().GetFields()["secret"].GetStringValue(); s != "[redacted]" {
		t.Errorf("the client reads secret %q, want the redaction", s)
	}
}

// Other messages are the proto codec's.
func TestCodecOtherMessages(t *testing.T) {
	for _, m := range []proto.Message{
		&mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: "x"}}}}},
		&mcpbridgev1.ListToolsResponse{Meta: ctStruct(t, `{"a":[1]}`)},
	} {
		got, err := ctMarshal(t, m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if string(got) != string(want) {
			t.Errorf("%T: %x, want %x", m, got, want)
		}
	}
}

// BenchmarkCallToolResultMarshal decodes the demo echo's result and turns
// the response into the bytes the server sends, as the bridge does for a
// gRPC client: through the proto codec (path=proto, protobuf-go's
// reflection over the Struct and Value) and through the server's codec
// (path=codec).
//
//	go test -run '^$' -bench CallToolResultMarshal -benchmem ./bridge/internal/apiwire/
func BenchmarkCallToolResultMarshal(b *testing.B) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"structuredContent":{"message":"hello"},` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpbridge-demo","version":"0.1.0"}}}`)
	benchmarkCallToolMarshal(b, raw)
}

// BenchmarkCallToolLargeStructured is BenchmarkCallToolResultMarshal for a
// structuredContent of about 1 MiB: 5,000 records of a few members.
func BenchmarkCallToolLargeStructured(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"content":[{"type":"text","text":"records"}],"structuredContent":{"records":[`)
	for i := range 5000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"id":12345,"name":"record name here","tags":["a","b","c"],"score":0.75,"ok":true,"note":"` + strings.Repeat("x", 100) + `"}`)
	}
	sb.WriteString(`]},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpbridge-demo","version":"0.1.0"}}}`)
	benchmarkCallToolMarshal(b, json.RawMessage(sb.String()))
}

func benchmarkCallToolMarshal(b *testing.B, raw json.RawMessage) {
	era := convert.EraOf(protocol.Version20260728)
	for _, p := range []struct {
		name  string
		codec encoding.CodecV2
	}{{"proto", encoding.GetCodecV2("proto")}, {"codec", ctCodec}} {
		b.Run("path="+p.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				resp, err := convert.DecodeCallToolResult(raw, era)
				if err != nil {
					b.Fatal(err)
				}
				data, err := p.codec.Marshal(resp)
				if err != nil {
					b.Fatal(err)
				}
				data.Free()
			}
		})
	}
}
