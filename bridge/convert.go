package bridge

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// This file is the one place where MCP's JSON meets the typed messages of
// mcpbridge.v1 (bridge.proto, "JSON payloads"; MCP.md §8 and §9). The rules:
//
//   - Child results are read member by member from the compact JSON the
//     stdio Client returns, never through Go structs, so key matching is
//     exact and nothing is decoded twice. null counts as absent, as MCP's
//     optional fields are. Members the typed message does not model are left
//     out: Call returns them.
//   - Object-valued members (schemas, annotations, `_meta`, arguments) become
//     google.protobuf.Struct through protojson, verbatim apart from numbers,
//     which Struct keeps as doubles by design.
//   - A content block this API cannot model (an unknown `type`, or a known
//     type with members of the wrong JSON type or bad base64) becomes
//     other_json with the block's JSON text, so nothing is silently dropped.
//     Anything else of the wrong shape makes the whole result unreadable:
//     the caller gets INTERNAL and can fetch it with Call.
//   - Fields are era-gated as bridge.proto's "Eras:" tags say: resultType,
//     ttlMs, cacheScope and MRTR are read from 2026-07-28 children only,
//     icons from 2025-11-25 and 2026-07-28 children, execution from
//     2025-11-25 children only. Nothing is synthesized for a legacy child.
//   - Requests are written by appendValue and friends: compact JSON with
//     Struct keys sorted (a Struct is a map; sorting makes the bytes
//     deterministic), numbers formatted as encoding/json does.

// eraRules are the parts of a child's protocol revision that decide which
// fields the typed messages carry.
type eraRules struct {
	version   string
	modern    bool // 2026-07-28: resultType, ttlMs, cacheScope, MRTR, logLevel in _meta
	icons     bool // 2025-11-25 and 2026-07-28
	execution bool // 2025-11-25 only
}

func rulesFor(version string) eraRules {
	return eraRules{
		version:   version,
		modern:    protocol.Modern(version),
		icons:     version == protocol.Version20260728 || version == protocol.Version20251125,
		execution: version == protocol.Version20251125,
	}
}

// Result types of 2026-07-28 results (MCP.md §3.3).
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

// ---- reading child results ----

func isNull(v json.RawMessage) bool { return string(v) == "null" }

// members calls fn for each member of the JSON object raw, skipping null
// values; what names raw in errors. fn's error ends the walk.
func members(raw json.RawMessage, what string, fn func(key string, v json.RawMessage) error) error {
	if !rawjson.IsObject(raw) {
		return fmt.Errorf("%s is not a JSON object", what)
	}
	var err error
	rawjson.EachField(raw, func(f rawjson.Field) bool {
		if isNull(f.Value) {
			return true
		}
		if err = fn(f.Key, f.Value); err != nil {
			err = fmt.Errorf("%s.%s: %w", what, f.Key, err)
		}
		return err == nil
	})
	return err
}

// elements calls fn for each element of the JSON array raw.
func elements(raw json.RawMessage, fn func(i int, v json.RawMessage) error) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return errors.New("not a JSON array")
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		start := skipSpace(raw, i)
		end, err := skipValue(raw, start)
		if err != nil {
			return err
		}
		if err := fn(n, raw[start:end]); err != nil {
			return fmt.Errorf("[%d]: %w", n, err)
		}
		i = skipSpace(raw, end)
		switch {
		case i < len(raw) && raw[i] == ',':
			i++
		case i < len(raw) && raw[i] == ']':
			return nil
		default:
			return errBadJSON
		}
	}
}

func jsonString(v json.RawMessage) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", errors.New("not a JSON string")
	}
	str, end, err := parseString(v, 0)
	if err == nil && end != len(v) {
		err = errBadJSON
	}
	return str, err
}

func jsonBool(v json.RawMessage) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("not a JSON boolean")
}

