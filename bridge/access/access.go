// Package access is who may call the bridge and what they may use
// (docs/security.md): it authenticates a gRPC caller from a bearer API
// key, a JWT checked against a JWKS, or a verified TLS client certificate,
// and evaluates the authorization rules by principal, group or claim, per
// server and per tool, resource and prompt.
package access

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// Principal is an authenticated caller.
type Principal struct {
	// Name identifies the caller: an API key's principal, a JWT's subject
	// (or its configured claim), a client certificate's common name.
	Name string
	// Method is how it was authenticated: "apikey", "jwt", "oauth" (an
	// access token of the OAuth authorization server) or "mtls".
	Method string
	// Groups are the caller's groups: an API key's, or a JWT's groups
	// claim.
	Groups []string
	// Claims are a JWT's claims (nil otherwise).
	Claims jwt.MapClaims
	// Expires is when the credential stops being valid: a JWT's exp
	// plus the leeway (the last moment a check accepts it), a client
	// certificate's NotAfter; zero for an API key, which does not expire.
	Expires time.Time
	// Scopes are an OAuth access token's scopes (nil otherwise), which
	// rules by scope match.
	Scopes []string
	// Servers are the servers an OAuth access token was issued for when
	// its audience is their resources rather than the bridge's (nil: any
	// server; see ForServer).
	Servers []string
}

// ID is the principal's name qualified by how it authenticated:
// "apikey:alice", "jwt:alice", "mtls:alice". Names of different methods
// come from different authorities (the config file, a JWT issuer, a CA),
// so only the ID tells two callers apart: an issuer that signs a token
// with subject alice does not make its holder the API key's alice.
func (p *Principal) ID() string {
	if p == nil {
		return ""
	}
	return p.Method + ":" + p.Name
}

// methods are the values of Principal.Method, which prefix an ID.
var methods = []string{"apikey", "jwt", "oauth", "mtls"}

type principalKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// CallerID names the caller of ctx wherever callers are told apart
// (sessions, limits, a child's server requests and logs): its principal's
// ID, qualified by how it authenticated, so that a JWT's subject alice is
// not the API key alice; "" for an anonymous caller.
func CallerID(ctx context.Context) string {
	if p := FromContext(ctx); p != nil {
		return p.ID()
	}
	return ""
}

// FromContext returns the principal of ctx, nil when the call was not
// authenticated (no authentication is configured).
func FromContext(ctx context.Context) *Principal {
	switch v := ctx.Value(principalKey{}).(type) {
	case *Principal:
		return v
	case *Live:
		p, _ := v.Current()
		return p
	}
	return nil
}

// APIKey is a bearer token of a principal. Only its SHA-256 is stored: a
// key is a long random secret, so a fast hash keeps it safe at rest.
type APIKey struct {
	Principal string
	SHA256    string // hex
	Groups    []string
}

// HashKey is the SHA-256 of an API key as APIKey.SHA256 stores it.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// JWTConfig says how bearer JWTs are checked.
type JWTConfig struct {
	// JWKSURL (HTTPS) or JWKSFile is where the verification keys are. A
	// URL is fetched at start, refreshed every RefreshInterval (default
	// 1 h) and at most once a minute when a token names an unknown key id.
	JWKSURL  string
	JWKSFile string
	// HTTPClient fetches JWKSURL (default: one with a 10 s timeout).
	HTTPClient *http.Client
	// Issuer and Audience must match the token's iss and (one of) aud.
	Issuer   string
	Audience string
	// Leeway is the clock skew allowed on exp, nbf and iat (default 30 s,
	// at most 5 min).
	Leeway time.Duration
	// PrincipalClaim names the principal (default "sub"); GroupsClaim the
	// groups, a string or a list of strings (default "groups").
	PrincipalClaim, GroupsClaim string
	// RefreshInterval of a JWKS URL (default 1 h).
	RefreshInterval time.Duration
}

// algorithms are the signature algorithms accepted: asymmetric only, so
// that neither "none" nor a key set's public key used as an HMAC secret
// passes.
var algorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Config configures an Authenticator. With nothing set, every caller is
// anonymous and allowed.
type Config struct {
	APIKeys []APIKey
	JWT     *JWTConfig
	// OAuth makes the bridge an OAuth resource server (oauth.go).
	OAuth *OAuthConfig
	// MTLS accepts a verified TLS client certificate as the principal
	// named by its common name (the listener must require client
	// certificates for it to mean anything).
	MTLS bool
}

