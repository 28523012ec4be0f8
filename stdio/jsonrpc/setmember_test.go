package jsonrpc

import (
	"encoding/json"
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
		if _, err := scan(obj); err != nil || !utf8.ValidString(key) {
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
