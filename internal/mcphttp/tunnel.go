package mcphttp

// This file opens the bridge's Connect tunnels in process: an HTTP/2 gRPC
// request handed to the bridge's grpc.Server (its ServeHTTP), built from
// the credentials of the HTTP request that needs the connection. The call
// is then an ordinary BridgeService call: the server's interceptors
// authenticate, authorize, limit, audit and count it, and keep watching
// its credentials while it runs.

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Forwarded are the request headers a tunnel carries as gRPC metadata:
// the credentials, the bridge's session name, and the trace context.
var forwarded = []string{"Authorization", "Mcp-Session", "Traceparent", "Tracestate", "User-Agent"}

const (
	connectMethod   = mcpbridgev1.BridgeService_Connect_FullMethodName
	getServerMethod = mcpbridgev1.BridgeService_GetServer_FullMethodName
)

// Tunnel returns a StartFunc that opens each connection as a
// BridgeService Connect tunnel on grpcServer (the bridge's *grpc.Server, as
// an http.Handler), in process, with the credentials of the request that
// opens it: its Authorization and Mcp-Session headers, its TLS state (a
// client certificate) and its remote address. Before the tunnel, a
// GetServer call with the same credentials checks them and the server;
// what the bridge refuses there is answered with its HTTP status (401,
// 403, 404, 429 or 503). maxMessageBytes bounds a message from the
// tunnel, as the bridge's --max-message-bytes does.
func Tunnel(grpcServer http.Handler, maxMessageBytes int) StartFunc {
	return func(ctx context.Context, r *http.Request, server string, cfg stdio.ClientConfig) (*stdio.Client, error) {
		check := openLoop(ctx, grpcServer, r, getServerMethod, maxMessageBytes)
		check.send(&mcpbridgev1.GetServerRequest{Server: server})
		check.closeSend()
		for {
			if _, err := check.recv(); err != nil {
				if err != io.EOF {
					return nil, refusal(err)
				}
				break
			}
		}
		t := openLoop(ctx, grpcServer, r, connectMethod, maxMessageBytes)
		inR, inW := io.Pipe()   // the Client's requests, into the tunnel
		outR, outW := io.Pipe() // the tunnel's messages, to the Client
		c, err := stdio.Open(inW, outR, cfg)
		if err != nil {
			t.cancel()
			return nil, err
		}
		var once sync.Once
		stop := func() { once.Do(func() { inR.Close() }) }
		go func() { // closing the Client cancels what is in flight
			select {
			case <-c.Closed():
				t.cancel()
			case <-t.done:
			}
		}()
		go func() { // the Client's lines into the tunnel, until in ends
			defer t.closeSend()
			lr := wire.NewReader(inR, maxMessageBytes)
			first := true
			for {
				line, err := lr.ReadLine()
				if err != nil {
					var tooLong *wire.LineTooLongError
					if errors.As(err, &tooLong) {
						continue // the Client writes no such line
					}
					return
				}
				req := &mcpbridgev1.ConnectRequest{MessageJson: string(line)}
				if first {
					req.Server, first = server, false
				}
				if t.send(req) != nil {
					return
				}
			}
		}()
		go func() { // the tunnel's messages out to the Client
			defer stop()
			var err error
			for {
				var b []byte
				if b, err = t.recv(); err != nil {
					break
				}
				var msg mcpbridgev1.ConnectResponse
				if err = proto.Unmarshal(b, &msg); err != nil {
					t.cancel()
					break
				}
				line := append([]byte(msg.GetMessageJson()), '\n')
				if _, err = outW.Write(line); err != nil {
					t.cancel()
					break
				}
			}
			if err != io.EOF {
				cfg.Logger.Debug("mcphttp: the tunnel ended", "server", server, "error", err)
			}
			outW.Close()
		}()
		return c, nil
	}
}

// refusal maps the status of a refused GetServer to an HTTP answer.
func refusal(err error) error {
	st := status.Convert(err)
	he := &HTTPError{Status: http.StatusBadGateway, Err: &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: st.Message(),
		Data: []byte(fmt.Sprintf(`{"grpcCode":%q}`, st.Code().String()))}}
	switch st.Code() {
	case codes.Unauthenticated:
		he.Status = http.StatusUnauthorized
		he.Header = http.Header{"Www-Authenticate": {`Bearer realm="mcpbridge"`}}
	case codes.PermissionDenied:
		he.Status = http.StatusForbidden
	case codes.NotFound, codes.InvalidArgument:
		he.Status = http.StatusNotFound
	case codes.ResourceExhausted:
		he.Status = http.StatusTooManyRequests
	case codes.Unavailable:
		he.Status = http.StatusServiceUnavailable
	}
	return he
}

// loop is one gRPC call served in process by a grpc.Server's ServeHTTP.
type loop struct {
	cancel context.CancelFunc
	body   *io.PipeWriter
	rw     *loopWriter
	done   chan struct{} // closed when ServeHTTP has returned
}

// inProcessKey marks the context of a call that Tunnel made in process.
type inProcessKey struct{}

