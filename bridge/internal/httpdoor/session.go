package httpdoor

import (
	"context"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// This file is the MCP endpoint's sessions: the caller's context of each
// (httpCaller), the raw connection the adapter speaks to it on (open,
// sessionConn), and the HTTP answer of a refusal
// (httpRefusal).

// callerOf names the credentials of an MCP request (mcphttp.Config's
// Caller): requests with the same Authorization, Mcp-Session and client
// certificate share connections, and a session answers only them. For a
// bearer token that a host renews during a session (renewable), the
// principal and the OAuth client it was issued to stand for the token:
// the session is theirs, and a refreshed or stepped-up token of theirs
// goes on with it. It is a hash, so that no credential is kept in the
// clear.
func callerOf(r *http.Request) string {
	h := sha256.New()
	headers := []string{"Authorization", "Mcp-Session"}
	if p := access.FromContext(r.Context()); renewable(p) {
		client, _ := p.Claims["client_id"].(string)
		if client == "" {
			client, _ = p.Claims["azp"].(string)
		}
		h.Write([]byte("principal\x00" + p.ID() + "\x00" + client + "\x00"))
		headers = headers[1:]
	}
	for _, k := range headers {
		for _, v := range r.Header.Values(k) {
			h.Write([]byte(v))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		h.Write(r.TLS.PeerCertificates[0].Raw)
	}
	return string(h.Sum(nil))
}

// renewable reports whether p's credential is a bearer token that a host
// renews while its sessions last: an OAuth access token, or a JWT.
func renewable(p *access.Principal) bool {
	return p != nil && (p.Method == "oauth" || p.Method == "jwt")
}

// lives are the renewable credentials of the open sessions, by caller
// (callerOf): each request of the caller renews them (caller), so that a
// session checks the newest token its host presented.
type lives struct {
	mu sync.Mutex
	m  map[string]map[*access.Live]struct{}
}

// add keeps l under key until done is closed.
func (ls *lives) add(key string, l *access.Live, done <-chan struct{}) {
	ls.mu.Lock()
	if ls.m == nil {
		ls.m = map[string]map[*access.Live]struct{}{}
	}
	if ls.m[key] == nil {
		ls.m[key] = map[*access.Live]struct{}{}
	}
	ls.m[key][l] = struct{}{}
	ls.mu.Unlock()
	go func() {
		<-done
		ls.mu.Lock()
		delete(ls.m[key], l)
		if len(ls.m[key]) == 0 {
			delete(ls.m, key)
		}
		ls.mu.Unlock()
	}()
}

// renew puts p, presented as c, in force in the sessions of key.
func (ls *lives) renew(key string, p *access.Principal, c access.Credentials) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for l := range ls.m[key] {
		l.Renew(p, c)
	}
}

// caller is mcphttp.Config's Caller: callerOf, and for a renewable
// credential, its renewal in the caller's open sessions.
func (d *Door) caller(r *http.Request) string {
	key := callerOf(r)
	if p := access.FromContext(r.Context()); renewable(p) {
		d.lives.renew(key, p, access.RequestCredentials(r))
	}
	return key
}

// forwardedHeaders are the request headers an MCP session's caller
// carries as metadata: the credentials (watched while the session lasts),
// the bridge's session name, and the trace context.
var forwardedHeaders = []string{"Authorization", "Mcp-Session", "Traceparent", "Tracestate", "User-Agent"}

// httpCaller is the caller's context of a session that the MCP endpoint
// opens for r, on base (the endpoint's, which outlives r): the principal
// the guard found, the forwarded headers as metadata, the client's
// address and TLS state as its peer, and the door it came through.
func httpCaller(base context.Context, r *http.Request) context.Context {
	ctx := door.WithVia(base, door.ViaHTTP)
	if p := access.FromContext(r.Context()); p != nil {
		ctx = access.NewContext(ctx, p)
	}
	md := metadata.MD{}
	for _, k := range forwardedHeaders {
		if v := r.Header.Values(k); len(v) > 0 {
			md[strings.ToLower(k)] = append([]string(nil), v...)
		}
	}
	ctx = metadata.NewIncomingContext(ctx, md)
	pr := &peer.Peer{Addr: remoteAddr(r.RemoteAddr)}
	if r.TLS != nil {
		pr.AuthInfo = credentials.TLSInfo{State: *r.TLS, CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}}
	}
	return peer.NewContext(ctx, pr)
}

