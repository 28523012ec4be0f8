package door

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// auditLog is a door's audit log: slog's JSON handler into a buffer, read
// back one record at a time.
type auditLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *auditLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records returns the records written since the last call.
func (l *auditLog) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("an audit record that is not JSON: %s", line)
		}
		out = append(out, rec)
	}
	l.buf.Reset()
	return out
}

// one returns the one record written since the last call.
func (l *auditLog) one(t *testing.T) map[string]any {
	t.Helper()
	recs := l.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d audit records, want 1: %v", len(recs), recs)
	}
	return recs[0]
}

// refusal is one call of the door's Refused hook.
type refusal struct {
	method, why string
}

// testDoor is a door with the rules and limits, its audit log and the
// refusals its hook was told of.
func testDoor(t *testing.T, rules access.Rules, limits Limits) (*Door, *auditLog, func() []refusal) {
	t.Helper()
	d := New(nil, rules, limits)
	log := &auditLog{}
	d.Audit = slog.New(slog.NewJSONHandler(log, nil))
	var mu sync.Mutex
	var got []refusal
	d.Refused = func(req *Request, why string) {
		mu.Lock()
		got = append(got, refusal{req.Method, why})
		mu.Unlock()
	}
	return d, log, func() []refusal {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
}

func caller(name string, groups ...string) context.Context {
	return access.NewContext(context.Background(), &access.Principal{Name: name, Method: "apikey", Groups: groups})
}

// wantFields checks the record's string fields.
func wantFields(t *testing.T, rec map[string]any, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, _ := rec[k].(string); got != v {
			t.Errorf("audit %s = %v, want %q (record %v)", k, rec[k], v, rec)
		}
	}
}

var testRules = access.Rules{
	{Principals: []string{"alice"}, Servers: []string{"s"}, Tools: []string{"echo", "read_*"}, Resources: []string{"demo://public/*"}, Prompts: []string{"greet"}},
	{Groups: []string{"ops"}, Servers: []string{"*"}},
}

