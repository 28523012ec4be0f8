package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

func TestDecodeKinds(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		kind   Kind
		id     string
		method string
		params string
		result string
		err    string
	}{
		{name: "request", line: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":[1,2]}}`,
			kind: KindRequest, id: `1`, method: "tools/list", params: `{"a":[1,2]}`},
		{name: "string id", line: `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`,
			kind: KindRequest, id: `"srv-1"`, method: "ping"},
		{name: "id zero", line: `{"id":0,"jsonrpc":"2.0","method":"ping"}`, kind: KindRequest, id: `0`, method: "ping"},
		{name: "negative id", line: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x"}`,
			kind: KindRequest, id: `-9223372036854775808`, method: "x"},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`,
			kind: KindNotification, method: "notifications/progress", params: `{"progressToken":1}`},
		{name: "response", line: `{"jsonrpc":"2.0","id":7,"result":{"x":1}}`, kind: KindResponse, id: `7`, result: `{"x":1}`},
		{name: "error response null id", line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			kind: KindResponse},
		{name: "escaped key and method", line: `{"jsonrpc":"2.0","\u0069d":2,"method":"a\/b"}`,
			kind: KindRequest, id: `2`, method: "a/b"},
		{name: "whitespace kept in raw members", line: ` { "jsonrpc" : "2.0" , "id" : 3 , "method" : "m" , "params" : { "k" : 1 } } `,
			kind: KindRequest, id: `3`, method: "m", params: `{ "k" : 1 }`},
		{name: "duplicate key last wins", line: `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, kind: KindRequest, id: `2`, method: "m"},

		{name: "not json", line: `{not-json}`, err: "-32700"},
		{name: "trailing data", line: `{"jsonrpc":"2.0","id":1,"method":"m"} x`, err: "-32700"},
		{name: "two values", line: `{}{}`, err: "-32700"},
		{name: "empty batch", line: `[]`, err: "-32600"},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, err: "-32600"},
		{name: "scalar", line: `42`, err: "-32600"},
		{name: "wrong version keeps id", line: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, kind: KindRequest, id: `3`, method: "", err: "-32600"},
		{name: "missing version", line: `{"id":3,"method":"ping"}`, kind: KindRequest, id: `3`, err: "-32600"},
		{name: "method not string", line: `{"jsonrpc":"2.0","id":4,"method":5}`, kind: KindRequest, id: `4`, err: "-32600"},
		{name: "null id request", line: `{"jsonrpc":"2.0","id":null,"method":"m"}`, kind: KindRequest, err: "-32600"},
		{name: "float id", line: `{"jsonrpc":"2.0","id":16.5,"method":"m"}`, kind: KindRequest, err: "-32600"},
		{name: "exponent id", line: `{"jsonrpc":"2.0","id":1e3,"method":"m"}`, kind: KindRequest, err: "-32600"},
		{name: "id past int64", line: `{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`, kind: KindRequest, err: "-32600"},
		{name: "long string id", line: `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 300) + `","method":"m"}`, kind: KindRequest, err: "-32600"},
		{name: "bool id", line: `{"jsonrpc":"2.0","id":true,"method":"m"}`, kind: KindRequest, err: "-32600"},
		{name: "nothing", line: `{"jsonrpc":"2.0"}`, kind: KindInvalid, err: "-32600"},
		{name: "huge integer", line: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":` + strings.Repeat("9", 65) + `}}`, err: "-32700"},
		{name: "deep nesting", line: strings.Repeat("[", rawjson.MaxDepth+1) + strings.Repeat("]", rawjson.MaxDepth+1), err: "-32700"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.line))
			if tt.err != "" {
				var e *Error
				if !errors.As(err, &e) || !strings.Contains(e.Error(), tt.err) {
					t.Fatalf("Decode(%.60q) error = %v, want code %s", tt.line, err, tt.err)
				}
			} else if err != nil {
				t.Fatalf("Decode(%.60q) = %v", tt.line, err)
			}
			got := []string{string(m.ID), m.Method, string(m.Params), string(m.Result)}
			want := []string{tt.id, tt.method, tt.params, tt.result}
			if tt.err != "" {
				got, want = got[:1], want[:1]
			}
			if diff := cmp.Diff(want, got); diff != "" || m.Kind != tt.kind {
				t.Errorf("Decode(%.60q): kind %d want %d; (-want +got):\n%s", tt.line, m.Kind, tt.kind, diff)
			}
		})
	}
}

func TestDecodeIDBounds(t *testing.T) {
	for _, tt := range []struct {
		id string
		ok bool
	}{
		{`9223372036854775807`, true},
		{`-9223372036854775808`, true},
		{`9223372036854775808`, false},
		{`"` + strings.Repeat("a", MaxIDBytes) + `"`, true},
		{`"` + strings.Repeat("a", MaxIDBytes+1) + `"`, false},
		{`"` + strings.Repeat(`\u0061`, MaxIDBytes) + `"`, true},
		{`"` + strings.Repeat(`\u0061`, MaxIDBytes+1) + `"`, false},
		{`1.0`, false},
		{`"1"`, true},
		{`null`, false},
		{`{}`, false},
	} {
		if got := ValidID(json.RawMessage(tt.id)); got != tt.ok {
			t.Errorf("ValidID(%.40s) = %v, want %v", tt.id, got, tt.ok)
		}
	}
}

func TestDecodeDirty(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":1,"result":"caf` + "\xff" + `"}`))
	if err != nil || !m.Dirty {
		t.Fatalf("Decode(invalid UTF-8) = %+v, %v; want Dirty", m, err)
	}
	m, err = Decode([]byte(`{"jsonrpc":"2.0","id":1,"result":"café 😀"}`))
	if err != nil || m.Dirty {
		t.Fatalf("Decode(valid UTF-8) = %+v, %v; want clean", m, err)
	}
}

func TestDecodeError(t *testing.T) {
	e, ok := DecodeError(json.RawMessage(`{"code":-32022,"message":"Unsupported","data":{ "supported" : ["2026-07-28"] }}`))
	if !ok || e.Code != -32022 || e.Message != "Unsupported" || string(e.Data) != `{"supported":["2026-07-28"]}` {
		t.Fatalf("DecodeError = %+v, %v", e, ok)
	}
	for _, bad := range []string{`"x"`, `{"message":"m"}`, `{"code":1.5,"message":"m"}`, `{"code":1}`} {
		if _, ok := DecodeError(json.RawMessage(bad)); ok {
			t.Errorf("DecodeError(%s) ok, want failure", bad)
		}
	}
}
