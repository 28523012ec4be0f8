package convert

import (
	"encoding/json"
	"errors"
	"math"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// page is what every list result carries besides its items.
type page struct {
	next  string
	meta  *structpb.Struct
	ttl   *durationpb.Duration
	scope mcpbridgev1.CacheScope
}

// decodePage reads a list result: the items under itemsKey through item,
// and nextCursor, _meta and (2026-07-28) ttlMs and cacheScope.
func decodePage(raw json.RawMessage, r Era, itemsKey string, item func(i int, v json.RawMessage) error) (page, error) {
	var p page
	if err := completeOnly(raw, r); err != nil {
		return p, err
	}
	err := members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case itemsKey:
			err = elements(v, item)
		case "nextCursor":
			p.next, err = jsonString(v)
		case "_meta":
			p.meta, err = Struct(v)
		default:
			if r.modern {
				err = p.cacheHints(k, v)
			}
		}
		return err
	})
	return p, err
}

// cacheHints reads ttlMs and cacheScope (docs/protocol.md, "Cache hints").
// A negative ttlMs counts as 0; ttl stays unset only when the child sent
// none.
func (p *page) cacheHints(k string, v json.RawMessage) error {
	switch k {
	case "ttlMs":
		ms, err := jsonInt(v)
		if err != nil {
			return err
		}
		ms = min(max(ms, 0), math.MaxInt64/int64(time.Millisecond))
		p.ttl = durationpb.New(time.Duration(ms) * time.Millisecond)
	case "cacheScope":
		s, err := jsonString(v)
		if err != nil {
			return err
		}
		p.scope = cacheScope(s)
	}
	return nil
}

func cacheScope(s string) mcpbridgev1.CacheScope {
	switch s {
	case "public":
		return mcpbridgev1.CacheScope_CACHE_SCOPE_PUBLIC
	case "private":
		return mcpbridgev1.CacheScope_CACHE_SCOPE_PRIVATE
	}
	return mcpbridgev1.CacheScope_CACHE_SCOPE_UNSPECIFIED
}