// TestAdmitRules: the rules decide per server and per tool, resource or
// prompt a request names; a refusal says which, is PERMISSION_DENIED, and
// is audited and counted whatever the method, with who asked and how.
func TestAdmitRules(t *testing.T) {
	d, log, refused := testDoor(t, testRules, Limits{})
	s := &Server{Name: "s"}
	alice := metadata.NewIncomingContext(caller("alice"), metadata.Pairs("x-request-id", "req-7"))
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		srv    string
		method string
		params string
		denied string // the refusal's message; "" admits
	}{
		{"a tool alice may use", alice, "s", "tools/call", `{"name":"echo"}`, ""},
		{"a tool by pattern", alice, "s", "tools/call", `{"name":"read_file"}`, ""},
		{"a tool she may not", alice, "s", "tools/call", `{"name":"secret"}`, `Permission denied: tool "secret" of server "s"`},
		{"another server", alice, "t", "tools/list", `{}`, `Permission denied: server "t"`},
		{"her resource", alice, "s", "resources/read", `{"uri":"demo://public/a"}`, ""},
		{"a resource out of reach by dot segments", alice, "s", "resources/read", `{"uri":"demo://public/../private/a"}`, `Permission denied: resource "demo://public/../private/a" of server "s"`},
		{"her prompt", alice, "s", "prompts/get", `{"name":"greet"}`, ""},
		{"a completion of another prompt", alice, "s", "completion/complete", `{"ref":{"type":"ref/prompt","name":"other"}}`, `Permission denied: prompt "other" of server "s"`},
		{"a listen naming one resource of another", alice, "s", "subscriptions/listen",
			`{"notifications":{"resourceSubscriptions":["demo://public/a","demo://private/b"]}}`, `Permission denied: resource "demo://private/b" of server "s"`},
		{"an ops member may use the server", caller("bob", "ops"), "t", "tools/list", `{}`, ""},
		{"but no tool it names", caller("bob", "ops"), "t", "tools/call", `{"name":"echo"}`, `Permission denied: tool "echo" of server "t"`},
		{"an anonymous caller, with rules", context.Background(), "s", "tools/list", `{}`, `Permission denied: server "s"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := s
			if tc.srv != "s" {
				srv = &Server{Name: tc.srv}
			}
			req := NewRequest(ViaConnect, srv, tc.method, json.RawMessage(tc.params))
			pass, ref := d.Admit(tc.ctx, req)
			if tc.denied == "" {
				if ref != nil || pass == nil {
					t.Fatalf("refused: %v", ref.CallError)
				}
				pass.Release()
				if recs := log.records(t); len(recs) != 0 || len(refused()) != 0 {
					t.Errorf("an admitted request was recorded as refused: %v", recs)
				}
				return
			}
			if pass != nil || ref == nil {
				t.Fatalf("admitted, want %q", tc.denied)
			}
			if ref.Why != RefusedDenied || ref.RPC.Message != tc.denied {
				t.Errorf("refusal %q %q, want %q %q", ref.Why, ref.RPC.Message, RefusedDenied, tc.denied)
			}
			st := status.Convert(ref.Status(req))
			if st.Code() != codes.PermissionDenied || st.Message() != tc.denied {
				t.Errorf("status %v %q, want PermissionDenied", st.Code(), st.Message())
			}
			if got := refused(); !slices.Equal(got, []refusal{{tc.method, RefusedDenied}}) {
				t.Errorf("the refusals hook was told %v", got)
			}
			rec := log.one(t)
			wantFields(t, rec, map[string]string{"msg": "mcpbridge: audit", "server": tc.srv, "method": tc.method, "via": ViaConnect,
				"outcome": "refused", "refused": RefusedDenied, "code": "PermissionDenied"})
			if p := access.FromContext(tc.ctx); p != nil {
				wantFields(t, rec, map[string]string{"principal": p.Name, "auth": "apikey"})
			} else if _, ok := rec["principal"]; ok {
				t.Errorf("an anonymous caller's record names a principal: %v", rec)
			}
			if tc.ctx == alice {
				wantFields(t, rec, map[string]string{"client_request_id": "req-7"})
			}
			if id, _ := rec["request_id"].(string); len(id) != 16 {
				t.Errorf("request_id = %q, want 16 hex digits", id)
			}
		})
	}
}

// TestAdmitWithoutRules: without rules everyone may use everything, the
// anonymous caller included; nothing is audited at admission.
func TestAdmitWithoutRules(t *testing.T) {
	d, log, refused := testDoor(t, nil, Limits{})
	for _, ctx := range []context.Context{context.Background(), caller("anyone")} {
		pass, ref := d.Admit(ctx, NewRequest(ViaGRPC, &Server{Name: "s"}, "tools/call", json.RawMessage(`{"name":"x"}`)))
		if ref != nil {
			t.Fatalf("refused without rules: %v", ref.CallError)
		}
		pass.Release()
	}
	if recs := log.records(t); len(recs) != 0 || len(refused()) != 0 {
		t.Errorf("admissions were recorded: %v", recs)
	}
}

// TestAdmitRevoked: a call whose credentials no longer hold (its context
// cancelled with ErrRevoked) is refused whatever the rules,
// UNAUTHENTICATED with nothing that helps an attacker.
func TestAdmitRevoked(t *testing.T) {
	d, log, refused := testDoor(t, nil, Limits{})
	ctx, cancel := context.WithCancelCause(caller("alice"))
	cancel(ErrRevoked)
	req := NewRequest(ViaHTTP, &Server{Name: "s"}, "tools/list", nil)
	pass, ref := d.Admit(ctx, req)
	if pass != nil || ref == nil || ref.Why != RefusedUnauthenticated || ref.Reason != rpcerr.ReasonUnauthenticated {
		t.Fatalf("Admit after revocation = %v, %+v", pass, ref)
	}
	if st := status.Convert(ref.Status(req)); st.Code() != codes.Unauthenticated || st.Message() != "authentication required" {
		t.Errorf("status %v %q", st.Code(), st.Message())
	}
	wantFields(t, log.one(t), map[string]string{"outcome": "refused", "refused": RefusedUnauthenticated, "code": "Unauthenticated", "via": ViaHTTP, "principal": "alice"})
	if got := refused(); !slices.Equal(got, []refusal{{"tools/list", RefusedUnauthenticated}}) {
		t.Errorf("refusals hook: %v", got)
	}
	// Cancelled for another reason, the call is not refused by the door.
	other, cancelOther := context.WithCancel(caller("alice"))
	cancelOther()
	if pass, ref := d.Admit(other, req); ref != nil {
		t.Errorf("a cancelled (not revoked) call was refused: %v", ref.CallError)
	} else {
		pass.Release()
	}
}

// retryInfo is a status's RetryInfo delay; 0 without one.
func retryInfo(err error) time.Duration {
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// TestAdmitLimits: the bridge-wide and the server's limits apply per
// caller; a refusal is RESOURCE_EXHAUSTED with the wait as RetryInfo and
// data.retryAfterMs, audited and counted; a stream that stays open counts
// for the rate only; a request the server's limiter refuses gives back
// the bridge-wide place it took.
func TestAdmitLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, log, refused := testDoor(t, nil, Limits{Concurrent: 1})
		free := &Server{Name: "free"}
		alice, bob := caller("alice"), caller("bob")
		call := func(srv *Server) *Request {
			return NewRequest(ViaGRPC, srv, "tools/call", json.RawMessage(`{"name":"t"}`))
		}

		first, ref := d.Admit(alice, call(free))
		if ref != nil {
			t.Fatal(ref.CallError)
		}
		req := call(free)
		if _, ref := d.Admit(alice, req); ref == nil || ref.Why != RefusedLimited {
			t.Fatalf("a second call in flight: %+v, want limited", ref)
		} else {
			st := status.Convert(ref.Status(req))
			if st.Code() != codes.ResourceExhausted || retryInfo(ref.Status(req)) != 100*time.Millisecond {
				t.Errorf("status %v, RetryInfo %v; want ResourceExhausted after 100ms", st.Code(), retryInfo(ref.Status(req)))
			}
			var data struct {
				Retryable    bool  `json:"retryable"`
				RetryAfterMs int64 `json:"retryAfterMs"`
			}
			if ref.RPC.Code != jsonrpc.CodeInternalError || json.Unmarshal(ref.RPC.Data, &data) != nil || !data.Retryable || data.RetryAfterMs != 100 {
				t.Errorf("the tunnel's error = %d %s, want -32603 with retryAfterMs 100", ref.RPC.Code, ref.RPC.Data)
			}
			wantFields(t, log.one(t), map[string]string{"outcome": "refused", "refused": RefusedLimited, "code": "ResourceExhausted"})
			if got := refused(); !slices.Equal(got, []refusal{{"tools/call", RefusedLimited}}) {
				t.Errorf("refusals hook: %v", got)
			}
		}
		// Another caller has its own place; a stream that stays open takes none.
		if p, ref := d.Admit(bob, call(free)); ref != nil {
			t.Errorf("another caller was limited: %v", ref.CallError)
		} else {
			p.Release()
		}
		long := call(free)
		long.Long = true
		if p, ref := d.Admit(alice, long); ref != nil {
			t.Errorf("a stream that stays open was limited by calls in flight: %v", ref.CallError)
		} else {
			p.Release()
		}
		first.Release()
		first.Release() // only the first counts
		var none *Pass
		none.Release()
		held := make([]*Pass, 0, 2)
		p, ref := d.Admit(alice, call(free))
		if ref != nil {
			t.Fatalf("after the release: %v", ref.CallError)
		}
		held = append(held, p)
		if _, ref := d.Admit(alice, call(free)); ref == nil {
			t.Errorf("a second release gave back a second place")
		}
		for _, p := range held {
			p.Release()
		}
		log.records(t)
		refused()

		// The server's rate: one a second. Its refusal gives the
		// bridge-wide place back.
		rated := &Server{Name: "rated", Limiter: NewLimiter(Limits{Rate: 1})}
		p, ref = d.Admit(alice, call(rated))
		if ref != nil {
			t.Fatal(ref.CallError)
		}
		p.Release()
		req = call(rated)
		_, ref = d.Admit(alice, req)
		if ref == nil || ref.Why != RefusedLimited || retryInfo(ref.Status(req)) != time.Second {
			t.Fatalf("over the server's rate: %+v, want limited for 1s", ref)
		}
		if p, ref := d.Admit(alice, call(free)); ref != nil {
			t.Errorf("the server's refusal kept the bridge-wide place: %v", ref.CallError)
		} else {
			p.Release()
		}
		time.Sleep(time.Second) // the bucket refills
		if p, ref := d.Admit(alice, call(rated)); ref != nil {
			t.Errorf("a second later: %v", ref.CallError)
		} else {
			p.Release()
		}
		if got := refused(); len(got) != 1 {
			t.Errorf("refusals hook: %v, want the one over the rate", got)
		}
		d.SetLimits(Limits{})
		if d.Limiter().limits.enabled() {
			t.Errorf("SetLimits did not put the new limits in force")
		}
	})
}

// TestAuditOutcomes: an admitted request of an audited method is
// recorded when it ends, with its outcome: ok, a tool error, a JSON-RPC
// error with its code, a status with its code; payloads only for a server
// that audits them, without _meta; other methods are not recorded.
func TestAuditOutcomes(t *testing.T) {
	d, log, _ := testDoor(t, nil, Limits{})
	plain := &Server{Name: "s"}
	payloads := &Server{Name: "p", AuditPayloads: true}
	ctx := caller("alice")
	record := func(srv *Server, method, params string, res string, err error) {
		t.Helper()
		pass, ref := d.Admit(ctx, NewRequest(ViaGRPC, srv, method, json.RawMessage(params)))
		if ref != nil {
			t.Fatal(ref.CallError)
		}
		defer pass.Release()
		pass.Record(time.Now().Add(-1500*time.Microsecond), json.RawMessage(res), err)
	}

	record(plain, "tools/call", `{"name":"echo","arguments":{"secret":1}}`, `{"content":[]}`, nil)
	rec := log.one(t)
	wantFields(t, rec, map[string]string{"outcome": "ok", "name": "echo", "method": "tools/call", "server": "s", "principal": "alice", "auth": "apikey", "via": ViaGRPC})
	if ms, _ := rec["duration_ms"].(float64); ms < 1.5 {
		t.Errorf("duration_ms = %v, want at least 1.5", rec["duration_ms"])
	}
	if _, ok := rec["params"]; ok {
		t.Errorf("a server without AuditPayloads recorded params: %v", rec)
	}

	record(plain, "tools/call", `{"name":"echo"}`, `{"content":[],"isError":true}`, nil)
	wantFields(t, log.one(t), map[string]string{"outcome": "tool_error"})

	record(plain, "resources/read", `{"uri":"demo://x"}`, "", jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "gone"))
	rec = log.one(t)
	wantFields(t, rec, map[string]string{"outcome": "error", "name": "demo://x"})
	if rec["jsonrpc_code"] != float64(jsonrpc.CodeResourceNotFound) {
		t.Errorf("jsonrpc_code = %v", rec["jsonrpc_code"])
	}

	record(plain, "prompts/get", `{"name":"p"}`, "", status.Error(codes.DeadlineExceeded, "late"))
	wantFields(t, log.one(t), map[string]string{"outcome": "error", "code": "DeadlineExceeded"})

	record(plain, "prompts/get", `{"name":"p"}`, "", errors.New("neither"))
	rec = log.one(t)
	if _, ok := rec["code"]; ok || rec["outcome"] != "error" {
		t.Errorf("an error of no known kind: %v", rec)
	}

	record(payloads, "tools/call", `{"name":"echo","arguments":{"a":1},"_meta":{"traceparent":"x"}}`, `{}`, nil)
	rec = log.one(t)
	if got, _ := json.Marshal(rec["params"]); string(got) != `{"arguments":{"a":1},"name":"echo"}` {
		t.Errorf("params = %s, want them without _meta", got)
	}

	record(payloads, "tools/list", `{}`, `{"tools":[]}`, nil)
	if recs := log.records(t); len(recs) != 0 {
		t.Errorf("a method that is not audited was recorded: %v", recs)
	}

	// Without an audit log, nothing is written and nothing fails.
	d.Audit = nil
	record(plain, "tools/call", `{"name":"echo"}`, `{}`, nil)
}

// TestAuditTruncates: a caller's long name is cut in the record, on a
// rune boundary.
func TestAuditTruncates(t *testing.T) {
	d, log, _ := testDoor(t, access.Rules{{Principals: []string{"*"}, Servers: []string{"s"}}}, Limits{})
	long := "a" + strings.Repeat("é", 200) // byte 256 is inside an é
	params, _ := json.Marshal(map[string]string{"name": long})
	metaCtx := metadata.NewIncomingContext(caller("alice"), metadata.Pairs("x-request-id", strings.Repeat("r", 300)))
	if _, ref := d.Admit(metaCtx, NewRequest(ViaGRPC, &Server{Name: "s"}, "tools/call", params)); ref == nil {
		t.Fatal("a tool no rule allows was admitted")
	}
	rec := log.one(t)
	name, _ := rec["name"].(string)
	if !utf8.ValidString(name) || name != long[:255]+"..." {
		t.Errorf("name = %q (%d bytes), want the first 255 bytes and ...", name, len(name))
	}
	if id, _ := rec["client_request_id"].(string); id != strings.Repeat("r", MaxLogValue)+"..." {
		t.Errorf("client_request_id of %d bytes", len(id))
	}
	if got := TruncateLogValue("short"); got != "short" {
		t.Errorf("TruncateLogValue(short) = %q", got)
	}
}

// TestFilterList: a list result keeps what the caller may use, and the
// rest of the result as it was; other methods, results without the list
// and a door without rules pass results unchanged.
func TestFilterList(t *testing.T) {
	d := New(nil, testRules, Limits{})
	alice := caller("alice")
	for _, tc := range []struct{ method, res, want string }{
		{"tools/list", `{"tools":[{"name":"echo"},{"name":"secret"},{"name":"read_x","d":1}],"nextCursor":"c"}`,
			`{"tools":[{"name":"echo"},{"name":"read_x","d":1}],"nextCursor":"c"}`},
		{"tools/list", `{"tools":[{"name":"secret"}]}`, `{"tools":[]}`},
		{"prompts/list", `{"prompts":[{"name":"greet"},{"name":"other"}]}`, `{"prompts":[{"name":"greet"}]}`},
		{"resources/list", `{"resources":[{"uri":"demo://private/1"},{"uri":"demo://public/1"}]}`, `{"resources":[{"uri":"demo://public/1"}]}`},
		{"resources/templates/list", `{"resourceTemplates":[{"uriTemplate":"demo://public/{x}"},{"uriTemplate":"demo://private/{x}"}]}`,
			`{"resourceTemplates":[{"uriTemplate":"demo://public/{x}"}]}`},
		{"tools/list", `{"other":[]}`, `{"other":[]}`},
		{"tools/call", `{"tools":[{"name":"secret"}]}`, `{"tools":[{"name":"secret"}]}`},
	} {
		if got := d.FilterList(alice, "s", tc.method, json.RawMessage(tc.res)); string(got) != tc.want {
			t.Errorf("FilterList(%s, %s) = %s, want %s", tc.method, tc.res, got, tc.want)
		}
	}
	// Another server: alice may use nothing of it.
	if got := d.FilterList(alice, "t", "tools/list", json.RawMessage(`{"tools":[{"name":"echo"}]}`)); string(got) != `{"tools":[]}` {
		t.Errorf("another server's list = %s", got)
	}
	open := New(nil, nil, Limits{})
	res := json.RawMessage(`{"tools":[{"name":"secret"}]}`)
	if got := open.FilterList(alice, "s", "tools/list", res); string(got) != string(res) {
		t.Errorf("without rules: %s", got)
	}
}

// TestTarget: what each method names, for the rules.
func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		method, params string
		kind           access.Kind
		names          []string
	}{
		{"tools/call", `{"name":"echo"}`, access.Tool, []string{"echo"}},
		{"prompts/get", `{"name":"p"}`, access.Prompt, []string{"p"}},
		{"resources/read", `{"uri":"a://1"}`, access.Resource, []string{"a://1"}},
		{"resources/subscribe", `{"uri":"a://2"}`, access.Resource, []string{"a://2"}},
		{"resources/unsubscribe", `{"uri":"a://3"}`, access.Resource, []string{"a://3"}},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"a://{x}"}}`, access.Resource, []string{"a://{x}"}},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"}}`, access.Prompt, []string{"p"}},
		{"subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`, access.Resource, nil},
		{"tools/call", `{}`, access.Tool, []string{""}},
		{"ping", `{}`, access.Server, nil},
	} {
		kind, names := Target(tc.method, json.RawMessage(tc.params))
		if kind != tc.kind || !slices.Equal(names, tc.names) {
			t.Errorf("Target(%s, %s) = %v %q, want %v %q", tc.method, tc.params, kind, names, tc.kind, tc.names)
		}
	}
	if r := NewRequest(ViaGRPC, nil, "ping", nil); r.name() != "" {
		t.Errorf("a request naming nothing has the name %q", r.name())
	}
	if !IsToolError(json.RawMessage(`{"isError":true}`)) || IsToolError(json.RawMessage(`{"isError":false}`)) || IsToolError(nil) {
		t.Errorf("IsToolError is wrong")
	}
}