func jsonNumber(v json.RawMessage) (float64, error) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, errors.New("not a JSON number")
	}
	return strconv.ParseFloat(string(v), 64)
}

// jsonInt reads a JSON number that is an integer (1 and 1.0 alike).
func jsonInt(v json.RawMessage) (int64, error) {
	if n, ok := wire.IntID(v); ok {
		return n, nil
	}
	f, err := jsonNumber(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, errors.New("not an integer")
	}
	return int64(f), nil
}

func jsonStrings(v json.RawMessage) ([]string, error) {
	var out []string
	err := elements(v, func(_ int, el json.RawMessage) error {
		s, err := jsonString(el)
		out = append(out, s)
		return err
	})
	return out, err
}

// jsonStruct converts a JSON object to a Struct.
func jsonStruct(v json.RawMessage) (*structpb.Struct, error) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	st, end, err := parseObject(v, i, 0)
	if err == nil && skipSpace(v, end) != len(v) {
		err = errBadJSON
	}
	return st, err
}

// jsonValue converts any JSON value to a Value.
func jsonValue(v json.RawMessage) (*structpb.Value, error) {
	val, end, err := parseValue(v, 0, 0)
	if err == nil && skipSpace(v, end) != len(v) {
		err = errBadJSON
	}
	return val, err
}

// jsonBase64 decodes MCP's base64 (standard alphabet; missing padding is
// tolerated).
func jsonBase64(v json.RawMessage) ([]byte, error) {
	s, err := jsonString(v)
	if err != nil {
		return nil, err
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// resultType returns a 2026-07-28 result's resultType: "complete" when
// missing (MCP.md §1), and always "complete" for a legacy child, whose
// results have none.
func resultType(raw json.RawMessage, r eraRules) (string, error) {
	if !r.modern {
		return resultComplete, nil
	}
	v, ok := rawjson.Member(raw, "resultType")
	if !ok || isNull(v) {
		return resultComplete, nil
	}
	return jsonString(v)
}

// completeOnly refuses a 2026-07-28 result that is not complete, for methods
// that cannot answer input_required.
func completeOnly(raw json.RawMessage, r eraRules) error {
	rt, err := resultType(raw, r)
	if err != nil {
		return fmt.Errorf("result.resultType: %w", err)
	}
	if rt != resultComplete {
		return fmt.Errorf("resultType %q is not one this RPC can return", rt)
	}
	return nil
}

// mrtr reads a 2026-07-28 tools/call, prompts/get or resources/read result's
// resultType: nil for a complete result, the InputRequired for an
// input_required one, and an error for any other (an extension's "task"
// cannot be told in the typed messages; Call returns it).
func mrtr(raw json.RawMessage, r eraRules) (*mcpbridgev1.InputRequired, error) {
	rt, err := resultType(raw, r)
	switch {
	case err != nil:
		return nil, fmt.Errorf("result.resultType: %w", err)
	case rt == resultComplete:
		return nil, nil
	case rt != resultInputRequired:
		return nil, fmt.Errorf("resultType %q is not one this RPC can return", rt)
	}
	ir := &mcpbridgev1.InputRequired{}
	// Other members (one real server adds content:null) are tolerated and
	// left out (MCP.md §3.5).
	err = members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "inputRequests":
			ir.InputRequests, err = jsonStruct(v)
		case "requestState":
			ir.RequestState, err = jsonString(v)
		case "_meta":
			ir.Meta, err = jsonStruct(v)
		}
		return err
	})
	return ir, err
}

// page is what every list result carries besides its items.
type page struct {
	next  string
	meta  *structpb.Struct
	ttl   *durationpb.Duration
	scope mcpbridgev1.CacheScope
}

// decodePage reads a list result: the items under itemsKey through item,
// and nextCursor, _meta and (2026-07-28) ttlMs and cacheScope.
func decodePage(raw json.RawMessage, r eraRules, itemsKey string, item func(i int, v json.RawMessage) error) (page, error) {
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
			p.meta, err = jsonStruct(v)
		default:
			if r.modern {
				err = p.cacheHints(k, v)
			}
		}
		return err
	})
	return p, err
}