// Authenticator checks the credentials of gRPC calls.
type Authenticator struct {
	keys   map[string]APIKey // by hash
	parser *jwt.Parser
	jwks   keyfunc.Keyfunc
	jwt    *JWTConfig
	mtls   bool

	oauth     *oauthState
	oauthKeys keyfunc.Keyfunc

	// verified caches the JWTs checked lately, by their SHA-256, so that a
	// client that sends the same token with every call pays for one
	// signature verification a minute, not one per call (about 130 µs of
	// CPU for ES256). An entry lives at most a minute and never past the
	// token's exp.
	mu       sync.Mutex
	verified map[[sha256.Size]byte]cachedJWT
}

type cachedJWT struct {
	p     *Principal
	until time.Time
}

// maxCachedJWTs bounds the cache; when full it is emptied.
const maxCachedJWTs = 4096

// ErrUnauthenticated is every authentication failure: its text helps no
// attacker.
var ErrUnauthenticated = errors.New("authentication required")

// New returns the Authenticator of cfg; ctx bounds the JWKS refreshes.
func New(ctx context.Context, cfg Config) (*Authenticator, error) {
	a := &Authenticator{keys: map[string]APIKey{}, mtls: cfg.MTLS, verified: map[[sha256.Size]byte]cachedJWT{}}
	for _, k := range cfg.APIKeys {
		h := strings.ToLower(k.SHA256)
		if b, err := hex.DecodeString(h); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("access: API key of %q: sha256 must be 64 hex digits", k.Principal)
		}
		if k.Principal == "" {
			return nil, errors.New("access: an API key needs a principal")
		}
		if _, dup := a.keys[h]; dup {
			return nil, fmt.Errorf("access: API key of %q is listed twice", k.Principal)
		}
		a.keys[h] = k
	}
	if j := cfg.JWT; j != nil {
		c := *j
		switch {
		case (c.JWKSURL == "") == (c.JWKSFile == ""):
			return nil, errors.New("access: jwt needs exactly one of jwks_url and jwks_file")
		case c.JWKSURL != "" && !strings.HasPrefix(c.JWKSURL, "https://"):
			return nil, errors.New("access: jwks_url must be https")
		case c.Issuer == "" || c.Audience == "":
			return nil, errors.New("access: jwt needs an issuer and an audience")
		case c.Leeway < 0 || c.Leeway > 5*time.Minute:
			return nil, errors.New("access: jwt leeway must be between 0 and 5m")
		}
		if c.Leeway == 0 {
			c.Leeway = 30 * time.Second
		}
		if c.PrincipalClaim == "" {
			c.PrincipalClaim = "sub"
		}
		if c.GroupsClaim == "" {
			c.GroupsClaim = "groups"
		}
		if c.RefreshInterval <= 0 {
			c.RefreshInterval = time.Hour
		}
		var err error
		if c.JWKSFile != "" {
			a.jwks, err = jwksFile(c.JWKSFile)
		} else {
			a.jwks, err = jwksURL(ctx, &c)
		}
		if err != nil {
			return nil, err
		}
		a.jwt = &c
		a.parser = jwt.NewParser(jwt.WithValidMethods(algorithms), jwt.WithIssuer(c.Issuer), jwt.WithAudience(c.Audience),
			jwt.WithLeeway(c.Leeway), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	}
	if cfg.OAuth != nil {
		o, err := newOAuth(ctx, *cfg.OAuth)
		if err != nil {
			return nil, err
		}
		if a.oauthKeys, err = jwksURL(ctx, &JWTConfig{JWKSURL: o.jwksURI, HTTPClient: o.cfg.HTTPClient, RefreshInterval: o.cfg.RefreshInterval}); err != nil {
			return nil, err
		}
		a.oauth = o
	}
	return a, nil
}

// Enabled reports whether any credential is checked.
func (a *Authenticator) Enabled() bool {
	return a != nil && (len(a.keys) > 0 || a.jwt != nil || a.oauth != nil || a.mtls)
}

// Credentials are what a caller presents before any of its messages is
// read, whichever door it comes through: the authorization header (gRPC
// metadata or HTTP), and the TLS state of its connection. Authentication
// is one function of them (Check), so that a credential means the same on
// every listener.
type Credentials struct {
	// Authorization are the values of the authorization header or
	// metadata; the first one decides.
	Authorization []string
	// TLS is the connection's TLS state; nil without TLS.
	TLS *tls.ConnectionState
}

