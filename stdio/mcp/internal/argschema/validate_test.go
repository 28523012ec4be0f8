package argschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		text         string
		isInt, exact bool
		neg          bool
		mag          uint64
	}{
		{"0", true, true, false, 0},
		{"-0", true, true, false, 0},
		{"0.000e-99999999999", true, true, false, 0},
		{"7", true, true, false, 7},
		{"-7", true, true, true, 7},
		{"1.0", true, true, false, 1},
		{"1.50e1", true, true, false, 15},
		{"150e-1", true, true, false, 15},
		{"1.5", false, false, false, 0},
		{"1e-1", false, false, false, 0},
		{"9007199254740993", true, true, false, 9007199254740993},
		{"-9223372036854775808", true, true, true, 1 << 63},
		{"18446744073709551615", true, true, false, math.MaxUint64},
		{"18446744073709551616", true, false, false, 0},
		{"1e19", true, true, false, 1e19},
		{"1e20", true, false, false, 0},
		{"1e999999999999", true, false, false, 0},
		{"1.0000000000000000000000001", false, false, false, 0},
	} {
		n := parseNumber([]byte(tc.text))
		if n.isInt != tc.isInt || n.exact != tc.exact || (n.exact && (n.neg != tc.neg || n.mag != tc.mag)) {
			t.Errorf("parseNumber(%s) = %+v, want isInt %v exact %v neg %v mag %d", tc.text, n, tc.isInt, tc.exact, tc.neg, tc.mag)
		}
	}
}

// number.cmp orders an exact integer against a float64 bound exactly,
// where converting the integer to float64 would tie.
func TestNumberCmp(t *testing.T) {
	for _, tc := range []struct {
		text  string
		bound float64
		want  int
	}{
		{"9007199254740993", 1 << 53, 1}, // 2^53+1 rounds to 2^53 as a float64
		{"9007199254740991", 1 << 53, -1},
		{"-9007199254740993", -(1 << 53), -1},
		{"9223372036854775807", 1 << 63, -1},
		{"18446744073709551615", 1 << 64, -1},
		{"-9223372036854775808", -(1 << 63), 0},
		{"5", 5.5, -1},
		{"6", 5.5, 1},
		{"-6", -5.5, -1},
		{"0", math.Copysign(0, -1), 0},
		{"3", math.Inf(1), -1},
		{"3", math.Inf(-1), 1},
	} {
		n := parseNumber([]byte(tc.text))
		if got := n.cmp(tc.bound); got != tc.want {
			t.Errorf("cmp(%s, %v) = %d, want %d", tc.text, tc.bound, got, tc.want)
		}
	}
}

// The bound given in a tag is compared with the exact integer sent.
func TestIntegerBoundsExact(t *testing.T) {
	ts, err := Infer(reflect.TypeFor[struct {
		N int64 `json:"n" mcp:"maximum=9007199254740992"`
	}]())
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Plan.validate([]byte(`{"n":9007199254740992}`)); err != nil {
		t.Errorf("2^53 against maximum 2^53: %v", err)
	}
	if err := ts.Plan.validate([]byte(`{"n":9007199254740993}`)); err == nil {
		t.Error("2^53+1 against maximum 2^53 passed; as a float64 it would")
	}
}

type fuzzAddress struct {
	Street string `json:"street,omitempty" mcp:"maxLength=20"`
	Zip    string `json:"zip" mcp:"pattern=^[0-9]{5}$"`
}

// fuzzArgs holds a field of every kind the typed decoder handles.
type fuzzArgs struct {
	Name    string             `json:"name" mcp:"minLength=1,maxLength=8"`
	Units   string             `json:"units,omitempty" mcp:"enum=celsius|fahrenheit,default=celsius"`
	Steps   int                `json:"steps" mcp:"minimum=1,maximum=10"`
	Ratio   float64            `json:"ratio,omitempty" mcp:"exclusiveMinimum=0,exclusiveMaximum=1"`
	Big     int64              `json:"big,omitempty" mcp:"minimum=-9223372036854775808,exclusiveMaximum=9223372036854775808"`
	Small   int8               `json:"small,omitempty"`
	Count   *uint16            `json:"count,omitempty" mcp:"enum=1|2|3"`
	Tags    []string           `json:"tags,omitempty" mcp:"maxItems=3,minLength=1"`
	Pair    [2]bool            `json:"pair,omitzero"`
	Address *fuzzAddress       `json:"address,omitempty"`
	Scores  map[string]float64 `json:"scores,omitempty" mcp:"minimum=0"`
	Flag    *bool              `json:"flag,omitempty"`
}