// cacheHints reads ttlMs and cacheScope (MCP.md §3.3). A negative ttlMs
// counts as 0; ttl stays unset only when the child sent none.
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

func decodeListTools(raw json.RawMessage, r eraRules) (*mcpbridgev1.ListToolsResponse, error) {
	out := &mcpbridgev1.ListToolsResponse{}
	p, err := decodePage(raw, r, "tools", func(i int, v json.RawMessage) error {
		t, err := decodeTool(v, r)
		out.Tools = append(out.Tools, t)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func decodeListResources(raw json.RawMessage, r eraRules) (*mcpbridgev1.ListResourcesResponse, error) {
	out := &mcpbridgev1.ListResourcesResponse{}
	p, err := decodePage(raw, r, "resources", func(i int, v json.RawMessage) error {
		res, err := decodeResource(v, r)
		out.Resources = append(out.Resources, res)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func decodeListResourceTemplates(raw json.RawMessage, r eraRules) (*mcpbridgev1.ListResourceTemplatesResponse, error) {
	out := &mcpbridgev1.ListResourceTemplatesResponse{}
	p, err := decodePage(raw, r, "resourceTemplates", func(i int, v json.RawMessage) error {
		t, err := decodeResourceTemplate(v, r)
		out.ResourceTemplates = append(out.ResourceTemplates, t)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func decodeListPrompts(raw json.RawMessage, r eraRules) (*mcpbridgev1.ListPromptsResponse, error) {
	out := &mcpbridgev1.ListPromptsResponse{}
	p, err := decodePage(raw, r, "prompts", func(i int, v json.RawMessage) error {
		pr, err := decodePrompt(v, r)
		out.Prompts = append(out.Prompts, pr)
		return err
	})
	out.NextCursor, out.Meta, out.Ttl, out.CacheScope = p.next, p.meta, p.ttl, p.scope
	return out, err
}

func decodeTool(raw json.RawMessage, r eraRules) (*mcpbridgev1.Tool, error) {
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
			t.InputSchema, err = jsonStruct(v)
		case "outputSchema":
			t.OutputSchema, err = jsonStruct(v)
		case "annotations":
			t.Annotations, err = jsonStruct(v)
		case "icons":
			if r.icons {
				t.Icons, err = decodeIcons(v)
			}
		case "execution":
			if r.execution {
				t.Execution, err = jsonStruct(v)
			}
		case "_meta":
			t.Meta, err = jsonStruct(v)
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
func decodeResource(raw json.RawMessage, r eraRules) (*mcpbridgev1.Resource, error) {
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
			res.Annotations, err = jsonStruct(v)
		case "icons":
			if r.icons {
				res.Icons, err = decodeIcons(v)
			}
		case "_meta":
			res.Meta, err = jsonStruct(v)
		}
		return err
	})
	return res, err
}

func decodeResourceTemplate(raw json.RawMessage, r eraRules) (*mcpbridgev1.ResourceTemplate, error) {
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
			t.Annotations, err = jsonStruct(v)
		case "icons":
			if r.icons {
				t.Icons, err = decodeIcons(v)
			}
		case "_meta":
			t.Meta, err = jsonStruct(v)
		}
		return err
	})
	return t, err
}

func decodePrompt(raw json.RawMessage, r eraRules) (*mcpbridgev1.Prompt, error) {
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
			p.Meta, err = jsonStruct(v)
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

// decodeCallToolResult reads a CallToolResult, or a 2026-07-28
// input_required result.
func decodeCallToolResult(raw json.RawMessage, r eraRules) (*mcpbridgev1.CallToolResponse, error) {
	ir, err := mrtr(raw, r)
	if err != nil || ir != nil {
		return &mcpbridgev1.CallToolResponse{InputRequired: ir}, err
	}
	out := &mcpbridgev1.CallToolResponse{}
	err = members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "content":
			out.Content, err = decodeContents(v, r)
		case "structuredContent":
			out.StructuredContent, err = jsonValue(v)
		case "isError":
			out.IsError, err = jsonBool(v)
		case "_meta":
			out.Meta, err = jsonStruct(v)
		}
		return err
	})
	return out, err
}

func decodeContents(raw json.RawMessage, r eraRules) ([]*mcpbridgev1.Content, error) {
	var out []*mcpbridgev1.Content
	err := elements(raw, func(_ int, v json.RawMessage) error {
		out = append(out, decodeContent(v, r))
		return nil
	})
	return out, err
}

// decodeContent reads one content block. It never fails: a block it cannot
// model is other_json.
func decodeContent(raw json.RawMessage, r eraRules) *mcpbridgev1.Content {
	var typ string
	if v, ok := rawjson.Member(raw, "type"); ok {
		typ, _ = rawjson.StringValue(v)
	}
	var c *mcpbridgev1.Content
	var err error
	switch typ {
	case "text":
		b := &mcpbridgev1.TextContent{}
		c = &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Text{Text: b}}
		err = members(raw, "text", func(k string, v json.RawMessage) (err error) {
			switch k {
			case "text":
				b.Text, err = jsonString(v)
			case "annotations":
				b.Annotations, err = jsonStruct(v)
			case "_meta":
				b.Meta, err = jsonStruct(v)
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
				ann, err = jsonStruct(v)
			case "_meta":
				meta, err = jsonStruct(v)
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
				b.Annotations, err = jsonStruct(v)
			case "_meta":
				b.Meta, err = jsonStruct(v)
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
			rc.Meta, err = jsonStruct(v)
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

func decodeReadResourceResult(raw json.RawMessage, r eraRules) (*mcpbridgev1.ReadResourceResponse, error) {
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
			out.Meta, err = jsonStruct(v)
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

func decodeGetPromptResult(raw json.RawMessage, r eraRules) (*mcpbridgev1.GetPromptResponse, error) {
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
			out.Meta, err = jsonStruct(v)
		}
		return err
	})
	return out, err
}

func decodePromptMessage(raw json.RawMessage, r eraRules) (*mcpbridgev1.PromptMessage, error) {
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

func decodeCompleteResult(raw json.RawMessage, r eraRules) (*mcpbridgev1.CompleteResponse, error) {
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
			out.Meta, err = jsonStruct(v)
		}
		return err
	})
	return out, err
}

// Log levels in MCP's order, lowest first; the index is the LoggingLevel.
var logLevels = append([]string{""}, protocol.LogLevels...)

// levelName is the MCP name of a LoggingLevel, "" for UNSPECIFIED or an
// unknown value.
func levelName(l mcpbridgev1.LoggingLevel) string {
	if l <= 0 || int(l) >= len(logLevels) {
		return ""
	}
	return logLevels[l]
}

func levelOf(s string) mcpbridgev1.LoggingLevel {
	if i := slices.Index(logLevels, s); i > 0 {
		return mcpbridgev1.LoggingLevel(i)
	}
	return mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED
}

// decodeLog reads a notifications/message's params {level, logger?, data}.
// Members of the wrong type are left out rather than losing the message.
func decodeLog(params json.RawMessage) *mcpbridgev1.LogMessage {
	m := &mcpbridgev1.LogMessage{}
	_ = members(params, "params", func(k string, v json.RawMessage) error {
		switch k {
		case "level":
			s, _ := rawjson.StringValue(v)
			m.Level = levelOf(s)
		case "logger":
			m.Logger, _ = rawjson.StringValue(v)
		case "data":
			m.Data, _ = jsonValue(v)
		}
		return nil
	})
	return m
}

func progressOf(p stdio.Progress) *mcpbridgev1.Progress {
	return &mcpbridgev1.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}
}

// ---- JSON text to Struct and Value ----
//
// The stdio Client hands over results it has validated, so this parser
// need not report where JSON goes wrong; it still never panics on bad
// input. It is what protojson does for Struct and Value (numbers become
// doubles; one outside the float64 range is an error), at a fraction of the
// cost: results are decoded on every typed call. With duplicate keys the
// last one wins, as rawjson.Member has it.

var errBadJSON = errors.New("malformed JSON")

// maxJSONDepth bounds nesting, so that a deep result cannot exhaust the
// stack.
const maxJSONDepth = 10000

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errBadJSON
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				j, err := skipString(b, i)
				if err != nil {
					return j, err
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return i, errBadJSON
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return i, errBadJSON
	}
	return j, nil
}