// CredentialsOf are the credentials of a gRPC call's context: its
// authorization metadata and its peer's TLS state.
func CredentialsOf(ctx context.Context) Credentials {
	var c Credentials
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		c.Authorization = md.Get("authorization")
	}
	if pr, ok := peer.FromContext(ctx); ok {
		if info, ok := pr.AuthInfo.(credentials.TLSInfo); ok {
			c.TLS = &info.State
		}
	}
	return c
}

// RequestCredentials are the credentials of an HTTP request: its
// Authorization header and its connection's TLS state. Nothing of its
// body is read.
func RequestCredentials(r *http.Request) Credentials {
	return Credentials{Authorization: r.Header.Values("Authorization"), TLS: r.TLS}
}

// Authenticate returns the caller of a gRPC call's ctx: Check of its
// credentials, or of a Live's newest.
func (a *Authenticator) Authenticate(ctx context.Context) (*Principal, error) {
	if l, ok := ctx.Value(principalKey{}).(*Live); ok {
		_, c := l.Current()
		return a.Check(c)
	}
	return a.Check(CredentialsOf(ctx))
}

// Check returns the caller that presents c: the bearer credential of the
// authorization header (an API key, else a JWT) or, without one, a
// verified client certificate. Every failure is ErrUnauthenticated.
func (a *Authenticator) Check(c Credentials) (*Principal, error) {
	if len(c.Authorization) > 0 {
		scheme, token, ok := strings.Cut(c.Authorization[0], " ")
		if ok && strings.EqualFold(scheme, "bearer") && token != "" {
			p, err := a.bearer(token)
			if err != nil && a.oauth != nil {
				// To an OAuth resource server's callers, any bearer
				// token that does not hold is RFC 6750's invalid_token.
				err = ErrInvalidToken
			}
			return p, err
		}
	}
	if a.mtls && c.TLS != nil {
		if p := certPrincipal(c.TLS); p != nil {
			return p, nil
		}
	}
	return nil, ErrUnauthenticated
}

// bearer checks a bearer token: an API key by its hash, else a JWT.
func (a *Authenticator) bearer(token string) (*Principal, error) {
	if len(a.keys) > 0 {
		// The lookup is by the presented key's hash: its timing says
		// nothing of a stored key.
		if k, ok := a.keys[HashKey(token)]; ok {
			return &Principal{Name: k.Principal, Method: "apikey", Groups: slices.Clone(k.Groups)}, nil
		}
	}
	if a.jwt == nil && a.oauth == nil || strings.Count(token, ".") != 2 {
		return nil, ErrUnauthenticated
	}
	return a.parseJWT(token)
}

// issuedByOAuth reports whether a JWT, unverified, names the OAuth
// issuer: which of the two JWT checks applies when both are configured.
func (a *Authenticator) issuedByOAuth(token string) bool {
	if a.oauth == nil {
		return false
	}
	if a.jwt == nil {
		return true
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		return false
	}
	iss, _ := claims.GetIssuer()
	return iss == a.oauth.cfg.Issuer
}

// parseJWT checks a JWT's signature against the key set and its claims,
// or finds it checked in the last minute.
func (a *Authenticator) parseJWT(token string) (*Principal, error) {
	sum := sha256.Sum256([]byte(token))
	now := time.Now()
	a.mu.Lock()
	c, ok := a.verified[sum]
	a.mu.Unlock()
	if ok && now.Before(c.until) {
		return c.p, nil
	}
	var p *Principal
	if a.issuedByOAuth(token) {
		var err error
		if p, err = a.oauth.parse(a, token); err != nil {
			return nil, err
		}
	} else {
		claims := jwt.MapClaims{}
		if _, err := a.parser.ParseWithClaims(token, claims, a.jwks.Keyfunc); err != nil {
			return nil, ErrUnauthenticated
		}
		var err error
		if p, err = a.principalOf(claims); err != nil {
			return nil, err
		}
	}
	until := now.Add(time.Minute)
	if !p.Expires.IsZero() && p.Expires.Before(until) {
		until = p.Expires
	}
	a.mu.Lock()
	if len(a.verified) >= maxCachedJWTs {
		clear(a.verified)
	}
	a.verified[sum] = cachedJWT{p: p, until: until}
	a.mu.Unlock()
	return p, nil
}