func DecodeListTools(raw json.RawMessage, r Era) (*mcpbridgev1.ListToolsResponse, error) {
	out := &mcpbridgev1.ListToolsResponse{}
	p, err := decodePage(raw, r, "tools", func(i int, v json.RawMessage) error {
		t, err := decodeTool(v, r)
		out.Tools = append(out.Tools, t)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func DecodeListResources(raw json.RawMessage, r Era) (*mcpbridgev1.ListResourcesResponse, error) {
	out := &mcpbridgev1.ListResourcesResponse{}
	p, err := decodePage(raw, r, "resources", func(i int, v json.RawMessage) error {
		res, err := decodeResource(v, r)
		out.Resources = append(out.Resources, res)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func DecodeListResourceTemplates(raw json.RawMessage, r Era) (*mcpbridgev1.ListResourceTemplatesResponse, error) {
	out := &mcpbridgev1.ListResourceTemplatesResponse{}
	p, err := decodePage(raw, r, "resourceTemplates", func(i int, v json.RawMessage) error {
		t, err := decodeResourceTemplate(v, r)
		out.ResourceTemplates = append(out.ResourceTemplates, t)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func DecodeListPrompts(raw json.RawMessage, r Era) (*mcpbridgev1.ListPromptsResponse, error) {
	out := &mcpbridgev1.ListPromptsResponse{}
	p, err := decodePage(raw, r, "prompts", func(i int, v json.RawMessage) error {
		pr, err := decodePrompt(v, r)
		out.Prompts = append(out.Prompts, pr)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func decodeTool(raw json.RawMessage, r Era) (*mcpbridgev1.Tool, error) {
	t := &mcpbridgev1.Tool{}
	err := members(raw, "tool", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "name":
			t.Name, err = jsonString(v)
		case "title":
			t.Title, err = jsonString(v)
		case "description":
			t.Description, err = jsonString(v)
		case "inputSchema":
			t.InputSchema, err = Struct(v)
		case "outputSchema":
			t.OutputSchema, err = Struct(v)
		case "annotations":
			t.Annotations, err = Struct(v)
		case "icons":
			if r.icons {
				t.Icons, err = decodeIcons(v)
			}
		case "execution":
			if r.execution {
				t.Execution, err = Struct(v)
			}
		case "_meta":
			t.Meta, err = Struct(v)
		}
		return err
	})
	return t, err
}

func decodeIcons(raw json.RawMessage) ([]*mcpbridgev1.Icon, error) {
	var out []*mcpbridgev1.Icon
	err := elements(raw, func(_ int, v json.RawMessage) error {
		ic := &mcpbridgev1.Icon{}
		out = append(out, ic)
		return members(v, "icon", func(k string, v json.RawMessage) (err error) {
			switch k {
			case "src":
				ic.Src, err = jsonString(v)
			case "mimeType":
				ic.MimeType, err = jsonString(v)
			case "sizes":
				if s, ok := rawjson.StringValue(v); ok { // a draft of 2025-11-25 had one string
					ic.Sizes = []string{s}
					return nil
				}
				ic.Sizes, err = jsonStrings(v)
			case "theme":
				ic.Theme, err = jsonString(v)
			}
			return err
		})
	})
	return out, err
}

// decodeResource reads a Resource, or the body of a resource_link block
// (whose `type` member it ignores).
func decodeResource(raw json.RawMessage, r Era) (*mcpbridgev1.Resource, error) {
	res := &mcpbridgev1.Resource{}
	err := members(raw, "resource", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "uri":
			res.Uri, err = jsonString(v)
		case "name":
			res.Name, err = jsonString(v)
		case "title":
			res.Title, err = jsonString(v)
		case "description":
			res.Description, err = jsonString(v)
		case "mimeType":
			res.MimeType, err = jsonString(v)
		case "size":
			var n int64
			n, err = jsonInt(v)
			res.Size = &n
		case "annotations":
			res.Annotations, err = Struct(v)
		case "icons":
			if r.icons {
				res.Icons, err = decodeIcons(v)
			}
		case "_meta":
			res.Meta, err = Struct(v)
		}
		return err
	})
	return res, err
}

func decodeResourceTemplate(raw json.RawMessage, r Era) (*mcpbridgev1.ResourceTemplate, error) {
	t := &mcpbridgev1.ResourceTemplate{}
	err := members(raw, "resourceTemplate", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "uriTemplate":
			t.UriTemplate, err = jsonString(v)
		case "name":
			t.Name, err = jsonString(v)
		case "title":
			t.Title, err = jsonString(v)
		case "description":
			t.Description, err = jsonString(v)
		case "mimeType":
			t.MimeType, err = jsonString(v)
		case "annotations":
			t.Annotations, err = Struct(v)
		case "icons":
			if r.icons {
				t.Icons, err = decodeIcons(v)
			}
		case "_meta":
			t.Meta, err = Struct(v)
		}
		return err
	})
	return t, err
}

func decodePrompt(raw json.RawMessage, r Era) (*mcpbridgev1.Prompt, error) {
	p := &mcpbridgev1.Prompt{}
	err := members(raw, "prompt", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "name":
			p.Name, err = jsonString(v)
		case "title":
			p.Title, err = jsonString(v)
		case "description":
			p.Description, err = jsonString(v)
		case "arguments":
			err = elements(v, func(_ int, v json.RawMessage) error {
				a, err := decodePromptArgument(v)
				p.Arguments = append(p.Arguments, a)
				return err
			})
		case "icons":
			if r.icons {
				p.Icons, err = decodeIcons(v)
			}
		case "_meta":
			p.Meta, err = Struct(v)
		}
		return err
	})
	return p, err
}

func decodePromptArgument(raw json.RawMessage) (*mcpbridgev1.PromptArgument, error) {
	a := &mcpbridgev1.PromptArgument{}
	err := members(raw, "argument", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "name":
			a.Name, err = jsonString(v)
		case "title":
			a.Title, err = jsonString(v)
		case "description":
			a.Description, err = jsonString(v)
		case "required":
			a.Required, err = jsonBool(v)
		}
		return err
	})
	return a, err
}

// DecodeCallToolResult reads a CallToolResult, or a 2026-07-28
// input_required result. The response is the same whoever it is for: the
// gRPC server's codec writes its StructuredContent and Meta quickly
// (package apiwire), from the message itself.
func DecodeCallToolResult(raw json.RawMessage, r Era) (*mcpbridgev1.CallToolResponse, error) {
	if out, ok := decodeCompleteCallTool(raw, r); ok {
		return out, nil
	}
	ir, err := mrtr(raw, r)
	if err != nil || ir != nil {
		return &mcpbridgev1.CallToolResponse{InputRequired: ir}, err
	}
	out := &mcpbridgev1.CallToolResponse{}
	err = members(raw, "result", func(k string, v json.RawMessage) error { return callToolMember(out, k, v, r) })
	return out, err
}

// decodeCompleteCallTool reads a complete CallToolResult in one pass over
// its members, resultType among them (as rawjson.Member has it: the last
// one, null meaning complete), where mrtr would have read resultType in a
// pass of its own first. ok is false for any other result, an
// input_required one or one with an error, which DecodeCallToolResult then
// reads as before, resultType first, for the same answer and the same
// error.
func decodeCompleteCallTool(raw json.RawMessage, r Era) (out *mcpbridgev1.CallToolResponse, ok bool) {
	if !rawjson.IsObject(raw) {
		return nil, false
	}
	out, ok = &mcpbridgev1.CallToolResponse{}, true
	var rt json.RawMessage
	rawjson.EachRawField(raw, func(rawKey, v json.RawMessage) bool {
		key := memberKey(rawKey)
		switch {
		case r.modern && key == "resultType":
			rt = v
		case !isNull(v):
			ok = callToolMember(out, key, v, r) == nil
		}
		return ok
	})
	if ok && rt != nil && !isNull(rt) {
		s, err := jsonString(rt)
		ok = err == nil && s == resultComplete
	}
	return out, ok
}

// callToolMember reads member k of a CallToolResult into out.
func callToolMember(out *mcpbridgev1.CallToolResponse, k string, v json.RawMessage, r Era) (err error) {
	switch k {
	case "content":
		out.Content, err = decodeContents(v, r)
	case "structuredContent":
		out.StructuredContent, err = Value(v)
	case "isError":
		out.IsError, err = jsonBool(v)
	case "_meta":
		out.Meta, err = Struct(v)
	}
	return err
}

func decodeContents(raw json.RawMessage, r Era) ([]*mcpbridgev1.Content, error) {
	var out []*mcpbridgev1.Content
	err := elements(raw, func(_ int, v json.RawMessage) error {
		out = append(out, decodeContent(v, r))
		return nil
	})
	return out, err
}

// textBlock is a text Content block with its oneof wrapper and its
// TextContent, allocated as one.
type textBlock struct {
	c mcpbridgev1.Content
	k mcpbridgev1.Content_Text
	t mcpbridgev1.TextContent
}

// decodeContent reads one content block. It never fails: a block it cannot
// model is other_json.
func decodeContent(raw json.RawMessage, r Era) *mcpbridgev1.Content {
	var typ string
	if v, ok := rawjson.Member(raw, "type"); ok {
		typ, _ = rawjson.StringValue(v)
	}
	var c *mcpbridgev1.Content
	var err error
	switch typ {
	case "text":
		// One allocation for the three (the structValue of
		// structjson.go): most blocks are text.
		o := &textBlock{}
		o.k.Text, o.c.Block = &o.t, &o.k
		b := &o.t
		c = &o.c
		err = members(raw, "text", func(k string, v json.RawMessage) (err error) {
			switch k {
			case "text":
				b.Text, err = jsonString(v)
			case "annotations":
				b.Annotations, err = Struct(v)
			case "_meta":
				b.Meta, err = Struct(v)
			}
			return err
		})
	case "image", "audio":
		var data []byte
		var mime string
		var ann, meta *structpb.Struct
		err = members(raw, typ, func(k string, v json.RawMessage) (err error) {
			switch k {
			case "data":
				data, err = jsonBase64(v)
			case "mimeType":
				mime, err = jsonString(v)
			case "annotations":
				ann, err = Struct(v)
			case "_meta":
				meta, err = Struct(v)
			}
			return err
		})
		if typ == "image" {
			c = &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Image{Image: &mcpbridgev1.ImageContent{Data: data, MimeType: mime, Annotations: ann, Meta: meta}}}
		} else {
			c = &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Audio{Audio: &mcpbridgev1.AudioContent{Data: data, MimeType: mime, Annotations: ann, Meta: meta}}}
		}
	case "resource_link":
		var res *mcpbridgev1.Resource
		res, err = decodeResource(raw, r)
		c = &mcpbridgev1.Content{Block: &mcpbridgev1.Content_ResourceLink{ResourceLink: res}}
	case "resource":
		b := &mcpbridgev1.EmbeddedResource{}
		c = &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Resource{Resource: b}}
		err = members(raw, "resource", func(k string, v json.RawMessage) (err error) {
			switch k {
			case "resource":
				b.Resource, err = decodeResourceContents(v)
			case "annotations":
				b.Annotations, err = Struct(v)
			case "_meta":
				b.Meta, err = Struct(v)
			}
			return err
		})
		if err == nil && b.Resource == nil {
			err = errors.New("resource block without resource")
		}
	default:
		err = errors.New("unknown block type")
	}
	if err != nil {
		return &mcpbridgev1.Content{Block: &mcpbridgev1.Content_OtherJson{OtherJson: string(raw)}}
	}
	return c
}