// skipString returns the end of the JSON string that starts at b[i].
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return i, errBadJSON
}

// parseString decodes the JSON string that starts at b[i].
func parseString(b []byte, i int) (string, int, error) {
	start := i + 1
	j := start
	for j < len(b) && b[j] != '"' && b[j] != '\\' {
		j++
	}
	if j < len(b) && b[j] == '"' { // no escapes: the common case
		return string(b[start:j]), j + 1, nil
	}
	out := append(make([]byte, 0, j-start+16), b[start:j]...)
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			return string(out), j + 1, nil
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			break
		}
		switch e := b[j+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b, j+2)
			if !ok {
				return "", j, errBadJSON
			}
			j += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(b, j+2); ok && j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						j += 6
						continue
					}
				}
				r = utf8.RuneError // a lone surrogate, as encoding/json has it
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", j, errBadJSON
		}
		j += 2
	}
	return "", j, errBadJSON
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// parseValue decodes the JSON value that starts at b[i] (after any space).
func parseValue(b []byte, i, depth int) (*structpb.Value, int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || depth > maxJSONDepth {
		return nil, i, errBadJSON
	}
	switch c := b[i]; c {
	case '{':
		st, j, err := parseObject(b, i, depth+1)
		return structpb.NewStructValue(st), j, err
	case '[':
		list := &structpb.ListValue{}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return structpb.NewListValue(list), i + 1, nil
		}
		for {
			v, j, err := parseValue(b, i, depth+1)
			if err != nil {
				return nil, j, err
			}
			list.Values = append(list.Values, v)
			i = skipSpace(b, j)
			switch {
			case i < len(b) && b[i] == ',':
				i++
			case i < len(b) && b[i] == ']':
				return structpb.NewListValue(list), i + 1, nil
			default:
				return nil, i, errBadJSON
			}
		}
	case '"':
		str, j, err := parseString(b, i)
		return structpb.NewStringValue(str), j, err
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if lit[0] == c && len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
				switch c {
				case 't':
					return structpb.NewBoolValue(true), i + 4, nil
				case 'f':
					return structpb.NewBoolValue(false), i + 5, nil
				}
				return structpb.NewNullValue(), i + 4, nil
			}
		}
		return nil, i, errBadJSON
	}
	j, err := skipValue(b, i)
	if err != nil || !isJSONNumber(b[i:j]) {
		return nil, j, errBadJSON
	}
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil {
		return nil, j, fmt.Errorf("the number %s does not fit a double", b[i:j])
	}
	return structpb.NewNumberValue(f), j, nil
}

