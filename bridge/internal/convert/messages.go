package convert

import (
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// This file converts what a child sends outside results: log messages,
// progress, and the events and acknowledgement of a subscription.

// LevelName is the MCP name of a LoggingLevel, "" for UNSPECIFIED or an
// unknown value. The enum's numbers follow protocol.LogLevels.
func LevelName(l mcpbridgev1.LoggingLevel) string {
	if l <= 0 || int(l) > len(protocol.LogLevels) {
		return ""
	}
	return protocol.LogLevels[l-1]
}

// Level is the LoggingLevel of an MCP level name, UNSPECIFIED for a name
// that is no level.
func Level(s string) mcpbridgev1.LoggingLevel {
	return mcpbridgev1.LoggingLevel(protocol.LogRank(s))
}

// Log reads a notifications/message's params {level, logger?, data}.
// Members of the wrong type are left out rather than losing the message.
func Log(params json.RawMessage) *mcpbridgev1.LogMessage {
	m := &mcpbridgev1.LogMessage{}
	_ = members(params, "params", func(k string, v json.RawMessage) error {
		switch k {
		case "level":
			s, _ := rawjson.StringValue(v)
			m.Level = Level(s)
		case "logger":
			m.Logger, _ = rawjson.StringValue(v)
		case "data":
			m.Data, _ = Value(v)
		}
		return nil
	})
	return m
}

// Progress is a stream's progress message for a child's
// notifications/progress.
func Progress(p stdio.Progress) *mcpbridgev1.Progress {
	return &mcpbridgev1.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}
}

// ListenFilter is the notifications object of the subscriptions/listen
// request for a Subscribe request.
func ListenFilter(req *mcpbridgev1.SubscribeRequest) json.RawMessage {
	o := newObject()
	for _, f := range []struct {
		key string
		on  bool
	}{
		{"toolsListChanged", req.GetToolsListChanged()},
		{"promptsListChanged", req.GetPromptsListChanged()},
		{"resourcesListChanged", req.GetResourcesListChanged()},
	} {
		if f.on {
			o.raw(f.key, []byte("true"))
		}
	}
	if uris := req.GetResourceSubscriptions(); len(uris) > 0 {
		o.list("resourceSubscriptions", uris)
	}
	return o.bytes()
}

// Acknowledged reads the notifications object a 2026-07-28 child
// acknowledged. Members of the wrong type read as not granted.
func Acknowledged(accepted json.RawMessage) *mcpbridgev1.SubscriptionAcknowledged {
	ack := &mcpbridgev1.SubscriptionAcknowledged{}
	_ = members(accepted, "notifications", func(k string, v json.RawMessage) error {
		switch k {
		case "toolsListChanged":
			ack.ToolsListChanged, _ = jsonBool(v)
		case "promptsListChanged":
			ack.PromptsListChanged, _ = jsonBool(v)
		case "resourcesListChanged":
			ack.ResourcesListChanged, _ = jsonBool(v)
		case "resourceSubscriptions":
			ack.ResourceSubscriptions, _ = jsonStrings(v)
		}
		return nil
	})
	return ack
}

// Event maps a change notification to a Subscribe stream message, nil for
// one this API does not carry (another method, an update without a URI;
// log messages are Log's).
// The bridge-owned subscription id is left out of its meta.
func Event(method string, params json.RawMessage) *mcpbridgev1.SubscribeResponse {
	meta := eventMeta(params)
	switch method {
	case "notifications/tools/list_changed":
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ToolsListChanged{ToolsListChanged: &mcpbridgev1.ListChanged{Meta: meta}}}
	case "notifications/prompts/list_changed":
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_PromptsListChanged{PromptsListChanged: &mcpbridgev1.ListChanged{Meta: meta}}}
	case "notifications/resources/list_changed":
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ResourcesListChanged{ResourcesListChanged: &mcpbridgev1.ListChanged{Meta: meta}}}
	case "notifications/resources/updated":
		raw, _ := rawjson.Member(params, "uri")
		uri, ok := rawjson.StringValue(raw)
		if !ok || uri == "" {
			return nil
		}
		return &mcpbridgev1.SubscribeResponse{Event: &mcpbridgev1.SubscribeResponse_ResourceUpdated{ResourceUpdated: &mcpbridgev1.ResourceUpdated{Uri: uri, Meta: meta}}}
	}
	return nil
}

// eventMeta is a notification's _meta without the subscription id; nil
// when nothing else is left.
func eventMeta(params json.RawMessage) *structpb.Struct {
	meta, ok := rawjson.Member(params, "_meta")
	if !ok {
		return nil
	}
	meta = rawjson.DeleteMember(meta, protocol.MetaSubscriptionID)
	if len(rawjson.Fields(meta)) == 0 {
		return nil
	}
	st, _ := Struct(meta)
	return st
}
