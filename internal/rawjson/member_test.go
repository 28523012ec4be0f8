package rawjson

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"
)

func TestSetMember(t *testing.T) {
	tests := []struct {
		name, obj, key, value, want string
	}{
		{"nil object", ``, "_meta", `{"a":1}`, `{"_meta":{"a":1}}`},
		{"empty object", `{}`, "k", `2`, `{"k":2}`},
		{"empty object with space", ` { } `, "k", `2`, `{"k":2}`},
		{"append keeps bytes", `{"n":1.50,"s":"\u00e9\/"}`, "k", `true`, `{"n":1.50,"s":"\u00e9\/","k":true}`},
		{"replace in place", `{"a":1,"k":{"old":[1,{"x":"}"}]},"z":3}`, "k", `"new"`, `{"a":1,"k":"new","z":3}`},
		{"duplicates dropped", `{"k":1,"a":2,"k":3}`, "k", `9`, `{"k":9,"a":2}`},
		{"escaped key matches", `{"\u006b":1,"b":2}`, "k", `0`, `{"\u006b":0,"b":2}`},
		{"whitespace between members", `{ "a" : 1 , "b" : [ 1 ] }`, "c", `null`, `{"a":1,"b":[ 1 ],"c":null}`},
		{"key needing escapes", `{}`, "io.modelcontextprotocol/subscriptionId", `"x"`, `{"io.modelcontextprotocol/subscriptionId":"x"}`},
		{"raw non-ASCII kept", `{"日本":"😀"}`, "é", `"ü"`, `{"日本":"😀","é":"ü"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetMember(json.RawMessage(tt.obj), tt.key, json.RawMessage(tt.value))
			if err != nil {
				t.Fatalf("SetMember(%s, %q) error %v", tt.obj, tt.key, err)
			}
			if string(got) != tt.want {
				t.Errorf("SetMember(%s, %q, %s) = %s, want %s", tt.obj, tt.key, tt.value, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("SetMember result %s is not valid JSON", got)
			}
		})
	}
	for _, bad := range []string{`[]`, `"x"`, `1`, `null`} {
		if got, err := SetMember(json.RawMessage(bad), "k", json.RawMessage(`1`)); err == nil {
			t.Errorf("SetMember(%s) = %s, want an error", bad, got)
		}
	}
}

func FuzzSetMember(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, ` {"k" : [1,"]"] , "x":{}} `, `{"\u006b":null}`} {
		f.Add([]byte(s), "k")
	}
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		if _, err := Scan(obj); err != nil || !utf8.ValidString(key) {
			return
		}
		got, err := SetMember(obj, key, json.RawMessage(`{"v":1}`))
		if err != nil {
			if IsObject(obj) {
				t.Fatalf("SetMember(%q) refused an object: %v", obj, err)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("SetMember(%q, %q) = %q: invalid JSON", obj, key, got)
		}
		if v, ok := Member(got, key); !ok || string(v) != `{"v":1}` {
			t.Fatalf("SetMember(%q, %q) = %q: member is %q", obj, key, got, v)
		}
	})
}

func TestMember(t *testing.T) {
	obj := json.RawMessage(` { "a" : "x\"}" , "_meta" : { "progressToken" : 7 , "b":[{"c":"]"}] }, "z":true } `)
	meta, ok := Member(obj, "_meta")
	if !ok {
		t.Fatal("Member(_meta) not found")
	}
	tok, ok := Member(meta, "progressToken")
	if !ok || string(tok) != "7" {
		t.Errorf(`Member(progressToken) = %s, %v; want 7`, tok, ok)
	}
	if z, ok := Member(obj, "z"); !ok || string(z) != "true" {
		t.Errorf("Member(z) = %s, %v; want true", z, ok)
	}
	if _, ok := Member(obj, "missing"); ok {
		t.Error("Member(missing) found")
	}
	if _, ok := Member(json.RawMessage(`[1]`), "a"); ok {
		t.Error("Member on an array found something")
	}
	// Keys are compared decoded; the last duplicate wins.
	esc := json.RawMessage(`{"t\u0079pe":"a","type":"b","\"q":1,"ty":2}`)
	if v, ok := Member(esc, "type"); !ok || string(v) != `"b"` {
		t.Errorf(`Member(type) = %s, %v; want "b"`, v, ok)
	}
	if v, ok := Member(esc, `"q`); !ok || string(v) != "1" {
		t.Errorf(`Member("q) = %s, %v; want 1`, v, ok)
	}
	if !KeyIs(json.RawMessage(`"t\u0079pe"`), "type") || KeyIs(json.RawMessage(`"ty"`), "type") {
		t.Error("KeyIs compares keys as written, not decoded")
	}
}

func TestDeleteMember(t *testing.T) {
	for _, tt := range []struct{ in, key, want string }{
		{`{"a":1,"progressToken":"t","b":{"progressToken":2}}`, "progressToken", `{"a":1,"b":{"progressToken":2}}`},
		{` { "x" : [1, "]"] , "k":1, "k":2 } `, "k", `{"x":[1, "]"]}`},
		{`{}`, "k", `{}`},
		{`[1]`, "k", `{}`},
	} {
		if got := DeleteMember(json.RawMessage(tt.in), tt.key); string(got) != tt.want {
			t.Errorf("DeleteMember(%s, %q) = %s, want %s", tt.in, tt.key, got, tt.want)
		}
	}
}

func TestElements(t *testing.T) {
	var got []string
	ok := Elements(json.RawMessage(` [ 1 , "a,]" , {"b":[2,3]} , [ ] ] `), func(i int, v json.RawMessage) bool {
		got = append(got, fmt.Sprintf("%d:%s", i, v))
		return true
	})
	want := []string{`0:1`, `1:"a,]"`, `2:{"b":[2,3]}`, `3:[ ]`}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("Elements = %q, %v; want %q", got, ok, want)
	}
	n := 0
	Elements(json.RawMessage(`[1,2,3]`), func(int, json.RawMessage) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("Elements went on after fn returned false: %d calls", n)
	}
	if Elements(json.RawMessage(`{"a":1}`), func(int, json.RawMessage) bool { return true }) {
		t.Error("Elements on an object reported an array")
	}
	if !Elements(json.RawMessage(`[]`), func(int, json.RawMessage) bool { t.Error("called on []"); return true }) {
		t.Error("Elements on [] reported no array")
	}
}