var fuzzSeeds = []string{
	`{"name":"ada","steps":3}`,
	`{"name":"ada","steps":3,"units":"fahrenheit","ratio":0.5,"big":9007199254740993,"small":-128,"count":2,` +
		`"tags":["a","b"],"pair":[true,false],"address":{"zip":"12345","street":"Main"},"scores":{"x":1.5},"flag":null}`,
	`{"name":"","steps":11,"units":"kelvin","extra":1}`,
	`{"name":"ada","steps":1.0e1,"big":-9223372036854775808,"count":null,"tags":null,"address":null}`,
	`{"name":"ada","steps":"3"}`,
	`{"name":"ada","steps":3,"big":9223372036854775808}`,
	`{"name":"ada","steps":3,"ratio":1e-400}`,
	`{"name":"ada","steps":3,"scores":{"a":1,"a":2}}`,
	`{"name":"\u00e9t\u00e9","steps":3,"address":{"zip":"1234\u0035"}}`,
	`{"name":"ada","steps":3,"pair":[true]}`,
}

// FuzzTypedArguments checks the typed decoder on arbitrary JSON objects:
// it never panics; what it accepts re-validates clean once marshalled,
// decodes integers exactly and round-trips; and it accepts exactly what
// jsonschema-go's Resolved.Validate accepts on the same JSON decoded into
// map[string]any, the oracle, except where the oracle cannot see the
// difference (a number float64 cannot hold exactly, a repeated member
// name: then ours must refuse).
func FuzzTypedArguments(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	ts, err := Infer(reflect.TypeFor[fuzzArgs]())
	if err != nil {
		f.Fatal(err)
	}
	oracle, err := ts.JSON.Resolve(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		if !json.Valid(input) || !bytes.HasPrefix(bytes.TrimLeft(input, " \t\r\n"), []byte("{")) {
			return // the runtime refuses these before any tool runs
		}
		var v fuzzArgs
		err := ts.Plan.Decode(input, reflect.ValueOf(&v).Elem())
		var verr *ValidationError
		if err != nil && (!errors.As(err, &verr) || len(verr.Violations) == 0 || len(verr.Violations) > maxViolations) {
			t.Fatalf("decode(%s) = %v, want a ValidationError of 1 to 10 violations", input, err)
		}
		if err == nil {
			out, merr := json.Marshal(v)
			if merr != nil {
				t.Fatalf("json.Marshal(%+v) = %v", v, merr)
			}
			if err := ts.Plan.validate(out); err != nil {
				t.Fatalf("decode(%s) accepted %+v, but its JSON %s fails: %v", input, v, out, err)
			}
			var again fuzzArgs
			// An empty slice or map is left out by omitempty and comes back nil.
			if err := ts.Plan.Decode(out, reflect.ValueOf(&again).Elem()); err != nil || !cmp.Equal(v, again, cmpopts.EquateEmpty()) {
				t.Fatalf("%s decodes to %+v, %v; want %+v", out, again, err, v)
			}
			checkExactIntegers(t, input, v)
		}
		dup, exact := inspect(input)
		if dup {
			if err == nil {
				t.Fatalf("decode(%s) accepted a repeated member name", input)
			}
			return
		}
		if !exact {
			return
		}
		var doc any
		oracleErr := json.Unmarshal(input, &doc)
		if oracleErr == nil {
			oracleErr = oracle.Validate(doc)
		}
		if (err == nil) != (oracleErr == nil) {
			t.Fatalf("decode(%s) = %v, but jsonschema-go says %v", input, err, oracleErr)
		}
	})
}

// checkExactIntegers checks that the integer fields of an accepted input
// hold exactly the numbers sent.
func checkExactIntegers(t *testing.T, input []byte, v fuzzArgs) {
	t.Helper()
	members := map[string]json.RawMessage{}
	json.Unmarshal(input, &members) // the last of repeated names, as decode would have refused
	for name, got := range map[string]int64{"steps": int64(v.Steps), "big": v.Big, "small": int64(v.Small)} {
		raw, ok := members[name]
		if !ok {
			continue
		}
		want, ok := new(big.Rat).SetString(string(raw))
		if !ok || want.Cmp(new(big.Rat).SetInt64(got)) != 0 {
			t.Fatalf("decode(%s): %s = %d, want exactly %s", input, name, got, raw)
		}
	}
}

