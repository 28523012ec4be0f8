package mcp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file introduces the server: server/discover (2026-07-28;
// docs/protocol.md, "Discover"), the initialize handshake (2025 revisions;
// docs/protocol.md, "Legacy handshake") and the capabilities both
// advertise.

// serverCapabilities is the ServerCapabilities object: tools, prompts and
// resources once any was registered (each announces list changes, and
// resources take subscriptions), completions once a completion handler
// was, and logging always.
type serverCapabilities struct {
	Completions *struct{} `json:"completions,omitempty"`
	Logging     struct{}  `json:"logging"`
	Prompts     *listCap  `json:"prompts,omitempty"`
	Resources   *resCap   `json:"resources,omitempty"`
	Tools       *listCap  `json:"tools,omitempty"`
	// Tasks is 2025-11-25's tasks capability, Extensions 2026-07-28's
	// (the tasks extension): tasks.go.
	Tasks      *tasksCapability    `json:"tasks,omitempty"`
	Extensions map[string]struct{} `json:"extensions,omitempty"`
}

type listCap struct {
	ListChanged bool `json:"listChanged"`
}

type resCap struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

// capabilities are the ServerCapabilities of an era: tasks advertised as
// the extension on 2026-07-28 and as capabilities.tasks on 2025-11-25
// (2025-06-18 has none).
func (f features) capabilities(version string) serverCapabilities {
	var c serverCapabilities
	switch {
	case !f.tasks:
	case protocol.Modern(version):
		c.Extensions = map[string]struct{}{TasksExtension: {}}
	case version == protocol.Version20251125:
		c.Tasks = &tasksCapability{}
	}
	if f.completions {
		c.Completions = &struct{}{}
	}
	if f.prompts {
		c.Prompts = &listCap{ListChanged: true}
	}
	if f.resources {
		c.Resources = &resCap{Subscribe: true, ListChanged: true}
	}
	if f.tools {
		c.Tools = &listCap{ListChanged: true}
	}
	return c
}

// discover answers server/discover. Its _meta was validated like any
// 2026-07-28 request's (classify), so a missing version is -32602 and a
// legacy one -32022, never -32601 (docs/protocol.md, "Discover").
func (s *Server) discover(_ context.Context, c *call) (*reply, error) {
	r, err := marshalReply(struct {
		SupportedVersions []string           `json:"supportedVersions"`
		Capabilities      serverCapabilities `json:"capabilities"`
		Instructions      string             `json:"instructions,omitempty"`
	}{s.versions, s.features().capabilities(protocol.Version20260728), s.cfg.Instructions})
	if err != nil {
		return nil, err
	}
	r.discover = true
	return r, nil
}

// initialize runs the legacy handshake (docs/stdio.md, "Dialects"): it
// echoes an enabled legacy version or counter-offers the first one, records
// what the client declared, and starts the session's notification pump. A
// runtime without legacy versions answers -32022 listing what it serves.
func (s *Server) initialize(_ context.Context, c *call) (*reply, error) {
	var p struct {
		ProtocolVersion *string         `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if err := json.Unmarshal(c.params, &p); err != nil || p.ProtocolVersion == nil {
		return nil, invalidParams("initialize needs a string protocolVersion")
	}
	if len(s.legacy) == 0 {
		return nil, unsupportedVersion(s.versions, *p.ProtocolVersion)
	}
	caps := ClientCapabilities{}
	if p.Capabilities != nil {
		var err *jsonrpc.Error
		if caps, err = parseCapabilities(p.Capabilities, "capabilities"); err != nil {
			return nil, err
		}
	}
	version := s.legacy[0]
	if slices.Contains(s.legacy, *p.ProtocolVersion) {
		version = *p.ProtocolVersion
	}
	c.version = version // negotiated: what the request's span records
	ss := c.sess
	ss.mu.Lock()
	ss.caps, ss.clientInfo = caps, p.ClientInfo
	ss.active = true
	ss.mu.Unlock()
	ss.startPump()
	return marshalReply(struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    serverCapabilities `json:"capabilities"`
		ServerInfo      json.RawMessage    `json:"serverInfo"`
		Instructions    string             `json:"instructions,omitempty"`
	}{version, s.features().capabilities(version), s.info, s.cfg.Instructions})
}

// setLevel answers logging/setLevel (2025 revisions): the session-wide
// level below which notifications/message is not sent (docs/protocol.md,
// "Logging").
func (s *Server) setLevel(_ context.Context, c *call) (*reply, error) {
	var p struct {
		Level string `json:"level"`
	}
	_ = json.Unmarshal(c.params, &p)
	level, ok := parseLevel(p.Level)
	if !ok {
		return nil, invalidParams("unknown logging level %q", p.Level)
	}
	c.sess.mu.Lock()
	c.sess.level = level
	c.sess.mu.Unlock()
	return &reply{body: json.RawMessage(`{}`)}, nil
}