// isJSONNumber reports whether tok is a JSON number (RFC 8259 §6), which
// strconv.ParseFloat alone does not check (it takes "Inf", "0x1p3", "+1").
func isJSONNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}

// parseObject decodes the JSON object that starts at b[i].
func parseObject(b []byte, i, depth int) (*structpb.Struct, int, error) {
	st := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return st, i + 1, nil
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return nil, i, errBadJSON
		}
		key, j, err := parseString(b, i)
		if err != nil {
			return nil, j, err
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return nil, i, errBadJSON
		}
		v, j, err := parseValue(b, i+1, depth)
		if err != nil {
			return nil, j, err
		}
		st.Fields[key] = v
		i = skipSpace(b, j)
		switch {
		case i < len(b) && b[i] == ',':
			i++
		case i < len(b) && b[i] == '}':
			return st, i + 1, nil
		default:
			return nil, i, errBadJSON
		}
	}
}

// ---- writing requests ----

// object builds a compact JSON object member by member.
type object struct {
	buf []byte
}

func newObject() *object { return &object{buf: append(make([]byte, 0, 128), '{')} }

func (o *object) key(k string) {
	if len(o.buf) > 1 {
		o.buf = append(o.buf, ',')
	}
	o.buf = rawjson.AppendString(o.buf, k)
	o.buf = append(o.buf, ':')
}