// TestAdmitScopes: an OAuth token's scopes grant through the rules; a
// call beyond them is refused with the scopes to ask for (its own and the
// first that grants it), in the status's ErrorInfo, the JSON-RPC error's
// data and the audit record; a token issued for another server's
// resource is refused whatever its scopes.
func TestAdmitScopes(t *testing.T) {
	iss := testkit.NewOAuthIssuer(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	auth, err := access.New(ctx, access.Config{OAuth: &access.OAuthConfig{Issuer: iss.URL, Resource: "https://bridge.example", Scopes: []access.Scope{
		{Name: "mcp:read", Servers: []string{"*"}, Resources: []string{"*"}},
		{Name: "s:tools", Servers: []string{"s"}, Tools: []string{"*"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	d, log, _ := testDoor(t, nil, Limits{})
	d.SetAccess(auth, nil)
	token := func(aud, scope string) context.Context {
		p, err := auth.Check(access.Credentials{Authorization: []string{"Bearer " + iss.Sign(t, iss.Claims(aud, "alice", scope, time.Hour))}})
		if err != nil {
			t.Fatal(err)
		}
		return access.NewContext(context.Background(), p)
	}
	s := &Server{Name: "s"}
	call := NewRequest(ViaHTTP, s, "tools/call", json.RawMessage(`{"name":"echo"}`))
	if pass, ref := d.Admit(token("https://bridge.example", "mcp:read s:tools"), call); ref != nil {
		t.Fatalf("a token with the scope: %v", ref.CallError)
	} else {
		pass.Release()
	}
	_, ref := d.Admit(token("https://bridge.example", "mcp:read"), call)
	if ref == nil || ref.Scope != "mcp:read s:tools" || string(ref.RPC.Data) != `{"error":"insufficient_scope","scope":"mcp:read s:tools"}` {
		t.Fatalf("a token without the scope: %+v", ref)
	}
	st := status.Convert(ref.Status(call))
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if st.Code() != codes.PermissionDenied || info.GetMetadata()["scope"] != "mcp:read s:tools" || info.GetMetadata()["error"] != "insufficient_scope" {
		t.Errorf("the status: %v %v", st, info)
	}
	wantFields(t, log.one(t), map[string]string{"auth": "oauth", "refused": RefusedDenied, "scope": "mcp:read s:tools"})
	// No scope grants a tool of another server: a plain denial.
	_, ref = d.Admit(token("https://bridge.example", "mcp:read"), NewRequest(ViaHTTP, &Server{Name: "t"}, "tools/call", json.RawMessage(`{"name":"echo"}`)))
	if ref == nil || ref.Scope != "" || ref.RPC.Data != nil {
		t.Errorf("a tool no scope grants: %+v", ref)
	}
	log.records(t)
	// A token for server t's resource, on server s.
	_, ref = d.Admit(token("https://bridge.example/mcp/t", "mcp:read s:tools"), call)
	if ref == nil || !strings.Contains(ref.RPC.Message, "another resource") {
		t.Errorf("a token for another server's resource: %+v", ref)
	}
	// Through an aggregate whose resource the token is for.
	through := NewRequest(ViaHTTP, s, "tools/call", json.RawMessage(`{"name":"echo"}`))
	through.Aggregate = &Aggregated{Server: "all", Name: "s_echo"}
	if pass, ref := d.Admit(token("https://bridge.example/mcp/all", "s:tools"), through); ref != nil {
		t.Errorf("a token for the aggregate's resource, on its member: %v", ref.CallError)
	} else {
		pass.Release()
	}
}

// TestTaskOwners: a task a child created answers its creator only: another
// principal's tasks/get, tasks/update, tasks/result and tasks/cancel are
// refused as an unknown task, as is an authenticated caller's naming a
// task the door never saw created; tasks/list keeps the caller's own;
// without authentication everything passes.
func TestTaskOwners(t *testing.T) {
	d, log, refused := testDoor(t, nil, Limits{})
	s := &Server{Name: "s"}
	alice, bob := caller("alice"), caller("bob")
	// The child's answers to tools/call, as Pass.Call hands them on.
	answer := func(ctx context.Context, res string) {
		(&Pass{d: d, ctx: ctx, req: NewRequest(ViaGRPC, s, "tools/call", json.RawMessage(`{"name":"build"}`))}).answered(nil, json.RawMessage(res))
	}
	answer(alice, `{"resultType":"task","taskId":"t-alice","status":"working","ttlMs":60000}`)
	answer(bob, `{"task":{"taskId":"t-bob","status":"working","ttl":null}}`)
	answer(bob, `{"content":[{"type":"text","text":"no task, though it says \"taskId\""}]}`)
	for _, tc := range []struct {
		ctx    context.Context
		method string
		id     string
		ok     bool
	}{
		{alice, "tasks/get", "t-alice", true},
		{alice, "tasks/cancel", "t-alice", true},
		{bob, "tasks/get", "t-alice", false},
		{bob, "tasks/update", "t-alice", false},
		{bob, "tasks/result", "t-alice", false},
		{bob, "tasks/cancel", "t-alice", false},
		{bob, "tasks/get", "t-bob", true},
		{alice, "tasks/get", "t-unseen", false},
		{context.Background(), "tasks/get", "t-unseen", true}, // anonymous: the child answers
		{alice, "tasks/get", "t-alice-other-server", false},
	} {
		req := NewRequest(ViaGRPC, s, tc.method, json.RawMessage(`{"taskId":"`+tc.id+`"}`))
		pass, ref := d.Admit(tc.ctx, req)
		if (ref == nil) != tc.ok {
			t.Errorf("%s %s by %q: refused %v, want allowed %v", tc.method, tc.id, access.CallerID(tc.ctx), ref, tc.ok)
		}
		if ref != nil && (ref.RPC.Code != -32602 || ref.RPC.Message != "Task not found" || ref.Why != RefusedDenied) {
			t.Errorf("the refusal: %+v", ref.CallError)
		}
		pass.Release()
	}
	if got := len(refused()); got != 6 {
		t.Errorf("%d refusals counted, want 6", got)
	}
	if recs := log.records(t); len(recs) != 6 || recs[0]["refused"] != RefusedDenied {
		t.Errorf("audit records: %v", recs)
	}
	list := json.RawMessage(`{"tasks":[{"taskId":"t-alice"},{"taskId":"t-bob"},{"taskId":"t-unseen"}],"nextCursor":"2"}`)
	if got := string(d.tasks.filterTasks("s", access.CallerID(bob), list)); got != `{"tasks":[{"taskId":"t-bob"}],"nextCursor":"2"}` {
		t.Errorf("bob's tasks/list: %s", got)
	}
	// An anonymous caller (no authentication) sees what no principal owns.
	if got := string(d.tasks.filterTasks("s", "", list)); got != `{"tasks":[{"taskId":"t-unseen"}],"nextCursor":"2"}` {
		t.Errorf("an anonymous caller's tasks/list: %s", got)
	}
}

// TestAuditTasks: the record of a tools/call that created a task names
// it, and tasks/update and tasks/cancel are recorded with the task they
// name; tasks/get, a read, is not.
func TestAuditTasks(t *testing.T) {
	d, log, _ := testDoor(t, nil, Limits{})
	s := &Server{Name: "s"}
	alice := caller("alice")
	// Each request admitted, answered by the child as Pass.Call hands the
	// answer on, and recorded.
	through := func(method, params, res string) {
		pass, ref := d.Admit(alice, NewRequest(ViaGRPC, s, method, json.RawMessage(params)))
		if ref != nil {
			t.Fatalf("%s refused: %v", method, ref.CallError)
		}
		out, _ := pass.answered(nil, json.RawMessage(res))
		pass.Record(time.Now(), out, nil)
		pass.Release()
	}
	through("tools/call", `{"name":"build"}`, `{"resultType":"task","taskId":"t-1","status":"working"}`)
	through("tools/call", `{"name":"build","task":{}}`, `{"task":{"taskId":"t-2","status":"working"}}`)
	for _, m := range []string{"tasks/update", "tasks/cancel", "tasks/get"} {
		through(m, `{"taskId":"t-1"}`, `{}`)
	}
	recs := log.records(t)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4 (tasks/get is not audited): %v", len(recs), recs)
	}
	for i, want := range []struct{ method, task string }{{"tools/call", "t-1"}, {"tools/call", "t-2"}, {"tasks/update", "t-1"}, {"tasks/cancel", "t-1"}} {
		wantFields(t, recs[i], map[string]string{"method": want.method, "task_id": want.task, "principal": "alice", "outcome": "ok"})
	}
}

// TestTaskCaps: past a server's caps on live tasks a created task is
// refused as RESOURCE_EXHAUSTED-to-be (-32603, retryable, with a retry
// delay), per authenticated principal and for the server; a task seen
// final no longer counts; the counts by status are what the metric shows.
func TestTaskCaps(t *testing.T) {
	d, _, _ := testDoor(t, nil, Limits{})
	s := &Server{Name: "s", Tasks: TaskCaps{Max: 3, MaxPerPrincipal: 2}}
	alice, bob, carol := caller("alice"), caller("bob"), caller("carol")
	create := func(ctx context.Context, id string) error {
		_, err := (&Pass{d: d, ctx: ctx, req: NewRequest(ViaGRPC, s, "tools/call", json.RawMessage(`{"name":"build"}`))}).
			answered(nil, json.RawMessage(`{"resultType":"task","taskId":"`+id+`","status":"working"}`))
		return err
	}
	for _, id := range []string{"a1", "a2"} {
		if err := create(alice, id); err != nil {
			t.Fatalf("alice's %s: %v", id, err)
		}
	}
	err := create(alice, "a3")
	var ce *rpcerr.CallError
	if !errors.As(err, &ce) || ce.RPC.Code != -32603 || ce.RetryAfter <= 0 || !strings.Contains(ce.RPC.Message, "max_per_principal 2") {
		t.Fatalf("alice's third live task: %v, want the per-principal cap", err)
	}
	if err := create(bob, "b1"); err != nil {
		t.Fatalf("bob's first: %v", err)
	}
	if err := create(carol, "c1"); err == nil || !strings.Contains(err.Error(), "tasks.max 3") {
		t.Fatalf("the server's fourth live task: %v, want the server cap", err)
	}
	// a1 is seen completed: it no longer counts.
	pass, ref := d.Admit(alice, NewRequest(ViaGRPC, s, "tasks/get", json.RawMessage(`{"taskId":"a1"}`)))
	if ref != nil {
		t.Fatal(ref.CallError)
	}
	if _, err := pass.answered(nil, json.RawMessage(`{"taskId":"a1","status":"completed"}`)); err != nil {
		t.Fatal(err)
	}
	pass.Release()
	if err := create(carol, "c1"); err != nil {
		t.Fatalf("carol's task after a1 ended: %v", err)
	}
	if got := d.TaskCounts()["s"]; got["working"] != 3 || got["completed"] != 1 {
		t.Errorf("task counts: %v, want 3 working and 1 completed", got)
	}
	if got := d.Tasks("s", access.CallerID(alice), 0, 10); len(got) != 2 || got[0].ID != "a1" || got[1].ID != "a2" {
		t.Errorf("alice's tasks: %+v", got)
	}
	if got := d.Tasks("s", access.CallerID(alice), 1, 10); len(got) != 1 || got[0].ID != "a2" {
		t.Errorf("alice's tasks after the first: %+v", got)
	}
}