// remoteAddr is an http.Request's RemoteAddr as a net.Addr.
func remoteAddr(s string) net.Addr {
	if ap, err := net.ResolveTCPAddr("tcp", s); err == nil {
		return ap
	}
	return stringAddr(s)
}

type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }

// open is the MCP endpoint's mcphttp.OpenFunc: a Session opened in
// process for r's caller, whose messages the adapter sends and receives
// whole (sessionConn). What refuses the session is answered with its HTTP
// status.
func (d *Door) open(ctx context.Context, r *http.Request, server string, first []byte) (mcphttp.Conn, error) {
	ctx = httpCaller(ctx, r)
	var live *access.Live
	if p := access.FromContext(ctx); renewable(p) {
		ctx, live = access.NewLiveContext(ctx, p, access.RequestCredentials(r))
	}
	ss, err := d.b.Open(ctx, server, first)
	if err != nil {
		return nil, httpRefusal(err)
	}
	if live != nil {
		d.lives.add(callerOf(r), live, ss.Done())
	}
	return sessionConn{ss}, nil
}

// sessionConn is a Session as the adapter's raw connection: each message
// the adapter sends is one the session is handed, each it receives one
// the session gives. Nothing is framed or copied.
type sessionConn struct{ ss Session }

func (c sessionConn) Send(msg []byte) error { return c.ss.SendBy(msg, time.Time{}) }

// Recv returns the session's next message; its end, however it ended, is
// io.EOF: the connection's end, which the client hears of as a session
// that is gone.
func (c sessionConn) Recv() ([]byte, error) {
	msg, err := c.ss.Recv(context.Background())
	if err != nil {
		return nil, io.EOF
	}
	return msg, nil
}

// Close ends the session at once; its requests in flight are cancelled.
func (c sessionConn) Close() error { return c.ss.Close() }

// httpRefusal maps a status that refused a session to the MCP endpoint's
// answer: the HTTP status of its code (401, 403, 404 for an unknown
// server, 400 for other bad input, 429, 503), the status's JsonRpcError as
// the body, and Retry-After from its RetryInfo.
func httpRefusal(err error) error {
	st := status.Convert(err)
	he := &mcphttp.HTTPError{Status: http.StatusBadGateway, Header: http.Header{}}
	rpc := &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: st.Message()}
	unknownServer := false
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			unknownServer = d.GetReason() == rpcerr.ReasonUnknownServer
		case *mcpbridgev1.JsonRpcError:
			rpc = &jsonrpc.Error{Code: int64(d.GetCode()), Message: d.GetMessage()}
			if d.GetDataJson() != "" {
				rpc.Data = []byte(d.GetDataJson())
			}
		case *errdetails.RetryInfo:
			secs := max(1, int(d.GetRetryDelay().AsDuration().Round(time.Second)/time.Second))
			he.Header.Set("Retry-After", strconv.Itoa(secs))
		}
	}
	he.Err = rpc
	switch st.Code() {
	case codes.Unauthenticated:
		he.Status = http.StatusUnauthorized
		he.Header.Set("Www-Authenticate", `Bearer realm="mcpbridge"`)
	case codes.PermissionDenied:
		he.Status = http.StatusForbidden
	case codes.NotFound:
		he.Status = http.StatusNotFound
	case codes.InvalidArgument:
		he.Status = http.StatusBadRequest
		if unknownServer {
			he.Status = http.StatusNotFound
		}
	case codes.ResourceExhausted:
		he.Status = http.StatusTooManyRequests
	case codes.Unavailable:
		he.Status = http.StatusServiceUnavailable
	}
	return he
}
