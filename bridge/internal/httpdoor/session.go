package httpdoor

import (
	"bytes"
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
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// This file is the MCP endpoint's sessions: the caller's context of each
// (httpCaller), the Client that speaks to it message by message (start,
// sessionConn, sessionReader), and the HTTP answer of a refusal
// (httpRefusal).

// callerOf names the credentials of an MCP request (mcphttp.Config's
// Caller): requests with the same Authorization, Mcp-Session and client
// certificate share connections, and a session answers only them. It is a
// hash, so that no credential is kept in the clear.
func callerOf(r *http.Request) string {
	h := sha256.New()
	for _, k := range []string{"Authorization", "Mcp-Session"} {
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

// start is the MCP endpoint's mcphttp.StartFunc: a Session opened in
// process for r's caller, under a Client that speaks to it as to a child,
// message by message (sessionConn). What refuses the session is answered
// with its HTTP status.
func (d *Door) start(ctx context.Context, r *http.Request, server string, first []byte, cfg stdio.ClientConfig) (*stdio.Client, error) {
	ss, err := d.b.Open(httpCaller(ctx, r), server, first)
	if err != nil {
		return nil, httpRefusal(err)
	}
	conn := &sessionConn{ss: ss}
	c, err := stdio.Open(conn, &sessionReader{ss: ss}, cfg)
	if err != nil {
		ss.Close()
		return nil, err
	}
	go func() { // closing the Client ends the session
		select {
		case <-c.Closed():
			ss.Close()
		case <-ss.Done():
		}
	}()
	return c, nil
}

// sessionConn is the Client's stdin on a Session: each line the Client
// writes is one message Send hands the session, in the writing goroutine
// (the Client writes a call's line itself, with its deadline, when few
// are in flight). Nothing is copied through a pipe.
type sessionConn struct {
	ss       Session
	mu       sync.Mutex
	partial  []byte    // the start of a line the Client has not finished
	deadline time.Time // of the writes, as the Client sets it
}

func (w *sessionConn) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.partial = append(w.partial, b...)
			return n + len(b), nil
		}
		line := append(w.partial, b[:i]...)
		w.partial = nil
		if err := w.ss.SendBy(line, w.deadline); err != nil {
			return n, err
		}
		n += i + 1
		b = b[i+1:]
	}
	return n, nil
}

// SetWriteDeadline bounds the writes that follow: a message the session
// has not taken by then is not sent, and Write fails with
// os.ErrDeadlineExceeded.
func (w *sessionConn) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.deadline = t
	w.mu.Unlock()
	return nil
}

// Close is the Client closing its stdin: the session's side of the client
// ends (CloseSend).
func (w *sessionConn) Close() error {
	w.ss.CloseSend()
	return nil
}

// sessionReader is the Client's stdout on a Session: the session's
// messages, each followed by a newline, read as the Client's reader asks.
type sessionReader struct {
	ss   Session
	rest []byte // what is left of the current message
}

func (r *sessionReader) Read(b []byte) (int, error) {
	if len(r.rest) == 0 {
		msg, err := r.ss.Recv(context.Background())
		if err != nil {
			return 0, io.EOF // the session ended: the Client's connection ends
		}
		r.rest = append(msg, '\n')
	}
	n := copy(b, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// Close is the Client letting go of its stdout: the session ends.
func (r *sessionReader) Close() error { return r.ss.Close() }

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
