package access

// This file is the bridge as an OAuth 2.1 resource server
// (docs/authorization.md): the authorization server's metadata, found from
// its issuer (RFC 8414, else OpenID Connect discovery), gives the key set
// that signs its access tokens; a token is accepted only when it was
// issued for this bridge (its aud is the bridge's resource identifier, or
// the resource of one of its servers, RFC 8707), and its scopes grant what
// it may use through the rules (OAuthConfig.Scopes).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// OAuthConfig makes the bridge an OAuth resource server.
type OAuthConfig struct {
	// Issuer is the authorization server's issuer identifier: https, or
	// http on a loopback address (tests and development). Its metadata
	// gives the JWKS, and a token's iss must be it.
	Issuer string
	// Resource is the bridge's resource identifier (https, or http on a
	// loopback address): a token's aud must be it, or the resource of one
	// server, Resource + "/mcp/" + name, which then may use that server
	// only. It is what the protected resource metadata publishes.
	Resource string
	// Scopes are what each scope grants, in the rules' own terms; the
	// order is the order scopes are named in (scopes_supported, a
	// challenge's scope).
	Scopes []Scope
	// Leeway is the clock skew allowed on exp, nbf and iat (default 30 s,
	// at most 5 min).
	Leeway time.Duration
	// PrincipalClaim names the principal (default "sub"); GroupsClaim the
	// groups, for rules by group (default "groups").
	PrincipalClaim, GroupsClaim string
	// HTTPClient fetches the metadata and the key set (default: one with a
	// 10 s timeout).
	HTTPClient *http.Client
	// RefreshInterval of the key set (default 1 h); a token that names an
	// unknown key id has it fetched again, at most once a minute.
	RefreshInterval time.Duration
}

// Scope is what one OAuth scope grants: a rule whose callers are the
// tokens that hold the scope.
type Scope struct {
	Name                               string
	Servers, Tools, Resources, Prompts []string
}

// maxMetadataBytes bounds the authorization server's metadata document.
const maxMetadataBytes = 1 << 20

// ServerPath is the path under a resource identifier of one server's
// resource: Resource + ServerPath + name.
const ServerPath = "/mcp/"

// oauthState is a resource server's settings, checked.
type oauthState struct {
	cfg     OAuthConfig
	jwksURI string
	parser  *jwt.Parser
	// resource is cfg.Resource without a trailing '/': an identifier
	// with no path is spelled both ways (URL.href adds the '/').
	resource string
}

// ErrInvalidToken is the failure of a bearer token that was presented but
// does not hold here (bad signature, expired, another issuer or another
// resource): RFC 6750's invalid_token. It is an ErrUnauthenticated.
var ErrInvalidToken = fmt.Errorf("%w: invalid token", ErrUnauthenticated)

// loopbackHTTP reports whether u is http on a loopback address, the only
// place a resource server accepts an issuer or resource without TLS.
func loopbackHTTP(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkIdentifier checks an issuer or resource identifier: an absolute
// https URL (http on loopback) without a query or fragment.
func checkIdentifier(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return nil, fmt.Errorf("access: oauth %s %q is not an absolute URL", what, raw)
	case u.Scheme != "https" && !loopbackHTTP(u):
		return nil, fmt.Errorf("access: oauth %s %q must be https (http only on a loopback address)", what, raw)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("access: oauth %s %q has a query or fragment", what, raw)
	}
	return u, nil
}