// principalOf is the principal a verified JWT's claims name.
func (a *Authenticator) principalOf(claims jwt.MapClaims) (*Principal, error) {
	name, _ := claims[a.jwt.PrincipalClaim].(string)
	if name == "" {
		return nil, ErrUnauthenticated
	}
	p := &Principal{Name: name, Method: "jwt", Claims: claims, Groups: groupsOf(claims[a.jwt.GroupsClaim])}
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		p.Expires = exp.Add(a.jwt.Leeway)
	}
	return p, nil
}

// groupsOf reads a groups claim: a string of space-separated groups, or
// a list of strings.
func groupsOf(claim any) []string {
	var groups []string
	switch g := claim.(type) {
	case string:
		groups = strings.Fields(g)
	case []any:
		for _, v := range g {
			if s, ok := v.(string); ok {
				groups = append(groups, s)
			}
		}
	}
	return groups
}

// certPrincipal is the principal of a verified client certificate.
func certPrincipal(st *tls.ConnectionState) *Principal {
	if len(st.VerifiedChains) == 0 || len(st.VerifiedChains[0]) == 0 {
		return nil
	}
	cert := st.VerifiedChains[0][0]
	name := cert.Subject.CommonName
	if name == "" {
		return nil
	}
	return &Principal{Name: name, Method: "mtls", Groups: slices.Clone(cert.Subject.OrganizationalUnit), Expires: cert.NotAfter}
}

// Kind is what a rule's names match.
type Kind int

const (
	// Server is the server as a whole (lists, Subscribe, Connect, Ping).
	Server Kind = iota
	Tool
	Resource
	Prompt
)

// Rule allows callers (by principal, group, claim or OAuth scope; any
// match) to use
// servers, and on them tools, resources and prompts.
//
// A principal is written as its ID ("jwt:bob", "mtls:alice",
// "apikey:ci-bot"); a bare name (no ':') is an API key's principal, whose
// names the same file defines; "*" is any authenticated caller.
//
// Names are path.Match patterns ("*", "read_*", "file:///srv/*"). An
// empty list of tools, resources or prompts allows none of them; ["*"]
// allows every one. A rule that names a server but none of its tools,
// resources or prompts still lets the caller use the server itself (list
// it, ping it, open a tunnel to it).
type Rule struct {
	Principals []string
	Groups     []string
	Claims     map[string]string // claim → value; a list claim matches if it holds the value
	Scopes     []string          // an OAuth access token that holds one of them
	Servers    []string
	Tools      []string
	Resources  []string
	Prompts    []string
}

// Rules are the authorization rules. None: everyone may use everything
// (authentication alone decides). Any: deny by default, allow what a rule
// allows. A rule allows no tool, resource or prompt it does not name.
type Rules []Rule

// Allow reports whether p may use the named tool, resource or prompt of
// server (name is ignored for Server: it asks whether any rule lets p use
// the server at all). A resource's URI is matched as resourceURI
// normalises it; one it refuses is allowed to no one.
func (rs Rules) Allow(p *Principal, server string, kind Kind, name string) bool {
	if len(rs) == 0 {
		return true
	}
	if kind == Resource {
		var ok bool
		if name, ok = resourceURI(name); !ok {
			return false
		}
	}
	for _, r := range rs {
		if !r.matchesCaller(p) || !matchAny(r.Servers, server) {
			continue
		}
		switch kind {
		case Server:
			return true
		case Tool:
			if matchAny(r.Tools, name) {
				return true
			}
		case Resource:
			if matchAny(r.Resources, name) {
				return true
			}
		case Prompt:
			if matchAny(r.Prompts, name) {
				return true
			}
		}
	}
	return false
}

func (r *Rule) matchesCaller(p *Principal) bool {
	if p == nil {
		return false
	}
	for _, want := range r.Principals {
		switch {
		case want == "*":
			return true
		case strings.Contains(want, ":"):
			if want == p.ID() {
				return true
			}
		case p.Method == "apikey" && want == p.Name:
			return true
		}
	}
	for _, g := range r.Groups {
		if slices.Contains(p.Groups, g) {
			return true
		}
	}
	for _, sc := range r.Scopes {
		if slices.Contains(p.Scopes, sc) {
			return true
		}
	}
	for claim, want := range r.Claims {
		switch v := p.Claims[claim].(type) {
		case string:
			if v == want {
				return true
			}
		case []any:
			if slices.Contains(v, any(want)) {
				return true
			}
		}
	}
	return false
}

