package httpdoor

// This file is the door's part of the bridge as an OAuth resource server
// (docs/authorization.md): the protected resource metadata (RFC 9728) of
// the bridge and of each server, the 401's WWW-Authenticate that points
// to it, and the 403 that asks for a scope a call needs.

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// serverOfPath is the server an MCP endpoint path names: "" for /mcp
// itself and for every other path.
func serverOfPath(p string) string {
	name, _ := strings.CutPrefix(p, mcphttp.Endpoint+"/")
	if name == p || strings.Contains(name, "/") {
		return ""
	}
	return name
}

// metadataServer is the server whose protected resource metadata path p
// asks for: "" for the bridge's own (ok), a server's name, or ok false
// for a path that is neither. The path is the well-known prefix, then the
// resource identifier's path, then for a server /mcp/{name}.
func metadataServer(rs *access.ResourceServer, p string) (server string, ok bool) {
	rest, ok := strings.CutPrefix(p, access.WellKnownPath)
	if !ok {
		return "", false
	}
	u, err := url.Parse(rs.Resource)
	if err != nil {
		return "", false
	}
	rest, ok = strings.CutPrefix(strings.TrimSuffix(rest, "/"), strings.TrimSuffix(u.EscapedPath(), "/"))
	switch {
	case !ok:
		return "", false
	case rest == "":
		return "", true
	}
	name, ok := strings.CutPrefix(rest, access.ServerPath)
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// isMetadataPath reports whether the guard lets r through without
// credentials: a GET (or HEAD) of protected resource metadata, which is
// public (RFC 9728), when the bridge is a resource server.
func isMetadataPath(r *http.Request, rs *access.ResourceServer) bool {
	return rs != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		strings.HasPrefix(r.URL.Path, access.WellKnownPath)
}

// serveMetadata answers a request for protected resource metadata: the
// resource's identifier, its authorization server, the scopes that let a
// caller use it and how a token is presented (in the Authorization
// header only). A server the bridge does not front is 404.
func (d *Door) serveMetadata(w http.ResponseWriter, r *http.Request, rs *access.ResourceServer) {
	server, ok := metadataServer(rs, r.URL.Path)
	if !ok || server != "" && !d.b.HasServer(server) {
		http.NotFound(w, r)
		return
	}
	name := "mcpbridge"
	if server != "" {
		name += ": " + server
	}
	scopes := rs.ScopesFor(server, access.Server, "")
	body, _ := json.Marshal(struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
		BearerMethods        []string `json:"bearer_methods_supported"`
		ResourceName         string   `json:"resource_name"`
	}{rs.ResourceOf(server), []string{rs.Issuer}, scopes, []string{"header"}, name})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "max-age=300")
	// Public metadata, read by hosts that run in a browser.
	h.Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
}

// challenge is the WWW-Authenticate value of a 401 on r's path.
func challenge(auth *access.Authenticator, r *http.Request, err error) string {
	rs := auth.ResourceServer()
	if rs == nil {
		return `Bearer realm="mcpbridge"`
	}
	return rs.Challenge(serverOfPath(r.URL.Path), errors.Is(err, access.ErrInvalidToken))
}

// scopeChallenge is mcphttp's Config.Challenge: for the door's refusal of
// an OAuth access token that lacks a scope (the JSON-RPC error's data
// says insufficient_scope and the scopes to ask for), the 403's
// WWW-Authenticate. The scopes must be the bridge's own or the token's:
// an error a child made up cannot make a host ask for anything else.
func (d *Door) scopeChallenge(r *http.Request, e *jsonrpc.Error) string {
	rs := d.b.Authenticator().ResourceServer()
	if rs == nil || e.Code != jsonrpc.CodeInvalidParams {
		return ""
	}
	raw, _ := rawjson.Member(e.Data, "error")
	if kind, _ := rawjson.StringValue(raw); kind != "insufficient_scope" {
		return ""
	}
	raw, _ = rawjson.Member(e.Data, "scope")
	scope, _ := rawjson.StringValue(raw)
	p := access.FromContext(r.Context())
	for _, s := range strings.Fields(scope) {
		if p == nil || !slices.Contains(p.Scopes, s) && !slices.ContainsFunc(rs.Scopes, func(c access.Scope) bool { return c.Name == s }) {
			return ""
		}
	}
	if scope == "" {
		return ""
	}
	return rs.InsufficientScope(serverOfPath(r.URL.Path), scope)
}