// inspect reports whether the JSON text repeats a member name in an object
// and whether every number in it is exactly a float64.
func inspect(input []byte) (dup, exact bool) {
	exact = true
	var walk func(v json.RawMessage)
	walk = func(v json.RawMessage) {
		v = trimSpace(v)
		switch v[0] {
		case '{':
			keys := map[string]bool{}
			rawjson.EachField(v, func(f rawjson.Field) bool {
				dup = dup || keys[f.Key]
				keys[f.Key] = true
				walk(f.Value)
				return true
			})
		case '[':
			rawjson.Elements(v, func(_ int, e json.RawMessage) bool {
				walk(e)
				return true
			})
		case '"', 't', 'f', 'n':
		default:
			exact = exact && floatExact(string(v))
		}
	}
	walk(input)
	return dup, exact
}

// floatExact reports whether the JSON number's value is a float64.
func floatExact(text string) bool {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	if f == 0 {
		return parseNumber([]byte(text)).exact && parseNumber([]byte(text)).mag == 0
	}
	r, ok := new(big.Rat).SetString(text)
	return ok && r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}

// The seeds, run as a test, hold the decoder to the oracle on the cases
// they were chosen for.
func TestTypedArgumentsSeeds(t *testing.T) {
	ts, err := Infer(reflect.TypeFor[fuzzArgs]())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		input string
		ok    bool
	}{
		{fuzzSeeds[0], true}, {fuzzSeeds[1], true}, {fuzzSeeds[2], false}, {fuzzSeeds[3], true}, {fuzzSeeds[4], false},
		{fuzzSeeds[5], false}, {fuzzSeeds[6], false}, {fuzzSeeds[7], false}, {fuzzSeeds[8], true}, {fuzzSeeds[9], false},
	} {
		var v fuzzArgs
		if err := ts.Plan.Decode([]byte(tc.input), reflect.ValueOf(&v).Elem()); (err == nil) != tc.ok {
			t.Errorf("decode(%s) = %v, want ok %v", tc.input, err, tc.ok)
		}
	}
	var v fuzzArgs
	if err := ts.Plan.Decode([]byte(fuzzSeeds[1]), reflect.ValueOf(&v).Elem()); err != nil || v.Big != 1<<53+1 || *v.Count != 2 || v.Address.Zip != "12345" {
		t.Errorf("decode(%s) = %+v, %v", fuzzSeeds[1], v, err)
	}
}

// BenchmarkValidate compares the validator alone with jsonschema-go's
// Resolved.Validate on the same arguments and schema, the latter with and
// without the json.Unmarshal into map[string]any it needs first, on a small
// object of three members and on the fuzz target's twelve, nested ones.
// plus decode is what a typed tool runs; unmarshal-only is a raw handler's
// json.Unmarshal into the same struct, without validation.
//
//	go test -run '^$' -bench BenchmarkValidate -benchmem ./stdio/mcp
func BenchmarkValidate(b *testing.B) {
	type small struct {
		City  string `json:"city" mcp:"minLength=1"`
		Days  int    `json:"days,omitempty" mcp:"minimum=1,maximum=10"`
		Units string `json:"units,omitempty" mcp:"enum=celsius|fahrenheit"`
	}
	b.Run("args=small", func(b *testing.B) { benchValidate[small](b, `{"city":"Paris","days":3,"units":"celsius"}`) })
	b.Run("args=nested", func(b *testing.B) { benchValidate[fuzzArgs](b, fuzzSeeds[1]) })
}

