package mcphttp

import (
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// checkOrigin enforces the transport's rule against DNS rebinding: the
// Origin, when there is one, must be a loopback origin (localhost,
// 127.0.0.1 or [::1], any port) or one of Config.Origins, and unless
// Config.AnyHost the Host must be a loopback name too. A rebinding page has
// its own name in both, and a browser sends Origin on every cross-origin
// request and every POST.
func (a *Adapter) checkOrigin(r *http.Request) error {
	return CheckOrigin(r, a.cfg.Origins, a.cfg.AnyHost)
}

// CheckOrigin is the transport's rule against DNS rebinding, for every
// path of a listener: unless anyHost, the Host must be a loopback name;
// an Origin must be a loopback origin or one of origins (canonical, as
// CanonicalOrigin returns them; "*" allows any). Its error says which.
func CheckOrigin(r *http.Request, origins []string, anyHost bool) error {
	if !anyHost && !loopbackHost(r.Host) {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Forbidden: Host %q is not a loopback name", r.Host)
	}
	o := r.Header.Get("Origin")
	if o == "" || slices.Contains(origins, "*") {
		return nil
	}
	c, ok := CanonicalOrigin(o)
	if !ok || !(slices.Contains(origins, c) || loopbackHost(strings.TrimPrefix(strings.TrimPrefix(c, "http://"), "https://"))) {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Forbidden: Origin %q is not allowed", o)
	}
	return nil
}

// CanonicalOrigin returns an origin as a browser serializes it: an http or
// https scheme and a host, lowercase, without a default port or a path.
func CanonicalOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	switch {
	case scheme != "http" && scheme != "https":
		return "", false
	case port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443"):
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host, true
	}
	return scheme + "://" + net.JoinHostPort(host, port), true
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// nameParam is the body field that Mcp-Name mirrors, per method.
var nameParam = map[string]string{
	"tools/call":     "name",
	"prompts/get":    "name",
	"resources/read": "uri",
	// The tasks extension's requests name their task.
	"tasks/get":    "taskId",
	"tasks/update": "taskId",
	"tasks/cancel": "taskId",
}

// checkHeaders validates the headers a 2026-07-28 request mirrors from its
// body (Streamable HTTP, "Server Validation"). It returns a -32020 error on
// the first disagreement:
//
//   - MCP-Protocol-Version must equal _meta's protocolVersion. A body
//     without one is left for the server to reject: the -32602 it owes such
//     a request is part of what is being scored.
//   - Mcp-Method must equal the method (values are case-sensitive).
//   - Mcp-Name must equal params.name (tools/call, prompts/get),
//     params.uri (resources/read) or params.taskId (tasks/get, tasks/update,
//     tasks/cancel), and is required when the body has one.
//
// Values are compared after trimming optional whitespace, and Mcp-Name after
// decoding the =?base64?…?= form.
func checkHeaders(h http.Header, m *wire.Message, mv *metaView) error {
	if v, ok := mv.versionString(); ok {
		got, present := header(h, "MCP-Protocol-Version")
		switch {
		case !present:
			return mismatch("missing MCP-Protocol-Version header")
		case got != v:
			return mismatch("MCP-Protocol-Version header %q does not match _meta protocolVersion %q", got, v)
		}
	}
	got, present := header(h, "Mcp-Method")
	switch {
	case !present:
		return mismatch("missing Mcp-Method header")
	case got != m.Method:
		return mismatch("Mcp-Method header %q does not match method %q", got, m.Method)
	}
	field, ok := nameParam[m.Method]
	if !ok {
		return nil
	}
	var want string
	raw, inBody := rawjson.Member(m.Params, field)
	if inBody {
		if want, inBody = rawjson.StringValue(raw); !inBody {
			return nil // not a string: the server rejects the params
		}
	}
	got, present = header(h, "Mcp-Name")
	switch {
	case !present && !inBody:
		return nil
	case !present:
		return mismatch("missing Mcp-Name header for params.%s", field)
	}
	name, err := decodeHeaderValue(got)
	switch {
	case err != nil:
		return mismatch("Mcp-Name header: %v", err)
	case !inBody:
		return mismatch("Mcp-Name header %q but no params.%s", name, field)
	case name != want:
		return mismatch("Mcp-Name header %q does not match params.%s %q", name, field, want)
	}
	return nil
}

func mismatch(format string, args ...any) error {
	return jsonrpc.Errorf(jsonrpc.CodeHeaderMismatch, "Header mismatch: "+format, args...)
}

// header returns a header's value with optional whitespace trimmed
// (RFC 9110 §5.5); repeated fields are joined as a list would be.
func header(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.Trim(strings.Join(vs, ","), " \t"), true
}

// Errors of decodeHeaderValue.
var (
	errBadBase64 = errors.New("invalid =?base64?…?= value")
	errBadChars  = errors.New("value has characters outside visible ASCII, space and tab")
)

// decodeHeaderValue decodes a mirrored header value: a value wrapped as
// =?base64?…?= (markers case-sensitive) is standard Base64, padded, of UTF-8
// text; any other value is literal and must be visible ASCII, space or tab.
func decodeHeaderValue(v string) (string, error) {
	const prefix, suffix = "=?base64?", "?="
	if len(v) >= len(prefix)+len(suffix) && strings.HasPrefix(v, prefix) && strings.HasSuffix(v, suffix) {
		enc := v[len(prefix) : len(v)-len(suffix)]
		// The decoder skips CR and LF even in strict mode; a header
		// value may not hold them.
		if strings.ContainsFunc(enc, func(r rune) bool { return r == '\r' || r == '\n' }) {
			return "", errBadBase64
		}
		b, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil || !utf8.Valid(b) {
			return "", errBadBase64
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", errBadChars
		}
	}
	return v, nil
}
