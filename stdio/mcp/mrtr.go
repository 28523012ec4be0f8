package mcp

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the one way a handler asks the client for input, in both
// eras (docs/protocol.md, "MRTR"; docs/protocol.md,
// "Server-to-client requests"):
//
//   - On a 2025 connection, [Request.Ask] sends each question as a real
//     server-to-client request (elicitation/create, sampling/createMessage,
//     roots/list) through the connection's seam.Peer, waits for the answer
//     and returns it: the handler runs once, straight through.
//   - On 2026-07-28 there are no server-to-client requests. Ask looks the
//     question's key up in the answers the client sent (inputResponses) or
//     that an earlier round carried (requestState); when one is missing it
//     returns [ErrInputRequired], the handler returns that error, and the
//     runtime answers {resultType:"input_required", inputRequests,
//     requestState}. The client retries the same request with
//     inputResponses, the runtime runs the handler again from the top, and
//     this time Ask finds its answers.
//
// So a handler is written once, as straight-line code. On 2026-07-28 what
// it does before its last Ask runs once per round, so that part should be
// free of side effects (or guarded with [Request.State]).
//
// requestState is sealed with AES-256-GCM under a per-Server key: its
// contents (the answers of earlier rounds, the handler's own state and an
// expiry) are neither readable nor forgeable, and the method plus a SHA-256
// digest of the params (without _meta, inputResponses and requestState)
// are its associated data, so a state replayed on another request or
// changed in one bit fails to open (-32602).

// ErrInputRequired is returned by [Request.Ask] and its typed forms on
// 2026-07-28 when the client has not yet answered a question. Return it
// from the handler (wrapped or not): the runtime then answers with an
// input_required result asking the questions, and runs the handler again
// on the client's retry.
//
// A handler may also return it without asking anything: the client is then
// told to retry the same request later (an input_required result holding
// only requestState, the load-shedding form).
var ErrInputRequired = errors.New("mcp: input required from the client")

// MissingCapabilityError reports a request that needs a client capability
// the client did not declare. On 2026-07-28 it is sent as -32021 with
// data.requiredCapabilities; on a 2025 connection as -32602 with the same
// data. [Request.Ask] returns it for a question the client cannot take;
// handlers may return one of their own.
type MissingCapabilityError struct {
	// Required are the capabilities the request needs.
	Required ClientCapabilities
}

// Error names the missing capabilities.
func (e *MissingCapabilityError) Error() string {
	raw, _ := rawjson.Marshal(e.Required)
	return "mcp: the client did not declare the required capabilities " + string(raw)
}

// InputRequest is one question for the client: a server-to-client request
// as the 2025 revisions define it. Build one with [ElicitInput],
// [SamplingInput] or [RootsInput].
type InputRequest struct {
	Method string          // elicitation/create, sampling/createMessage or roots/list
	Params json.RawMessage // a JSON object
}

// ElicitParams are the params of elicitation/create. Mode is "" or "form"
// for a form described by RequestedSchema (a restricted JSON Schema object
// of primitive properties), or "url" to send the user to URL. Mode is
// dropped for 2025-06-18 clients, which know forms only; ElicitationID is
// made up for 2025-11-25 URL elicitations that lack one, and dropped on
// 2026-07-28, which has none.
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// ElicitResult is the client's answer to an elicitation: Action is
// "accept" (then Content holds the form's values), "decline" or "cancel".
type ElicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content is a
// content block or, since 2025-11-25, an array of them.
type SamplingMessage struct {
	Role    Role            `json:"role"`
	Content json.RawMessage `json:"content"`
}

// CreateMessageParams are the params of sampling/createMessage. Tools and
// ToolChoice (2025-11-25 and later) need the client's sampling.tools
// capability.
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences json.RawMessage   `json:"modelPreferences,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
	Tools            json.RawMessage   `json:"tools,omitempty"`
	ToolChoice       json.RawMessage   `json:"toolChoice,omitempty"`
	Meta             json.RawMessage   `json:"_meta,omitempty"`
}

// CreateMessageResult is the client's answer to sampling/createMessage.
type CreateMessageResult struct {
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// Root is one of the client's roots.
type Root struct {
	URI  string          `json:"uri"`
	Name string          `json:"name,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ListRootsResult is the client's answer to roots/list.
