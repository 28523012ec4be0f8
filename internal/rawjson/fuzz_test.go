package rawjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
	"unicode/utf8"
)

var longInteger = regexp.MustCompile(`[0-9]{65}`)

// FuzzScan checks the scanner against encoding/json: both accept the same
// texts, except that ours also refuses integer parts over 64 digits, and
// SkipValue finds the end that the scanner found, and AppendCompact yields the same bytes as json.Compact on valid UTF-8 and
// the same value everywhere.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2,{"b":null}]}}`,
		` [ 1 , -0.5e+3 , "x\"y\\u00e9" , true , false , null ] `,
		`["\\",""]`, `"a\\\"b\\\\"`, `{"k\"":"\\\\\\\"","x":[]}`,
		"\"caf\xff\"", `{"a":}`, `01`, `"\u12"`, `1e`, "\"a\tb\"", `{"é":"😀"}`, "[\"\u2028\"]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, err := Scan(in)
		std := json.Valid(in)
		if err == nil && !std {
			t.Fatalf("scan accepted %q, which encoding/json refuses", in)
		}
		if err != nil && std && !longInteger.Match(in) {
			t.Fatalf("scan refused %q (%v), which encoding/json accepts", in, err)
		}
		if err != nil {
			return
		}
		// Skipping finds the same end as scanning, with more text after it
		// (a skip that overran would stop in that text).
		probe := append(append([]byte(nil), bytes.TrimRight(in, " \t\r\n")...), `,"x\\",{"y":"\""}`...)
		if i, want := SkipSpace(in, 0), len(bytes.TrimRight(in, " \t\r\n")); SkipValue(probe, i) != want {
			t.Fatalf("SkipValue(%q, %d) = %d, want the value's end %d", probe, i, SkipValue(probe, i), want)
		}
		got, err := Compact(in)
		if err != nil {
			t.Fatalf("Compact(%q) = %v after scan accepted it", in, err)
		}
		if can, err := Canonical(in); err != nil || !bytes.Equal(can, got) {
			t.Fatalf("Canonical(%q) = %q, %v; Compact gives %q", in, can, err, got)
		}
		if bytes.ContainsAny(got, "\r\n") || !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("Compact(%q) = %q: not one valid UTF-8 line", in, got)
		}
		if utf8.Valid(in) {
			var want bytes.Buffer
			if err := json.Compact(&want, in); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("Compact(%q) = %q, json.Compact gives %q", in, got, want.Bytes())
			}
		}
		var a, b any
		if json.Unmarshal(in, &a) == nil {
			if err := json.Unmarshal(got, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("Compact(%q) = %q changes the value", in, got)
			}
		}
	})
}