// raw adds a member whose value is valid compact JSON.
func (o *object) raw(k string, v []byte) {
	o.key(k)
	o.buf = append(o.buf, v...)
}

func (o *object) str(k, v string) {
	o.key(k)
	o.buf = rawjson.AppendString(o.buf, v)
}

// strings adds a member whose value is an object of strings, keys sorted.
func (o *object) strings(k string, m map[string]string) {
	o.key(k)
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	o.buf = append(o.buf, '{')
	for i, key := range keys {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		o.buf = rawjson.AppendString(o.buf, key)
		o.buf = append(o.buf, ':')
		o.buf = rawjson.AppendString(o.buf, m[key])
	}
	o.buf = append(o.buf, '}')
}

// structure adds a member whose value is a Struct.
func (o *object) structure(k string, s *structpb.Struct) error {
	o.key(k)
	var err error
	o.buf, err = appendStruct(o.buf, s)
	if err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	return nil
}

func (o *object) bytes() json.RawMessage { return append(o.buf, '}') }

// appendStruct appends s as a JSON object, keys sorted.
func appendStruct(dst []byte, s *structpb.Struct) ([]byte, error) {
	fields := s.GetFields()
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = rawjson.AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, fields[k]); err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// appendValue appends v as JSON. A number that is not finite, or a Value
// with no kind set, is an error, as protojson has it.
func appendValue(dst []byte, v *structpb.Value) ([]byte, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return append(dst, "null"...), nil
	case *structpb.Value_BoolValue:
		return strconv.AppendBool(dst, k.BoolValue), nil
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return nil, fmt.Errorf("the number %v is not valid JSON", k.NumberValue)
		}
		return appendFloat(dst, k.NumberValue), nil
	case *structpb.Value_StringValue:
		return rawjson.AppendString(dst, k.StringValue), nil
	case *structpb.Value_StructValue:
		return appendStruct(dst, k.StructValue)
	case *structpb.Value_ListValue:
		dst = append(dst, '[')
		for i, el := range k.ListValue.GetValues() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, el); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return append(dst, ']'), nil
	}
	return nil, errors.New("a google.protobuf.Value has no kind set")
}

// appendFloat formats f as encoding/json does: integers without a
// fraction, exponents only for very large or small magnitudes.
func appendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' { // e-09 → e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// requestMeta is a typed request's `_meta`: the caller's meta plus the keys
// the bridge derives from typed fields (client_capabilities, log_level).
// Keys the bridge owns in the caller's meta are refused.
type requestMeta struct {
	caller *structpb.Struct
	owned  []string // keys the caller may not set
	extra  []metaMember
}

type metaMember struct {
	key   string
	value []byte // compact JSON
}

// add sets a key the bridge derives; the caller may then not set it.
func (m *requestMeta) add(key string, value []byte) {
	m.owned = append(m.owned, key)
	m.extra = append(m.extra, metaMember{key, value})
}