func benchValidate[T any](b *testing.B, text string) {
	ts, err := Infer(reflect.TypeFor[T]())
	if err != nil {
		b.Fatal(err)
	}
	rs, err := ts.JSON.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	input := []byte(text)
	var doc any
	if err := json.Unmarshal(input, &doc); err != nil {
		b.Fatal(err)
	}
	b.Run("validator=plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := ts.Plan.validate(input); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validator=plan+decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v T
			if err := ts.Plan.Decode(input, reflect.ValueOf(&v).Elem()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validator=jsonschema-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := rs.Validate(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validator=unmarshal+jsonschema-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var d any
			if err := json.Unmarshal(input, &d); err != nil {
				b.Fatal(err)
			}
			if err := rs.Validate(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validator=unmarshal-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v T
			if err := json.Unmarshal(input, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type Base struct {
	ID int64 `json:"id"`
}

type Extra struct {
	Note string `json:"note,omitempty"`
}

// Promoted fields are properties, decoded through the embedded struct,
// an embedded pointer being allocated when one of its fields is sent.
func TestDecodeEmbedded(t *testing.T) {
	type args struct {
		Base
		*Extra
		Name string `json:"name"`
	}
	ts, err := Infer(reflect.TypeFor[args]())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		input string
		want  args
	}{
		{`{"id":9007199254740993,"name":"a"}`, args{Base: Base{ID: 9007199254740993}, Name: "a"}},
		{`{"id":1,"name":"a","note":"n"}`, args{Base: Base{ID: 1}, Extra: &Extra{Note: "n"}, Name: "a"}},
	} {
		var got args
		if err := ts.Plan.Decode([]byte(tc.input), reflect.ValueOf(&got).Elem()); err != nil || !cmp.Equal(tc.want, got) {
			t.Errorf("decode(%s) = %+v, %v; want %+v", tc.input, got, err, tc.want)
		}
	}
	if err := ts.Plan.validate([]byte(`{"name":"a"}`)); err == nil || err.Error() != "id: required" {
		t.Errorf("validate without id = %v, want id: required", err)
	}
}

// Types that decode themselves (time.Time, json.RawMessage) are validated
// against their schema and handed to encoding/json; interfaces get
// json.Number, so that their integers stay exact too.
func TestDecodeSelfDecoding(t *testing.T) {
	type args struct {
		At    time.Time       `json:"at"`
		Raw   json.RawMessage `json:"raw,omitempty"`
		Any   any             `json:"any,omitempty"`
		Count json.Number     `json:"count,omitempty"`
	}
	ts, err := Infer(reflect.TypeFor[args]())
	if err != nil {
		t.Fatal(err)
	}
	var got args
	in := `{"at":"2026-01-02T03:04:05Z","raw":{"k":[1, 2]},"any":{"n":12345678901234567890},"count":9007199254740993}`
	if err := ts.Plan.Decode([]byte(in), reflect.ValueOf(&got).Elem()); err != nil {
		t.Fatalf("decode(%s) = %v", in, err)
	}
	out, _ := json.Marshal(got)
	if want := `{"at":"2026-01-02T03:04:05Z","raw":{"k":[1,2]},"any":{"n":12345678901234567890},"count":9007199254740993}`; string(out) != want {
		t.Errorf("decoded %s, want %s", out, want)
	}
	for _, tc := range []struct{ input, want string }{
		{`{"at":7}`, "at: want a string, got 7"},
		{`{"at":"yesterday"}`, `at: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{`{"at":"2026-01-02T03:04:05Z","count":"7"}`, `count: want a number, got "7"`},
	} {
		var v args
		if err := ts.Plan.Decode([]byte(tc.input), reflect.ValueOf(&v).Elem()); err == nil || err.Error() != tc.want {
			t.Errorf("decode(%s) = %v, want %s", tc.input, err, tc.want)
		}
	}
}

// Paths spell array items, nested members and names that are not
// identifiers.
func TestViolationPaths(t *testing.T) {
	type item struct {
		Zip string `json:"zip" mcp:"pattern=^[0-9]+$"`
	}
	type args struct {
		Items  []item          `json:"items"`
		Matrix [][]int         `json:"matrix,omitempty" mcp:"maximum=9"`
		Labels map[string]int8 `json:"labels,omitempty"`
	}
	ts, err := Infer(reflect.TypeFor[args]())
	if err != nil {
		t.Fatal(err)
	}
	err = ts.Plan.validate([]byte(`{"items":[{"zip":"1"},{"zip":"x"},{}],"matrix":[[1],[2,10]],"labels":{"a b":300,"ok":1}}`))
	want := `items[1].zip: "x" does not match the pattern ^[0-9]+$; items[2].zip: required; ` +
		`matrix[1][1]: 10 is above the maximum 9; labels["a b"]: 300 is outside the integer range -128 to 127`
	if err == nil || err.Error() != want {
		t.Errorf("validate = %v\nwant %s", err, want)
	}
}