// decodeResourceContents reads TextResourceContents or
// BlobResourceContents; with both, text wins.
func decodeResourceContents(raw json.RawMessage) (*mcpbridgev1.ResourceContents, error) {
	rc := &mcpbridgev1.ResourceContents{}
	var text *string
	var blob []byte
	err := members(raw, "contents", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "uri":
			rc.Uri, err = jsonString(v)
		case "mimeType":
			rc.MimeType, err = jsonString(v)
		case "text":
			var s string
			s, err = jsonString(v)
			text = &s
		case "blob":
			blob, err = jsonBase64(v)
			if blob == nil {
				blob = []byte{}
			}
		case "_meta":
			rc.Meta, err = Struct(v)
		}
		return err
	})
	switch {
	case text != nil:
		rc.Contents = &mcpbridgev1.ResourceContents_Text{Text: *text}
	case blob != nil:
		rc.Contents = &mcpbridgev1.ResourceContents_Blob{Blob: blob}
	}
	return rc, err
}

func DecodeReadResourceResult(raw json.RawMessage, r Era) (*mcpbridgev1.ReadResourceResponse, error) {
	ir, err := mrtr(raw, r)
	if err != nil || ir != nil {
		return &mcpbridgev1.ReadResourceResponse{InputRequired: ir}, err
	}
	out := &mcpbridgev1.ReadResourceResponse{}
	var p page
	err = members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "contents":
			err = elements(v, func(_ int, v json.RawMessage) error {
				rc, err := decodeResourceContents(v)
				out.Contents = append(out.Contents, rc)
				return err
			})
		case "_meta":
			out.Meta, err = Struct(v)
		default:
			if r.modern {
				err = p.cacheHints(k, v)
			}
		}
		return err
	})
	out.Ttl, out.CacheScope = p.ttl, p.scope
	return out, err
}