// write adds `_meta` to o when there is anything to send.
func (m *requestMeta) write(o *object) error {
	for _, k := range append([]string{protocol.MetaProgressToken, protocol.MetaProtocolVersion}, m.owned...) {
		if _, ok := m.caller.GetFields()[k]; ok {
			return fmt.Errorf("meta key %q is set by the bridge", k)
		}
	}
	if len(m.caller.GetFields()) == 0 && len(m.extra) == 0 {
		return nil
	}
	b, err := appendStruct(nil, m.caller)
	if err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	for _, e := range m.extra {
		b, _ = rawjson.SetMember(b, e.key, e.value) // b is an object
	}
	o.raw("_meta", b)
	return nil
}

// mrtrRequest holds the MRTR fields of CallTool, ReadResource, GetPrompt
// and CallToolStream requests.
type mrtrRequest struct {
	inputResponses     *structpb.Struct
	requestState       string
	clientCapabilities *structpb.Struct
}

// write adds inputResponses and requestState to o, and the client
// capabilities to meta, as the child's era allows: a legacy child cannot
// take input_responses or request_state (refused: they would change the
// request's meaning) and gets no clientCapabilities (ignored: its
// capabilities were settled by initialize).
func (q mrtrRequest) write(o *object, meta *requestMeta, r eraRules) error {
	if !r.modern {
		switch {
		case q.inputResponses != nil:
			return fmt.Errorf("input_responses applies to 2026-07-28 children only; this child speaks %s", r.version)
		case q.requestState != "":
			return fmt.Errorf("request_state applies to 2026-07-28 children only; this child speaks %s", r.version)
		}
		return nil
	}
	if q.inputResponses != nil {
		if err := o.structure("inputResponses", q.inputResponses); err != nil {
			return fmt.Errorf("input_responses: %w", err)
		}
	}
	if q.requestState != "" {
		o.str("requestState", q.requestState)
	}
	if q.clientCapabilities != nil {
		b, err := appendStruct(nil, q.clientCapabilities)
		if err != nil {
			return fmt.Errorf("client_capabilities: %w", err)
		}
		meta.add(protocol.MetaClientCapabilities, b)
	}
	return nil
}

// logLevelMeta adds the stream's log level to a 2026-07-28 request's _meta
// (MCP.md §3.1); legacy children log at the session's level instead.
func logLevelMeta(meta *requestMeta, level mcpbridgev1.LoggingLevel, r eraRules) error {
	if level == mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED {
		return nil
	}
	name := levelName(level)
	if name == "" {
		return fmt.Errorf("log_level %d is not a known level", level)
	}
	if r.modern {
		meta.add(protocol.MetaLogLevel, rawjson.AppendString(nil, name))
	}
	return nil
}

func listParams(cursor string, meta *structpb.Struct) (json.RawMessage, error) {
	o := newObject()
	if cursor != "" {
		o.str("cursor", cursor)
	}
	m := requestMeta{caller: meta}
	if err := m.write(o); err != nil {
		return nil, err
	}
	return noParams(o), nil
}

// noParams is o, or nil when o is empty: a legacy child then gets no params
// at all, and a 2026-07-28 child gets {"_meta":…} from the stdio Client.
func noParams(o *object) json.RawMessage {
	if len(o.buf) == 1 {
		return nil
	}
	return o.bytes()
}