// matchAny reports whether name matches one of the patterns; an empty
// list matches nothing.
func matchAny(patterns []string, name string) bool {
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, name); ok || pat == "*" {
			return true
		}
	}
	return false
}

// resourceURI is the form of a resource URI that the rules match: the
// path percent-decoded, runs of '/' taken as one and its dot segments
// removed as RFC 3986, section 5.2.4 does, so that a pattern sees the
// resource that a child which decodes the URI, or maps it to a file,
// reads: demo://greeting/a/..%2fbob is demo://greeting/bob. The scheme
// stays as it is, the authority is decoded, the query and fragment stay
// as they are. ok is false for a URI that no rule may allow: a malformed
// escape, a NUL anywhere once decoded, an authority that decodes to a
// separator, or a ".." that climbs above the start of the path (which
// 5.2.4 drops without a word, where a child may climb):
// demo://greeting/..%2fcounter names demo://counter to a child that takes
// the part after greeting/ as a path.
func resourceURI(uri string) (string, bool) {
	prefix, rest := "", uri
	if i := schemeLen(uri); i > 0 {
		prefix, rest = uri[:i+1], uri[i+1:]
	}
	if strings.HasPrefix(rest, "//") {
		end := len(rest)
		if j := strings.IndexAny(rest[2:], "/?#"); j >= 0 {
			end = 2 + j
		}
		authority, err := url.PathUnescape(rest[2:end])
		if err != nil || strings.ContainsAny(authority, "/?#\\\x00") {
			return "", false
		}
		prefix, rest = prefix+"//"+authority, rest[end:]
	}
	p, tail := rest, ""
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		p, tail = rest[:j], rest[j:]
	}
	decoded, err := url.PathUnescape(p)
	if err != nil || strings.IndexByte(decoded, 0) >= 0 {
		return "", false
	}
	if t, err := url.PathUnescape(tail); err != nil || strings.IndexByte(t, 0) >= 0 {
		return "", false
	}
	for strings.Contains(decoded, "//") {
		decoded = strings.ReplaceAll(decoded, "//", "/")
	}
	clean, ok := removeDotSegments(decoded)
	if !ok {
		return "", false
	}
	return prefix + clean + tail, true
}

// schemeLen is the length of uri's scheme (RFC 3986, section 3.1), the
// index of the ':' after it; 0 when uri does not start with one.
func schemeLen(uri string) int {
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return 0
		}
	}
	return 0
}

// removeDotSegments is RFC 3986, section 5.2.4, on a decoded path, except
// that a ".." with nothing left to remove is refused (ok false) rather
// than dropped.
func removeDotSegments(in string) (string, bool) {
	out := make([]byte, 0, len(in))
	for len(in) > 0 {
		switch {
		case strings.HasPrefix(in, "../") || in == "..":
			return "", false
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case in == ".":
			in = ""
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../") || in == "/..":
			if len(out) == 0 {
				return "", false
			}
			out = out[:max(bytes.LastIndexByte(out, '/'), 0)]
			in = "/" + in[min(len(in), 4):]
		default:
			j := len(in)
			if k := strings.IndexByte(in[1:], '/'); k >= 0 {
				j = k + 1
			}
			out = append(out, in[:j]...)
			in = in[j:]
		}
	}
	return string(out), true
}

// Check validates the patterns of the rules.
func (rs Rules) Check() error {
	for i, r := range rs {
		if len(r.Principals)+len(r.Groups)+len(r.Claims)+len(r.Scopes) == 0 {
			return fmt.Errorf("access: rule %d names no principal, group, claim or scope", i)
		}
		if len(r.Servers) == 0 {
			return fmt.Errorf("access: rule %d names no server (use \"*\" for every one)", i)
		}
		for _, who := range r.Principals {
			method, name, qualified := strings.Cut(who, ":")
			if qualified && (!slices.Contains(methods, method) || name == "") {
				return fmt.Errorf("access: rule %d: principal %q: write apikey:NAME, jwt:NAME, oauth:NAME or mtls:NAME (or a bare API key principal)", i, who)
			}
		}
		for _, list := range [][]string{r.Servers, r.Tools, r.Resources, r.Prompts} {
			for _, pat := range list {
				if _, err := path.Match(pat, ""); err != nil {
					return fmt.Errorf("access: rule %d: bad pattern %q", i, pat)
				}
			}
		}
	}
	return nil
}
