package mcp

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// toolReplyByMarshal is how toolReply was built before it appended the
// members itself: the reference its output must match byte for byte.
func toolReplyByMarshal(res *ToolResult) (json.RawMessage, error) {
	content := res.Content
	if content == nil {
		content = []Content{}
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		var err error
		if structured, err = rawjson.Marshal(res.StructuredContent); err != nil {
			return nil, err
		}
	}
	return rawjson.Marshal(struct {
		Content           []Content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
	}{content, structured, res.IsError})
}

func TestToolReplyMatchesMarshal(t *testing.T) {
	texts := []string{"", "hello", `quote " backslash \ slash /`, "<a & b>", "tab\tnl\ncr\r", "bs\b ff\f nul\x00 del\x7f",
		"line\u2028para\u2029", "héllo, 世界 😀", "bad \xff utf-8 \xc3", `\u2028 escaped`}
	var results []*ToolResult
	for _, s := range texts {
		results = append(results, TextResult(s), ErrorResult(s),
			&ToolResult{Content: []Content{Text(s), &TextContent{Text: s, Meta: json.RawMessage(`{"k":1}`)}}, StructuredContent: map[string]string{"message": s}})
	}
	results = append(results,
		&ToolResult{},
		&ToolResult{Content: []Content{}},
		&ToolResult{Content: []Content{nil, (*TextContent)(nil)}},
		&ToolResult{Content: []Content{&TextContent{Text: "x", Annotations: &Annotations{Audience: []Role{RoleUser}}}}},
		&ToolResult{Content: []Content{&ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}, RawContent(`{ "type" : "x" }`)}},
		&ToolResult{StructuredContent: json.RawMessage(`{"a": [1, 2]}`), IsError: true},
		&ToolResult{StructuredContent: (*struct{})(nil)},
		&ToolResult{Content: []Content{Text("m")}, Meta: json.RawMessage(`{"m":true}`)},
	)
	for _, res := range results {
		want, wantErr := toolReplyByMarshal(res)
		r, err := toolReply(res)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("toolReply(%+v) error %v, want %v", res, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if string(r.body) != string(want) {
			t.Errorf("toolReply(%+v) body\n%s\nwant\n%s", res, r.body, want)
		}
		if string(r.meta) != string(res.Meta) {
			t.Errorf("toolReply(%+v) meta %s, want %s", res, r.meta, res.Meta)
		}
	}
	// Invalid content fails as it did.
	for _, res := range []*ToolResult{
		{Content: []Content{RawContent(`not json`)}},
		{StructuredContent: json.RawMessage(`{`)},
	} {
		if _, err := toolReply(res); err == nil {
			t.Errorf("toolReply(%+v) succeeded, want an error", res)
		}
	}
}
