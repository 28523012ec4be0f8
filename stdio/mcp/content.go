package mcp

import (
	"encoding/base64"
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file holds the MCP objects a server hands out: implementations,
// content blocks and the results of tools, prompts and resources
// (docs/protocol.md, "Schema shapes"). Field names are the wire names;
// optional fields are left out when zero. Free-form JSON (schemas, _meta,
// structured content) is carried as json.RawMessage and never re-encoded.

// Implementation names an MCP implementation: this server in
// serverInfo, or a client in its clientInfo.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an image a client may show for a server, tool, prompt or
// resource.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// Role is who a message is from: "user" or "assistant".
type Role string

// The two roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations are hints about how to use an object (docs/protocol.md,
// "Common").
type Annotations struct {
	Audience     []Role   `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"` // 0 to 1
	LastModified string   `json:"lastModified,omitempty"`
}

// Content is one content block of a tool result or a prompt message:
// *TextContent, *ImageContent, *AudioContent, *ResourceLink,
// *EmbeddedResource, or RawContent for any other block (the sampling-only
// tool_use and tool_result blocks, or a type a later revision adds).
type Content interface {
	isContent()
}

// TextContent is a text block.
type TextContent struct {
	Text        string
	Annotations *Annotations
	Meta        json.RawMessage
}

// ImageContent is an image block; Data holds the raw bytes, which go on the
// wire base64-encoded.
type ImageContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        json.RawMessage
}

// AudioContent is an audio block; Data holds the raw bytes, which go on the
// wire base64-encoded.
type AudioContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        json.RawMessage
}

// ResourceLink points at a resource the client may read (type
// "resource_link"); it has the fields of a [Resource].
type ResourceLink struct {
	Resource
}

// EmbeddedResource carries a resource's contents inline (type "resource").
type EmbeddedResource struct {
	Resource    ResourceContents
	Annotations *Annotations
	Meta        json.RawMessage
}

// RawContent is a content block given as JSON text, passed through as it
// is. It must be a JSON object with a "type" member.
type RawContent json.RawMessage

func (*TextContent) isContent()      {}
func (*ImageContent) isContent()     {}
func (*AudioContent) isContent()     {}
func (*ResourceLink) isContent()     {}
func (*EmbeddedResource) isContent() {}
func (RawContent) isContent()        {}

// Text returns a text content block.
func Text(text string) *TextContent { return &TextContent{Text: text} }

// MarshalJSON encodes the block with "type":"text".
func (c *TextContent) MarshalJSON() ([]byte, error) {
	return rawjson.Marshal(struct {
		Type        string          `json:"type"`
		Text        string          `json:"text"`
		Annotations *Annotations    `json:"annotations,omitempty"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}{"text", c.Text, c.Annotations, c.Meta})
}

type binaryBlock struct {
	Type        string          `json:"type"`
	Data        string          `json:"data"`
	MIMEType    string          `json:"mimeType"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON encodes the block with "type":"image" and base64 data.
func (c *ImageContent) MarshalJSON() ([]byte, error) {
	return rawjson.Marshal(binaryBlock{"image", base64.StdEncoding.EncodeToString(c.Data), c.MIMEType, c.Annotations, c.Meta})
}

// MarshalJSON encodes the block with "type":"audio" and base64 data.
func (c *AudioContent) MarshalJSON() ([]byte, error) {
	return rawjson.Marshal(binaryBlock{"audio", base64.StdEncoding.EncodeToString(c.Data), c.MIMEType, c.Annotations, c.Meta})
}

// MarshalJSON encodes the block with "type":"resource_link".
func (c *ResourceLink) MarshalJSON() ([]byte, error) {
	type resource Resource // without its methods
	return rawjson.Marshal(struct {
		Type string `json:"type"`
		resource
	}{"resource_link", resource(c.Resource)})
}

// MarshalJSON encodes the block with "type":"resource".
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) {
	return rawjson.Marshal(struct {
		Type        string           `json:"type"`
		Resource    ResourceContents `json:"resource"`
		Annotations *Annotations     `json:"annotations,omitempty"`
		Meta        json.RawMessage  `json:"_meta,omitempty"`
	}{"resource", c.Resource, c.Annotations, c.Meta})
}

// MarshalJSON returns the block's text, compacted.
func (c RawContent) MarshalJSON() ([]byte, error) {
	return rawjson.Compact(c)
}

// ToolResult is what a tool returns (CallToolResult; docs/protocol.md,
// "Tool results").
type ToolResult struct {
	// Content is the unstructured result. A nil slice is sent as [].
	Content []Content
	// StructuredContent, when not nil, is sent as structuredContent. It is
	// any value encoding/json can marshal, or a json.RawMessage. The
	// 2025 revisions require a JSON object; 2026-07-28 allows any value.
	// Servers should also put the same JSON in a text block.
	StructuredContent any
	// IsError reports that the tool ran and failed; the model sees the
	// content. It is a result, not a protocol error.
	IsError bool
	// Meta is the result's _meta object, if any. On 2026-07-28 the
	// runtime adds io.modelcontextprotocol/serverInfo to it.
	Meta json.RawMessage
}

// TextResult returns a result with one text block.
func TextResult(text string) *ToolResult {
	return &ToolResult{Content: []Content{Text(text)}}
}

// ErrorResult returns an isError result with one text block: the tool ran
// and failed, and the model should see why.
func ErrorResult(text string) *ToolResult {
	return &ToolResult{Content: []Content{Text(text)}, IsError: true}
}

// PromptMessage is one message of a prompt: a role and one content block.
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// GetPromptResult is what a prompt returns.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceContents is the content of one resource: text, or a blob when
// Blob is not nil (sent base64-encoded).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     json.RawMessage
}

// MarshalJSON encodes TextResourceContents, or BlobResourceContents when
// Blob is not nil.
func (c ResourceContents) MarshalJSON() ([]byte, error) {
	if c.Blob != nil {
		return rawjson.Marshal(struct {
			URI      string          `json:"uri"`
			MIMEType string          `json:"mimeType,omitempty"`
			Blob     string          `json:"blob"`
			Meta     json.RawMessage `json:"_meta,omitempty"`
		}{c.URI, c.MIMEType, base64.StdEncoding.EncodeToString(c.Blob), c.Meta})
	}
	return rawjson.Marshal(struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType,omitempty"`
		Text     string          `json:"text"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}{c.URI, c.MIMEType, c.Text, c.Meta})
}

// ReadResourceResult is what reading a resource returns. One read may
// return several contents (a directory, a resource with sub-resources);
// it must return at least one, since 2026-07-28 forbids an empty contents
// array for a resource that exists.
type ReadResourceResult struct {
	Contents []ResourceContents
	Meta     json.RawMessage
}