// newOAuth checks c, reads the issuer's metadata and fetches its key set.
func newOAuth(ctx context.Context, c OAuthConfig) (*oauthState, error) {
	iss, err := checkIdentifier("issuer", c.Issuer)
	if err != nil {
		return nil, err
	}
	if _, err := checkIdentifier("resource", c.Resource); err != nil {
		return nil, err
	}
	switch {
	case c.Leeway < 0 || c.Leeway > 5*time.Minute:
		return nil, errors.New("access: oauth leeway must be between 0 and 5m")
	case len(c.Scopes) == 0:
		return nil, errors.New("access: oauth needs at least one scope: the scopes decide what a token may use")
	}
	seen := map[string]bool{}
	for _, s := range c.Scopes {
		if s.Name == "" || strings.ContainsAny(s.Name, " \"\\") || seen[s.Name] {
			return nil, fmt.Errorf("access: oauth scope %q: a scope is a unique name without spaces or quotes", s.Name)
		}
		seen[s.Name] = true
	}
	if err := scopeRules(c.Scopes).Check(); err != nil {
		return nil, err
	}
	if c.Leeway == 0 {
		c.Leeway = 30 * time.Second
	}
	c.PrincipalClaim = cmp.Or(c.PrincipalClaim, "sub")
	c.GroupsClaim = cmp.Or(c.GroupsClaim, "groups")
	if c.RefreshInterval <= 0 {
		c.RefreshInterval = time.Hour
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	jwksURI, err := discoverJWKS(ctx, c.HTTPClient, iss)
	if err != nil {
		return nil, err
	}
	return &oauthState{
		cfg: c, jwksURI: jwksURI, resource: strings.TrimSuffix(c.Resource, "/"),
		// The audience is checked by aud (the bridge's or a server's
		// resource), not by the parser's single audience.
		parser: jwt.NewParser(jwt.WithValidMethods(algorithms), jwt.WithIssuer(c.Issuer),
			jwt.WithLeeway(c.Leeway), jwt.WithExpirationRequired(), jwt.WithIssuedAt()),
	}, nil
}

// discoverJWKS reads the authorization server's metadata and returns its
// jwks_uri: RFC 8414's well-known URI (the issuer's path appended after
// it), else OpenID Connect discovery's (appended to the issuer). The
// metadata's issuer must be the issuer asked for (RFC 8414, section 3.3),
// and its jwks_uri https, or http on loopback.
func discoverJWKS(ctx context.Context, client *http.Client, iss *url.URL) (string, error) {
	path := strings.TrimSuffix(iss.EscapedPath(), "/")
	base := iss.Scheme + "://" + iss.Host
	var errs []error
	for _, u := range []string{
		base + "/.well-known/oauth-authorization-server" + path,
		base + path + "/.well-known/openid-configuration",
	} {
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := getJSON(ctx, client, u, &md); err != nil {
			errs = append(errs, err)
			continue
		}
		if md.Issuer != iss.String() {
			return "", fmt.Errorf("access: oauth: %s names issuer %q, not %q", u, md.Issuer, iss)
		}
		j, err := url.Parse(md.JWKSURI)
		if err != nil || j.Host == "" || j.Scheme != "https" && !loopbackHTTP(j) {
			return "", fmt.Errorf("access: oauth: %s: jwks_uri %q must be an https URL (http only on loopback)", u, md.JWKSURI)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("access: oauth: no authorization server metadata for issuer %s: %w", iss, errors.Join(errs...))
}

// getJSON fetches a JSON document of at most maxMetadataBytes.
func getJSON(ctx context.Context, client *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	if len(body) > maxMetadataBytes {
		return fmt.Errorf("%s: larger than %d bytes", u, maxMetadataBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	return nil
}

// servers returns the servers a token's audience lets it use: nil for
// every one (the bridge's resource among them), the named servers for
// server resources only; ok is false when no audience is this bridge's.
func (o *oauthState) servers(claims jwt.MapClaims) (servers []string, ok bool) {
	auds, err := claims.GetAudience()
	if err != nil {
		return nil, false
	}
	whole := false
	for _, aud := range auds {
		aud = strings.TrimSuffix(aud, "/")
		if aud == o.resource {
			whole = true
			continue
		}
		if name, ok := strings.CutPrefix(aud, o.resource+ServerPath); ok && name != "" && !strings.ContainsAny(name, "/?#") {
			servers = append(servers, name)
		}
	}
	if whole {
		return nil, true
	}
	return servers, len(servers) > 0
}

// scopesOf reads a token's scopes: RFC 9068's space-separated scope, or
// scp as a list or a string.
func scopesOf(claims jwt.MapClaims) []string {
	var out []string
	for _, key := range []string{"scope", "scp"} {
		switch v := claims[key].(type) {
		case string:
			out = append(out, strings.Fields(v)...)
		case []any:
			for _, s := range v {
				if s, ok := s.(string); ok && s != "" {
					out = append(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parse checks an access token of the authorization server and returns
// its principal.
func (o *oauthState) parse(a *Authenticator, token string) (*Principal, error) {
	claims := jwt.MapClaims{}
	if _, err := o.parser.ParseWithClaims(token, claims, a.oauthKeys.Keyfunc); err != nil {
		return nil, ErrInvalidToken
	}
	servers, ok := o.servers(claims)
	if !ok {
		return nil, ErrInvalidToken
	}
	name, _ := claims[o.cfg.PrincipalClaim].(string)
	if name == "" {
		return nil, ErrInvalidToken
	}
	p := &Principal{Name: name, Method: "oauth", Claims: claims, Groups: groupsOf(claims[o.cfg.GroupsClaim]),
		Scopes: scopesOf(claims), Servers: servers}
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		p.Expires = exp.Add(o.cfg.Leeway) // as the parser accepts it
	}
	return p, nil
}

// scopeRules are the rules of scopes: one a scope, whose caller is a token
// that holds it.
func scopeRules(scopes []Scope) Rules {
	rs := make(Rules, 0, len(scopes))
	for _, s := range scopes {
		rs = append(rs, Rule{Scopes: []string{s.Name}, Servers: s.Servers, Tools: s.Tools, Resources: s.Resources, Prompts: s.Prompts})
	}
	return rs
}

// ScopeRules are the rules the OAuth scopes make, which the bridge adds
// to its own: a scope grants through the same rules as a group or a
// claim. None without OAuth.
func (a *Authenticator) ScopeRules() Rules {
	if a == nil || a.oauth == nil {
		return nil
	}
	return scopeRules(a.oauth.cfg.Scopes)
}

// ResourceServer is what the bridge publishes as an OAuth protected
// resource (RFC 9728): nil without OAuth.
type ResourceServer struct {
	// Resource is the bridge's resource identifier as configured.
	Resource string
	// Issuer is the authorization server's.
	Issuer string
	// Scopes are every scope, in their order.
	Scopes []Scope
}

// ResourceServer returns the bridge's resource server settings, nil
// without OAuth.
func (a *Authenticator) ResourceServer() *ResourceServer {
	if a == nil || a.oauth == nil {
		return nil
	}
	c := a.oauth.cfg
	return &ResourceServer{Resource: c.Resource, Issuer: c.Issuer, Scopes: c.Scopes}
}

// ResourceOf is the resource identifier of server ("" for the bridge as
// a whole).
func (rs *ResourceServer) ResourceOf(server string) string {
	base := strings.TrimSuffix(rs.Resource, "/")
	if server == "" {
		return rs.Resource
	}
	return base + ServerPath + server
}

// MetadataURL is the URL of the protected resource metadata of server's
// resource ("" for the bridge's): RFC 9728's well-known URI, inserted
// between the resource's host and its path.
func (rs *ResourceServer) MetadataURL(server string) string {
	u, err := url.Parse(rs.ResourceOf(server))
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + WellKnownPath + strings.TrimSuffix(u.EscapedPath(), "/")
}

// WellKnownPath is where protected resource metadata is served (RFC 9728).
const WellKnownPath = "/.well-known/oauth-protected-resource"

// ScopesFor are the scopes that let a caller use server at all (name ""),
// or its named tool, resource or prompt: the scopes a challenge asks for.
func (rs *ResourceServer) ScopesFor(server string, kind Kind, name string) []string {
	var out []string
	for _, s := range rs.Scopes {
		// The scope's own rule, for a token that holds it alone.
		if server == "" || scopeRules([]Scope{s}).Allow(&Principal{Scopes: []string{s.Name}}, server, kind, name) {
			out = append(out, s.Name)
		}
	}
	return out
}

// ForServer reports whether p's credential is for server: an OAuth token
// issued for other servers' resources is not (RFC 8707). Every other
// credential, and no principal, is for every server.
func (p *Principal) ForServer(server string) bool {
	return p == nil || p.Servers == nil || slices.Contains(p.Servers, server)
}

// Challenge is the WWW-Authenticate value of a 401 from the door of server
// ("" for the bridge's own paths): where its protected resource metadata
// is and the scopes that let a caller use it (RFC 9728, section 5.1), and
// for a presented token that does not hold, invalid_token (RFC 6750).
func (rs *ResourceServer) Challenge(server string, invalid bool) string {
	v := `Bearer resource_metadata="` + rs.MetadataURL(server) + `"`
	if scopes := rs.ScopesFor(server, Server, ""); len(scopes) > 0 {
		v += `, scope="` + strings.Join(scopes, " ") + `"`
	}
	if invalid {
		v += `, error="invalid_token"`
	}
	return v
}

// InsufficientScope is the WWW-Authenticate value of a 403 for a token
// that lacks a scope: the scopes to ask for (CallError's Scope).
func (rs *ResourceServer) InsufficientScope(server, scope string) string {
	return `Bearer error="insufficient_scope", scope="` + scope + `", resource_metadata="` + rs.MetadataURL(server) + `"`
}