// InProcess reports whether ctx is that of a gRPC call that a Tunnel made
// in process, for a request to the MCP endpoint: the bridge's audit and
// metrics then name the call's way in as "http" rather than "connect". A
// remote caller cannot set it: it is a value of the Go context, which
// grpc.Server.ServeHTTP hands on from the request, not a header.
func InProcess(ctx context.Context) bool {
	return ctx.Value(inProcessKey{}) != nil
}

// openLoop starts the call method on h with r's credentials. Its context
// is ctx, not r's: a tunnel outlives the request that opened it.
func openLoop(ctx context.Context, h http.Handler, r *http.Request, method string, maxBytes int) *loop {
	ctx, cancel := context.WithCancel(context.WithValue(ctx, inProcessKey{}, true))
	if la := r.Context().Value(http.LocalAddrContextKey); la != nil {
		ctx = context.WithValue(ctx, http.LocalAddrContextKey, la)
	}
	header := http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}}
	for _, k := range forwarded {
		if v := r.Header.Values(k); len(v) > 0 {
			header[k] = slices.Clone(v)
		}
	}
	pr, pw := io.Pipe()
	req := (&http.Request{
		Method:     http.MethodPost,
		URL:        &url.URL{Path: method},
		RequestURI: method,
		Proto:      "HTTP/2.0",
		ProtoMajor: 2,
		Header:     header,
		Body:       pr,
		Host:       r.Host,
		RemoteAddr: r.RemoteAddr,
		TLS:        r.TLS,
	}).WithContext(ctx)
	l := &loop{cancel: cancel, body: pw, done: make(chan struct{}),
		rw: &loopWriter{header: http.Header{}, msgs: make(chan []byte), stop: ctx.Done(), max: maxBytes + frameSlack}}
	go func() {
		defer close(l.done)
		defer pr.Close()
		h.ServeHTTP(l.rw, req)
	}()
	return l
}

// send writes one message of the request.
func (l *loop) send(m proto.Message) error {
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	frame := make([]byte, 5, 5+len(b))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(b)))
	_, err = l.body.Write(append(frame, b...))
	return err
}

// closeSend ends the request's messages.
func (l *loop) closeSend() { l.body.Close() }

// recv returns the next message of the response, or the call's outcome
// once there is none: io.EOF for OK, else its status as an error.
func (l *loop) recv() ([]byte, error) {
	select {
	case b := <-l.rw.msgs:
		return b, nil
	case <-l.done:
		// ServeHTTP returned: every message was taken (Write blocks until
		// it is), and the trailers are set.
		l.cancel()
		return nil, l.rw.outcome()
	}
}

// frameSlack is what a response message may add to the JSON text it
// carries: its field tags and lengths.
const frameSlack = 64

// loopWriter is the http.ResponseWriter of an in-process call: it cuts
// the gRPC length-prefixed messages out of what the server writes and
// hands each to recv, one at a time.
type loopWriter struct {
	header http.Header
	code   int
	buf    []byte
	plain  []byte // the body of a response that is not gRPC
	msgs   chan []byte
	stop   <-chan struct{}
	max    int
}

func (w *loopWriter) Header() http.Header { return w.header }

func (w *loopWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *loopWriter) Flush() {}

var errLoopClosed = errors.New("mcphttp: in-process call closed")

func (w *loopWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if w.code != http.StatusOK {
		if len(w.plain) < 4096 {
			w.plain = append(w.plain, p...)
		}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for len(w.buf) >= 5 {
		n := int(binary.BigEndian.Uint32(w.buf[1:5]))
		if w.buf[0] != 0 || n > w.max {
			return 0, fmt.Errorf("mcphttp: in-process call: bad frame (flags %d, %d bytes)", w.buf[0], n)
		}
		if len(w.buf) < 5+n {
			break
		}
		msg := slices.Clone(w.buf[5 : 5+n])
		w.buf = w.buf[5+n:]
		select {
		case w.msgs <- msg:
		case <-w.stop:
			return 0, errLoopClosed
		}
	}
	if len(w.buf) == 0 {
		w.buf = nil // let a large message's buffer go
	}
	return len(p), nil
}

// outcome is the call's status from the trailers, once ServeHTTP has
// returned.
func (w *loopWriter) outcome() error {
	v := w.header.Get("Grpc-Status")
	switch {
	case v == "" && w.code == 0:
		// The server wrote nothing: it has stopped.
		return status.Error(codes.Unavailable, "the bridge is shutting down")
	case v == "":
		return status.Errorf(codes.Internal, "in-process call answered HTTP %d: %s", w.code, w.plain)
	}
	code, err := strconv.Atoi(v)
	if err != nil {
		return status.Errorf(codes.Internal, "in-process call: bad grpc-status %q", v)
	}
	if code == int(codes.OK) {
		return io.EOF
	}
	if b64 := w.header.Get("Grpc-Status-Details-Bin"); b64 != "" {
		if raw, err := base64.RawStdEncoding.DecodeString(b64); err == nil {
			var p spb.Status
			if proto.Unmarshal(raw, &p) == nil {
				return status.FromProto(&p).Err()
			}
		}
	}
	msg, err := url.PathUnescape(w.header.Get("Grpc-Message"))
	if err != nil {
		msg = w.header.Get("Grpc-Message")
	}
	return status.Error(codes.Code(code), msg)
}