type ListRootsResult struct {
	Roots []Root          `json:"roots"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// ElicitInput returns the question elicitation/create with params p.
func ElicitInput(p ElicitParams) InputRequest { return mustInput("elicitation/create", p) }

// SamplingInput returns the question sampling/createMessage with params p.
func SamplingInput(p CreateMessageParams) InputRequest {
	return mustInput("sampling/createMessage", p)
}

// RootsInput returns the question roots/list.
func RootsInput() InputRequest {
	return InputRequest{Method: "roots/list", Params: json.RawMessage(`{}`)}
}

func mustInput(method string, p any) InputRequest {
	raw, err := rawjson.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("mcp: %s params: %v", method, err)) // json.RawMessage fields that are not JSON
	}
	return InputRequest{Method: method, Params: raw}
}

// inputs is a request's side of input gathering.
type inputs struct {
	// The request's method and params when it may carry requestState
	// (2026-07-28 tools/call, prompts/get, resources/read), else "" and
	// nil; binding is their requestState binding, made on first use.
	method  string
	params  json.RawMessage
	binding []byte
	answers map[string]json.RawMessage // from requestState and inputResponses (2026-07-28)
	used    map[string]json.RawMessage // answers the handler consumed this round
	pending map[string]InputRequest    // questions to send (2026-07-28)
	state   json.RawMessage            // the handler's state from the previous round
	next    json.RawMessage            // what SetState asked to carry
}

// loadInputs reads inputResponses and requestState of a 2026-07-28
// tools/call, prompts/get or resources/read; other requests get empty
// inputs. A malformed field, or a requestState that fails to open or has
// expired, is -32602.
func (s *Server) loadInputs(c *call) (*inputs, *jsonrpc.Error) {
	in := &inputs{answers: map[string]json.RawMessage{}, used: map[string]json.RawMessage{}, pending: map[string]InputRequest{}}
	if !c.modern || !mayAsk(c.method) {
		return in, nil
	}
	in.method, in.params = c.method, c.params
	if raw, ok := rawjson.Member(c.params, "requestState"); ok {
		token, ok := rawjson.StringValue(raw)
		if !ok {
			return nil, invalidParams("requestState must be a string")
		}
		var st sealedState
		plain, ok := s.keys.open(in.stateBinding(), token)
		if !ok || json.Unmarshal(plain, &st) != nil {
			return nil, invalidParams("requestState failed its integrity check")
		}
		if time.Now().UnixMilli() >= st.Expires {
			return nil, invalidParams("requestState has expired")
		}
		maps.Copy(in.answers, st.Answers)
		in.state = st.State
		in.next = st.State
	}
	if raw, ok := rawjson.Member(c.params, "inputResponses"); ok {
		if !rawjson.IsObject(raw) {
			return nil, invalidParams("inputResponses must be an object")
		}
		for _, f := range rawjson.Fields(raw) {
			if !rawjson.IsObject(f.Value) {
				return nil, invalidParams("inputResponses[%q] must be an object", f.Key)
			}
			in.answers[f.Key] = f.Value
		}
	}
	return in, nil
}

// mayAsk reports whether method may answer input_required
// (docs/protocol.md, "MRTR").
func mayAsk(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

// sealedState is what requestState holds.
type sealedState struct {
	Expires int64                      `json:"exp"` // Unix milliseconds
	Answers map[string]json.RawMessage `json:"a,omitempty"`
	State   json.RawMessage            `json:"s,omitempty"`
}

// stateBinding returns the binding of the request's requestState (nil for
// a request that cannot carry one). It is made only when a requestState is
// opened or sealed: canonicalising the params costs more than the rest of
// a small tools/call, and most calls never need it.
func (in *inputs) stateBinding() []byte {
	if in.binding == nil && in.params != nil {
		in.binding = stateBinding(in.method, in.params)
	}
	return in.binding
}

// stateBinding is the associated data of a request's requestState: the
// method and a digest of the params that define the request. The params
// are canonicalised (object keys sorted, insignificant whitespace gone,
// numbers kept as written) so that a client that re-encodes them still
// matches.
func stateBinding(method string, params json.RawMessage) []byte {
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(string(params)))
	dec.UseNumber()
	_ = dec.Decode(&v)
	delete(v, "_meta")
	delete(v, "inputResponses")
	delete(v, "requestState")
	if args, ok := v["arguments"].(map[string]any); ok && len(args) == 0 {
		delete(v, "arguments") // no arguments and {} mean the same
	}
	canon, _ := json.Marshal(v)
	sum := sha256.Sum256(canon)
	return []byte("mcp requestState v1\n" + method + "\n" + hex.EncodeToString(sum[:]))
}

// keys are a Server's secrets, derived from one.
type keys struct {
	aead   cipher.AEAD // seals requestState
	cursor []byte      // signs pagination cursors
}

func newKeys(secret []byte) keys {
	block, err := aes.NewCipher(derive(secret, "mcp requestState v1"))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return keys{aead: aead, cursor: derive(secret, "mcp cursor v1")}
}

func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

func (k keys) seal(binding, plain []byte) string {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
	rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(k.aead.Seal(nonce, nonce, plain, binding))
}

func (k keys) open(binding []byte, token string) ([]byte, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < k.aead.NonceSize() {
		return nil, false
	}
	n := k.aead.NonceSize()
	plain, err := k.aead.Open(nil, raw[:n], raw[n:], binding)
	return plain, err == nil
}

// State returns the state the handler set with [Request.SetState] in the
// previous round of this request, from a verified requestState, or nil in
// the first round and on 2025 connections (where there are no rounds).
func (r *Request) State() json.RawMessage { return r.in.state }

// SetState sets what the next round of this request will find in
// [Request.State], if this round ends with [ErrInputRequired]. It is
// carried sealed inside requestState; state must be valid JSON and
// should be small. By default a round carries the previous round's state.
func (r *Request) SetState(state json.RawMessage) { r.in.next = state }

// Ask asks the client the questions and returns its answers by key. Keys
// name the questions: on 2026-07-28 they are the keys of inputRequests and
// inputResponses, so they must stay the same when the handler runs again.
//
// On a 2025 connection Ask sends the questions at once, as concurrent
// server-to-client requests (a client, or a bridge that turns them into
// one input_required round, sees them together), and returns when all are
// answered, when one fails (the others are then cancelled) or when ctx
// ends. On 2026-07-28 it returns at once: the
// answers when the client sent them all, else [ErrInputRequired] (the
// questions are kept for the input_required result; return the error).
//
// Either way a question the client cannot take (no elicitation capability,
// no form or URL mode, no sampling or sampling.tools, no roots) gives a
// [*MissingCapabilityError], and so does URL elicitation on 2025-06-18.
func (r *Request) Ask(ctx context.Context, questions map[string]InputRequest) (map[string]json.RawMessage, error) {
	c := r.c
	var missing ClientCapabilities
	lacking := false
	for _, key := range slices.Sorted(maps.Keys(questions)) {
		q := questions[key]
		if key == "" || !slices.Contains(protocol.InputMethods, q.Method) || !rawjson.IsObject(q.Params) {
			return nil, fmt.Errorf("mcp: Ask: invalid question %q (method %q)", key, q.Method)
		}
		if !c.modern || r.in.answers[key] == nil {
			if need, ok := required(c, q); !ok {
				missing = mergeCaps(missing, need)
				lacking = true
			}
		}
	}
	if lacking {
		return nil, &MissingCapabilityError{Required: missing}
	}
	switch {
	case r.task != nil && c.modern:
		return r.task.ask(ctx, c, questions)
	case r.task != nil:
		return r.askLegacyTask(ctx, questions)
	}
	if !c.modern {
		return r.askLegacy(ctx, questions)
	}
	answers := make(map[string]json.RawMessage, len(questions))
	for _, key := range slices.Sorted(maps.Keys(questions)) {
		q := questions[key]
		a, ok := r.in.answers[key]
		switch {
		case !ok:
			r.in.pending[key] = InputRequest{Method: q.Method, Params: eraParams(q, c.version)}
		case !validAnswer(q.Method, a):
			return nil, invalidParams("inputResponses[%q] is not a valid %s result", key, q.Method)
		default:
			answers[key] = a
			r.in.used[key] = a
		}
	}
	if len(r.in.pending) > 0 {
		return nil, ErrInputRequired
	}
	return answers, nil
}

// askLegacy is Ask on a 2025 connection: one server-to-client request per
// question, all in flight at once; the first failure cancels the rest.
func (r *Request) askLegacy(ctx context.Context, questions map[string]InputRequest) (map[string]json.RawMessage, error) {
	c := r.c
	if c.sess.peer == nil {
		return nil, errors.New("mcp: Ask: the session has no Peer to reach the client")
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		key string
		res json.RawMessage
		err error
	}
	done := make(chan answer, len(questions)) // every sender has a slot
	for key, q := range questions {
		go func() {
			res, err := c.sess.peer.Call(ctx, q.Method, eraParams(q, c.version))
			switch {
			case err != nil:
				err = fmt.Errorf("mcp: the client failed %s: %v", q.Method, err)
			case !validAnswer(q.Method, res):
				err = fmt.Errorf("mcp: the client's %s result is invalid", q.Method)
			}
			done <- answer{key, res, err}
		}()
	}
	answers := make(map[string]json.RawMessage, len(questions))
	var first error
	for range questions { // wait for every call, so none outlives Ask
		a := <-done
		switch {
		case a.err != nil && first == nil:
			first = a.err
			cancel()
		case a.err == nil:
			answers[a.key] = a.res
		}
	}
	if first != nil {
		if err := parent.Err(); err != nil {
			return nil, err
		}
		return nil, first
	}
	return answers, nil
}

// Elicit asks the client to fill in a form or visit a URL; see [Request.Ask].
func (r *Request) Elicit(ctx context.Context, key string, p ElicitParams) (*ElicitResult, error) {
	var res ElicitResult
	return &res, r.askOne(ctx, key, ElicitInput(p), &res)
}

// CreateMessage asks the client to sample its LLM; see [Request.Ask].
func (r *Request) CreateMessage(ctx context.Context, key string, p CreateMessageParams) (*CreateMessageResult, error) {
	var res CreateMessageResult
	return &res, r.askOne(ctx, key, SamplingInput(p), &res)
}

// ListRoots asks the client for its roots; see [Request.Ask].
func (r *Request) ListRoots(ctx context.Context, key string) (*ListRootsResult, error) {
	var res ListRootsResult
	return &res, r.askOne(ctx, key, RootsInput(), &res)
}

func (r *Request) askOne(ctx context.Context, key string, q InputRequest, into any) error {
	answers, err := r.Ask(ctx, map[string]InputRequest{key: q})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(answers[key], into); err != nil {
		return invalidParams("the answer to %q is not a valid %s result", key, q.Method)
	}
	return nil
}

// required reports whether the client declared what question q needs,
// and if not, what it needs.
func required(c *call, q InputRequest) (ClientCapabilities, bool) {
	caps := c.caps
	var need ClientCapabilities
	empty := json.RawMessage(`{}`)
	switch q.Method {
	case "elicitation/create":
		mode := stringMember(q.Params, "mode")
		switch {
		case mode == "url" && c.version == protocol.Version20250618:
			need.Elicitation = &ElicitationCapability{URL: empty}
			return need, false
		case c.version == protocol.Version20250618:
			need.Elicitation = &ElicitationCapability{}
		case mode == "url":
			need.Elicitation = &ElicitationCapability{URL: empty}
		default:
			need.Elicitation = &ElicitationCapability{Form: empty}
		}
		return need, caps.supportsElicitation(mode)
	case "sampling/createMessage":
		need.Sampling = &SamplingCapability{}
		if _, tools := rawjson.Member(q.Params, "tools"); tools {
			need.Sampling.Tools = empty
			return need, caps.Sampling != nil && caps.Sampling.Tools != nil
		}
		return need, caps.Sampling != nil
	default: // roots/list
		need.Roots = &RootsCapability{}
		return need, caps.Roots != nil
	}
}

func mergeCaps(a, b ClientCapabilities) ClientCapabilities {
	if b.Roots != nil {
		a.Roots = b.Roots
	}
	if b.Sampling != nil && (a.Sampling == nil || b.Sampling.Tools != nil) {
		a.Sampling = b.Sampling
	}
	if b.Elicitation != nil {
		if a.Elicitation == nil {
			a.Elicitation = &ElicitationCapability{}
		}
		if b.Elicitation.Form != nil {
			a.Elicitation.Form = b.Elicitation.Form
		}
		if b.Elicitation.URL != nil {
			a.Elicitation.URL = b.Elicitation.URL
		}
	}
	return a
}

// eraParams adapts a question's params to the protocol version: 2025-06-18
// knows no elicitation mode; 2025-11-25 URL elicitations need an
// elicitationId; 2026-07-28 has none.
func eraParams(q InputRequest, version string) json.RawMessage {
	if q.Method != "elicitation/create" {
		return q.Params
	}
	p := q.Params
	switch version {
	case protocol.Version20250618:
		p = withoutMember(p, "mode")
		p = withoutMember(p, "elicitationId")
	case protocol.Version20251125:
		if stringMember(p, "mode") == "url" && stringMember(p, "elicitationId") == "" {
			id := make([]byte, 16)
			rand.Read(id)
			p, _ = rawjson.SetMember(p, "elicitationId", rawjson.AppendString(nil, hex.EncodeToString(id)))
		}
	default:
		p = withoutMember(p, "elicitationId")
	}
	return p
}

// validAnswer checks the shape of an answer to method.
func validAnswer(method string, a json.RawMessage) bool {
	if !rawjson.IsObject(a) {
		return false
	}
	switch method {
	case "elicitation/create":
		switch stringMember(a, "action") {
		case "accept", "decline", "cancel":
			return true
		}
		return false
	case "sampling/createMessage":
		_, ok := rawjson.Member(a, "content")
		return ok
	default:
		roots, ok := rawjson.Member(a, "roots")
		return ok && len(roots) > 0 && roots[0] == '['
	}
}

// inputRequired builds the input_required reply of a round that ended
// with ErrInputRequired: the pending questions and a requestState carrying
// the answers used so far and the handler's state.
func (s *Server) inputRequired(in *inputs) (*reply, error) {
	plain, err := rawjson.Marshal(sealedState{
		Expires: time.Now().Add(s.cfg.RequestStateTTL).UnixMilli(),
		Answers: in.used,
		State:   in.next,
	})
	if err != nil {
		return nil, err
	}
	var body []byte
	body = append(body, '{')
	if len(in.pending) > 0 {
		body = append(body, `"inputRequests":{`...)
		for i, key := range slices.Sorted(maps.Keys(in.pending)) {
			q := in.pending[key]
			if i > 0 {
				body = append(body, ',')
			}
			body = rawjson.AppendString(body, key)
			body = append(body, `:{"method":`...)
			body = rawjson.AppendString(body, q.Method)
			body = append(body, `,"params":`...)
			body = append(body, q.Params...)
			body = append(body, '}')
		}
		body = append(body, "},"...)
	}
	body = append(body, `"requestState":`...)
	body = rawjson.AppendString(body, s.keys.seal(in.stateBinding(), plain))
	body = append(body, '}')
	return &reply{body: body, inputRequired: true}, nil
}

func stringMember(obj json.RawMessage, key string) string {
	raw, ok := rawjson.Member(obj, key)
	if !ok {
		return ""
	}
	s, _ := rawjson.StringValue(raw)
	return s
}

// withoutMember returns obj without its top-level member key, keeping the
// other members byte for byte.
func withoutMember(obj json.RawMessage, key string) json.RawMessage {
	if _, ok := rawjson.Member(obj, key); !ok {
		return obj
	}
	out := []byte{'{'}
	for _, f := range rawjson.Fields(obj) {
		if f.Key == key {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, f.RawKey...)
		out = append(out, ':')
		out = append(out, f.Value...)
	}
	return append(out, '}')
}

// settle maps what a handler's error means for the request's era: a round
// that needs input becomes an input_required reply on 2026-07-28; a
// missing capability becomes -32021 (2026-07-28) or -32602 (2025). Any
// other error is returned as it is, with handled false.
func (s *Server) settle(c *call, in *inputs, err error) (r *reply, out error, handled bool) {
	var missing *MissingCapabilityError
	switch {
	case errors.As(err, &missing):
		data := struct {
			Required ClientCapabilities `json:"requiredCapabilities"`
		}{missing.Required}
		if c.modern {
			return nil, jsonrpc.WithData(jsonrpc.CodeMissingCapability, "Missing required client capability", data), true
		}
		return nil, jsonrpc.WithData(jsonrpc.CodeInvalidParams, "Invalid params: the client did not declare a capability this request needs", data), true
	case errors.Is(err, ErrInputRequired) && c.modern && mayAsk(c.method):
		r, err := s.inputRequired(in)
		return r, err, true
	case errors.Is(err, ErrInputRequired):
		return nil, fmt.Errorf("mcp: %s cannot end with ErrInputRequired under protocol version %s", c.method, c.version), true
	}
	return nil, err, false
}
