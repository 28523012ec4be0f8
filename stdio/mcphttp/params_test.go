package mcphttp

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParamHeadersLearn(t *testing.T) {
	var p paramHeaders
	p.learn(json.RawMessage(`{"tools":[
		{"name":"flat","inputSchema":{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"level":{"type":"integer"}}}},
		{"name":"nested","inputSchema":{"type":"object","properties":{
			"target":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Target-Id"}}},
			"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}}}},
		{"name":"plain","inputSchema":{"type":"object"}}]}`))
	want := map[string][]paramHeader{
		"flat":   {{name: "Region", path: []string{"region"}}},
		"nested": {{name: "Target-Id", path: []string{"target", "id"}}}, // not through items
	}
	if diff := cmp.Diff(want, p.tools, cmp.AllowUnexported(paramHeader{})); diff != "" {
		t.Errorf("learned annotations (-want +got):\n%s", diff)
	}
	// A later listing that drops the annotation forgets it.
	p.learn(json.RawMessage(`{"tools":[{"name":"flat","inputSchema":{"type":"object"}}]}`))
	if _, ok := p.tools["flat"]; ok {
		t.Errorf("flat still has annotations after a listing without them")
	}
}

func TestParamHeadersCheck(t *testing.T) {
	var p paramHeaders
	p.learn(json.RawMessage(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{
		"s":{"type":"string","x-mcp-header":"S"},
		"n":{"type":"integer","x-mcp-header":"N"},
		"b":{"type":"boolean","x-mcp-header":"B"},
		"o":{"type":"object","properties":{"id":{"type":"string","x-mcp-header":"Id"}}}}}}]}`))
	tests := []struct {
		name   string
		args   string
		header map[string]string
		ok     bool
	}{
		{name: "no arguments", args: `{}`, ok: true},
		{name: "string", args: `{"s":"us-west1"}`, header: map[string]string{"Mcp-Param-S": "us-west1"}, ok: true},
		{name: "string in base64", args: `{"s":"Hello, 世界"}`, header: map[string]string{"Mcp-Param-S": "=?base64?SGVsbG8sIOS4lueVjA==?="}, ok: true},
		{name: "string, whitespace around the header", args: `{"s":"a"}`, header: map[string]string{"Mcp-Param-S": " a "}, ok: true},
		{name: "missing header", args: `{"s":"a"}`},
		{name: "other value", args: `{"s":"a"}`, header: map[string]string{"Mcp-Param-S": "b"}},
		{name: "bad base64", args: `{"s":"Hello"}`, header: map[string]string{"Mcp-Param-S": "=?base64?SGVsbG8?=", "Mcp-Param-N": "1"}},
		{name: "bad header without argument", args: `{}`, header: map[string]string{"Mcp-Param-S": "=?base64?!!?="}},
		{name: "null argument, no header", args: `{"s":null}`, ok: true},
		{name: "header without argument", args: `{}`, header: map[string]string{"Mcp-Param-S": "a"}, ok: true},
		{name: "integer", args: `{"n":42}`, header: map[string]string{"Mcp-Param-N": "42"}, ok: true},
		{name: "integer as 42.0", args: `{"n":42}`, header: map[string]string{"Mcp-Param-N": "42.0"}, ok: true},
		{name: "other integer", args: `{"n":42}`, header: map[string]string{"Mcp-Param-N": "43"}},
		{name: "boolean", args: `{"b":false}`, header: map[string]string{"Mcp-Param-B": "false"}, ok: true},
		{name: "boolean in other case", args: `{"b":true}`, header: map[string]string{"Mcp-Param-B": "True"}},
		{name: "nested", args: `{"o":{"id":"x"}}`, header: map[string]string{"Mcp-Param-Id": "x"}, ok: true},
		{name: "nested, missing header", args: `{"o":{"id":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			err := p.check(h, json.RawMessage(`{"name":"t","arguments":`+tt.args+`}`))
			if (err == nil) != tt.ok {
				t.Errorf("check(%s, %v) = %v, want ok %v", tt.args, tt.header, err, tt.ok)
			}
		})
	}
	// Unknown tools are not checked.
	if err := p.check(http.Header{}, json.RawMessage(`{"name":"other","arguments":{"s":"a"}}`)); err != nil {
		t.Errorf("check of an unlisted tool = %v, want nil", err)
	}
}