func DecodeGetPromptResult(raw json.RawMessage, r Era) (*mcpbridgev1.GetPromptResponse, error) {
	ir, err := mrtr(raw, r)
	if err != nil || ir != nil {
		return &mcpbridgev1.GetPromptResponse{InputRequired: ir}, err
	}
	out := &mcpbridgev1.GetPromptResponse{}
	err = members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "description":
			out.Description, err = jsonString(v)
		case "messages":
			err = elements(v, func(_ int, v json.RawMessage) error {
				m, err := decodePromptMessage(v, r)
				out.Messages = append(out.Messages, m)
				return err
			})
		case "_meta":
			out.Meta, err = Struct(v)
		}
		return err
	})
	return out, err
}

func decodePromptMessage(raw json.RawMessage, r Era) (*mcpbridgev1.PromptMessage, error) {
	m := &mcpbridgev1.PromptMessage{}
	err := members(raw, "message", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "role":
			var role string
			role, err = jsonString(v)
			m.Role = roleOf(role)
		case "content":
			m.Content = decodeContent(v, r)
		}
		return err
	})
	return m, err
}

func roleOf(s string) mcpbridgev1.Role {
	switch s {
	case "user":
		return mcpbridgev1.Role_ROLE_USER
	case "assistant":
		return mcpbridgev1.Role_ROLE_ASSISTANT
	}
	return mcpbridgev1.Role_ROLE_UNSPECIFIED
}

func DecodeCompleteResult(raw json.RawMessage, r Era) (*mcpbridgev1.CompleteResponse, error) {
	if err := completeOnly(raw, r); err != nil {
		return nil, err
	}
	out := &mcpbridgev1.CompleteResponse{}
	err := members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "completion":
			err = members(v, "completion", func(k string, v json.RawMessage) (err error) {
				switch k {
				case "values":
					out.Values, err = jsonStrings(v)
				case "total":
					// A total this API cannot hold (negative, fractional,
					// above 2^32-1) is left unset: "unknown".
					if n, err := jsonInt(v); err == nil && n >= 0 && n <= math.MaxUint32 {
						t := uint32(n)
						out.Total = &t
					}
				case "hasMore":
					out.HasMore, err = jsonBool(v)
				}
				return err
			})
		case "_meta":
			out.Meta, err = Struct(v)
		}
		return err
	})
	return out, err
}