func callToolParams(name string, args *structpb.Struct, meta requestMeta, q mrtrRequest, r eraRules) (json.RawMessage, error) {
	if name == "" {
		return nil, errors.New("name is required")
	}
	o := newObject()
	o.str("name", name)
	if args != nil {
		if err := o.structure("arguments", args); err != nil {
			return nil, err
		}
	}
	if err := q.write(o, &meta, r); err != nil {
		return nil, err
	}
	if err := meta.write(o); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func readResourceParams(req *mcpbridgev1.ReadResourceRequest, r eraRules) (json.RawMessage, error) {
	if req.GetUri() == "" {
		return nil, errors.New("uri is required")
	}
	o := newObject()
	o.str("uri", req.GetUri())
	meta := requestMeta{caller: req.GetMeta()}
	q := mrtrRequest{req.GetInputResponses(), req.GetRequestState(), req.GetClientCapabilities()}
	if err := q.write(o, &meta, r); err != nil {
		return nil, err
	}
	if err := meta.write(o); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func getPromptParams(req *mcpbridgev1.GetPromptRequest, r eraRules) (json.RawMessage, error) {
	if req.GetName() == "" {
		return nil, errors.New("name is required")
	}
	o := newObject()
	o.str("name", req.GetName())
	if len(req.GetArguments()) > 0 {
		o.strings("arguments", req.GetArguments())
	}
	meta := requestMeta{caller: req.GetMeta()}
	q := mrtrRequest{req.GetInputResponses(), req.GetRequestState(), req.GetClientCapabilities()}
	if err := q.write(o, &meta, r); err != nil {
		return nil, err
	}
	if err := meta.write(o); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func completeParams(req *mcpbridgev1.CompleteRequest) (json.RawMessage, error) {
	ref := newObject()
	switch v := req.GetRef().(type) {
	case *mcpbridgev1.CompleteRequest_PromptName:
		if v.PromptName == "" {
			return nil, errors.New("prompt_name is empty")
		}
		ref.str("type", "ref/prompt")
		ref.str("name", v.PromptName)
	case *mcpbridgev1.CompleteRequest_ResourceTemplateUri:
		if v.ResourceTemplateUri == "" {
			return nil, errors.New("resource_template_uri is empty")
		}
		ref.str("type", "ref/resource")
		ref.str("uri", v.ResourceTemplateUri)
	default:
		return nil, errors.New("ref is required: set prompt_name or resource_template_uri")
	}
	if req.GetArgumentName() == "" {
		return nil, errors.New("argument_name is required")
	}
	arg := newObject()
	arg.str("name", req.GetArgumentName())
	arg.str("value", req.GetArgumentValue())
	o := newObject()
	o.raw("ref", ref.bytes())
	o.raw("argument", arg.bytes())
	if len(req.GetContextArguments()) > 0 {
		ctx := newObject()
		ctx.strings("arguments", req.GetContextArguments())
		o.raw("context", ctx.bytes())
	}
	meta := requestMeta{caller: req.GetMeta()}
	if err := meta.write(o); err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

// rawStreamParams checks CallStream's params_json, which travels byte for
// byte: a JSON object or empty, whose `_meta` (if any) is an object without
// the progressToken the bridge mints, and without a logLevel when
// log_level puts one there. extra is the _meta the bridge adds (the stdio
// Client merges it without re-encoding the params).
func rawStreamParams(text string, level mcpbridgev1.LoggingLevel, r eraRules) (params, extra json.RawMessage, err error) {
	if text != "" {
		p, err := rawjson.Compact([]byte(text))
		if err != nil || !rawjson.IsObject(p) {
			return nil, nil, errors.New("params_json must be a JSON object")
		}
		params = p
	}
	var own json.RawMessage
	if m, ok := rawjson.Member(params, "_meta"); ok {
		if !rawjson.IsObject(m) {
			return nil, nil, errors.New("params_json._meta must be a JSON object")
		}
		own = m
	}
	if _, ok := rawjson.Member(own, protocol.MetaProgressToken); ok {
		return nil, nil, errors.New("params_json._meta.progressToken is set by the bridge")
	}
	var meta requestMeta
	if err := logLevelMeta(&meta, level, r); err != nil {
		return nil, nil, err
	}
	for _, m := range meta.extra {
		if _, ok := rawjson.Member(own, m.key); ok {
			return nil, nil, errors.New("params_json._meta." + m.key + " is set by the bridge when log_level is set")
		}
		extra, _ = rawjson.SetMember(extra, m.key, m.value)
	}
	return params, extra, nil
}
