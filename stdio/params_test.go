package stdio

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

func TestParamsMerge(t *testing.T) {
	cfg := ConnectConfig{ClientInfo: json.RawMessage(`{"name":"t","version":"1"}`)}
	if err := cfg.normalize(); err != nil {
		t.Fatal(err)
	}
	modern := newEra(Version20260728, &cfg, "")
	legacy := newEra(Version20251125, &cfg, "")
	tests := []struct {
		name             string
		e                *era
		raw, meta, token string
		want             string
		code             int64
	}{
		{name: "raw client passes through", raw: `{"b":1,"a":2}`, want: `{"b":1,"a":2}`},
		{name: "raw client nil", want: ``},
		{name: "legacy token", e: legacy, raw: `{"name":"x"}`, token: `7`, want: `{"name":"x","_meta":{"progressToken":7}}`},
		{name: "legacy empty params token", e: legacy, token: `7`, want: `{"_meta":{"progressToken":7}}`},
		{name: "modern stamps", e: modern, raw: `{"name":"x"}`,
			want: `{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}`},
		{name: "caller meta wins over stamp, options win over params", e: modern,
			raw:  `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"k":1},"x":[1.50]}`,
			meta: `{"k":2,"trace":"t"}`,
			want: `{"x":[1.50],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"k":2,"trace":"t"}}`},
		{name: "same version is no conflict", e: modern, raw: `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
			want: `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{name: "version conflict", e: modern, meta: `{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`, code: jsonrpc.CodeInvalidParams},
		{name: "caller token with progress", e: legacy, raw: `{"_meta":{"progressToken":"mine"}}`, token: `3`, code: jsonrpc.CodeInvalidParams},
		{name: "non-object params", e: modern, raw: `[1]`, code: jsonrpc.CodeInvalidParams},
		{name: "non-object _meta", e: legacy, raw: `{"_meta":3}`, token: `1`, code: jsonrpc.CodeInvalidParams},
		{name: "non-object options meta", e: legacy, meta: `[]`, code: jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.e.params(raw(tt.raw), raw(tt.meta), raw(tt.token))
			if tt.code != 0 {
				wantCode(t, tt.name, err, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// FuzzParams checks that merged params are always one valid JSON object
// whose _meta holds, for each key, the last writer's value.
func FuzzParams(f *testing.F) {
	f.Add(`{"a":1,"_meta":{"k":"v"}}`, `{"k":2}`, true, true)
	f.Add(`{}`, ``, false, true)
	f.Add(`{"_meta":{}}`, `{"io.modelcontextprotocol/clientInfo":{"name":"z"}}`, true, false)
	cfg := ConnectConfig{}
	cfg.normalize()
	f.Fuzz(func(t *testing.T, rawParams, meta string, modern, withToken bool) {
		e := newEra(Version20251125, &cfg, "")
		if modern {
			e = newEra(Version20260728, &cfg, "")
		}
		p, err := marshalParams(raw(rawParams))
		if err != nil {
			return
		}
		var token json.RawMessage
		if withToken {
			token = json.RawMessage(`42`)
		}
		out, err := e.params(p, raw(meta), token)
		if err != nil {
			return
		}
		if out == nil {
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("params(%q, %q) = %q: not a JSON object: %v", rawParams, meta, out, err)
		}
		want := map[string]any{}
		json.Unmarshal(p, &want)
		if !modern && !withToken && meta == "" {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("params(%q) changed without anything to merge (-want +got):\n%s", rawParams, diff)
			}
			return
		}
		wantMeta := map[string]any{}
		if modern {
			for _, f := range e.stamp {
				var v any
				json.Unmarshal(f.Value, &v)
				wantMeta[f.Key] = v
			}
		}
		if m, ok := want["_meta"].(map[string]any); ok {
			for k, v := range m {
				wantMeta[k] = v
			}
		}
		extra := map[string]any{}
		json.Unmarshal([]byte(meta), &extra)
		for k, v := range extra {
			wantMeta[k] = v
		}
		if withToken {
			wantMeta["progressToken"] = float64(42)
		}
		want["_meta"] = wantMeta
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("params(%q, %q) = %s (-want +got):\n%s", rawParams, meta, out, diff)
		}
	})
}
