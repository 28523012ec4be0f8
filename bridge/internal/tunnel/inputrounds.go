package tunnel

// The input rounds of a 2026 client on a 2025 child (crossera.go): the
// child's server requests during a call become input_required results,
// and the client's retry resumes the call.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// inputOp is a 2026 client's tools/call, prompts/get or resources/read on
// a legacy child. Its child call may outlive the tunnel request that
// started it: each batch of server requests the child sends meanwhile
// becomes an input_required round, parked under a requestState until the
// client's retry resumes it.
type inputOp struct {
	method string
	digest [sha256.Size]byte // of the params without _meta, inputResponses and requestState
	caps   json.RawMessage   // the clientCapabilities of the request that started it
	ctx    context.Context   // the child call's; ends with the op
	cancel context.CancelFunc
	token  atomic.Pointer[json.RawMessage] // the current round's progress token
	asks   chan *inputAsk                  // the child's server requests
	done   chan fanout.Outcome             // one slot: the child call's outcome
	keys   int                             // input request keys minted

	// pending are the questions of the parked round, by key; owned by the
	// tunnel request that holds the op (parking hands it over under t.mu).
	pending map[string]*inputAsk
	expiry  *time.Timer // while parked
}

// inputAsk is one server request of the child, waiting for its answer.
type inputAsk struct {
	req   stdio.ServerRequest
	reply chan fanout.Outcome // one slot
}

func (a *inputAsk) answer(o fanout.Outcome) {
	select {
	case a.reply <- o:
	default:
	}
}

// mrtrDigest digests params as the retry of an MRTR round must repeat
// them.
func mrtrDigest(params json.RawMessage) [sha256.Size]byte {
	p := params
	for _, key := range []string{"_meta", "inputResponses", "requestState"} {
		p = rawjson.DeleteMember(p, key)
	}
	if c, err := rawjson.Canonical(p); err == nil {
		p = c
	}
	return sha256.Sum256(p)
}

// inputCall serves a 2026 tools/call, prompts/get or resources/read on a
// legacy child: a fresh call, or the retry of a parked round.
func (t *Tunnel) inputCall(ctx context.Context, call *tunnelCall, id json.RawMessage, method string, params json.RawMessage, mc modernCall) {
	params, token, err := takeProgressToken(params, passOf(ctx).Meta)
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	digest := mrtrDigest(params)
	var op *inputOp
	if raw, ok := rawjson.Member(params, "requestState"); ok {
		state, _ := rawjson.StringValue(raw)
		if op = t.resume(state, method, digest); op == nil {
			t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
				"Invalid params: requestState is unknown, expired, altered or for another request"))
			return
		}
		op.token.Store(&token)
		responses, _ := rawjson.Member(params, "inputResponses")
		for key, a := range op.pending {
			if r, ok := rawjson.Member(responses, key); ok {
				a.answer(fanout.Outcome{Result: r})
				delete(op.pending, key)
			}
		}
		if len(op.pending) > 0 { // ask again for what is still missing
			t.finish(id, call, t.park(op), nil)
			return
		}
	} else {
		op = t.startOp(ctx, method, params, mc, digest, token)
	}
	t.awaitOp(ctx, call, id, op)
}

// startOp starts the child call of a fresh inputOp.
//
// The child call outlives the request that started it (its retries
// carry the answers): it is observed and audited through that request's
// pass, whose places in the limits the request gave back when it ended.
func (t *Tunnel) startOp(reqCtx context.Context, method string, params json.RawMessage, mc modernCall, digest [sha256.Size]byte, token json.RawMessage) *inputOp {
	ctx, cancel := context.WithCancel(context.WithValue(t.ctx, passKey{}, passOf(reqCtx)))
	op := &inputOp{method: method, digest: digest, caps: mc.caps, ctx: ctx, cancel: cancel,
		asks: make(chan *inputAsk, maxTunnelCalls), done: make(chan fanout.Outcome, 1), pending: map[string]*inputAsk{}}
	op.token.Store(&token)
	opts, release := t.legacyOptions(passOf(reqCtx).Deadline, mc, func() json.RawMessage {
		if p := op.token.Load(); p != nil {
			return *p
		}
		return nil
	})
	t.mu.Lock()
	t.running = append(t.running, op)
	t.mu.Unlock()
	child := legacyParams(rawjson.DeleteMember(rawjson.DeleteMember(params, "inputResponses"), "requestState"))
	// A tools/call may run as the child's task when the request declares
	// the tasks extension (crossera_tasks.go); a 2026 client's own legacy
	// params.task is ignored, as a 2026 server ignores it.
	asTask := false
	if method == "tools/call" {
		child = rawjson.DeleteMember(child, "task")
		if asTask = protocol.HasTasksExtension(mc.caps) && t.childTasks(); asTask {
			child = withMember(child, "task", json.RawMessage(`{}`))
		}
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer release()
		if asTask {
			// The task's questions may come before its creation is
			// answered: the relay holds them for the binding.
			defer t.child().Relay.ExpectTask()()
		}
		start := time.Now()
		res, err := t.callChild(ctx, child, opts)
		if asTask && err != nil && asRPCError(err).Code == jsonrpc.CodeMethodNotFound {
			// The tool does not run as a task: in the request, then.
			res, err = t.callChild(ctx, rawjson.DeleteMember(child, "task"), opts)
		}
		t.audit(ctx, start, res, err)
		var o fanout.Outcome
		switch {
		case err != nil && method == "tools/call" && !asTask && t.childTasks() && asRPCError(err).Code == jsonrpc.CodeMethodNotFound:
			// A tool that runs only as a task, called without the
			// extension: 2026's refusal.
			o.Err = missingTasksExtension()
		case err != nil:
			o.Err = asRPCError(modernError(err))
		case asTask:
			o.Result = t.modernResult(method, t.modernCreated(res))
		default:
			o.Result = t.modernResult(method, res)
		}
		op.done <- o
	}()
	return op
}

// awaitOp waits for the op's outcome or its next questions, as the answer
// to the tunnel request id.
func (t *Tunnel) awaitOp(ctx context.Context, call *tunnelCall, id json.RawMessage, op *inputOp) {
	select {
	case o := <-op.done:
		t.endOp(op)
		if o.Err != nil {
			t.finish(id, call, nil, o.Err)
			return
		}
		t.finish(id, call, o.Result, nil)
	case a := <-op.asks:
		asks := t.gather(op, a)
		if missing := missingCaps(op.caps, asks); missing != nil {
			for _, a := range asks {
				a.answer(fanout.Outcome{Err: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
					"The client's request did not declare the capability %s needs", a.req.Method)})
			}
			t.endOp(op)
			t.finish(id, call, nil, jsonrpc.WithData(jsonrpc.CodeMissingCapability,
				"Missing required client capability", struct {
					Required json.RawMessage `json:"requiredCapabilities"`
				}{missing}))
			return
		}
		for _, a := range asks {
			op.keys++
			op.pending["input-"+strconv.Itoa(op.keys)] = a
		}
		t.finish(id, call, t.park(op), nil)
	case <-ctx.Done(): // the client cancelled the request, or the tunnel ends
		t.endOp(op)
		t.finish(id, call, nil, ctx.Err())
	}
}

// gather collects the server requests sent together with a: those that
// follow it within inputGather of each other.
func (t *Tunnel) gather(op *inputOp, a *inputAsk) []*inputAsk {
	asks := []*inputAsk{a}
	timer := time.NewTimer(inputGather)
	defer timer.Stop()
	for {
		select {
		case a := <-op.asks:
			asks = append(asks, a)
			timer.Reset(inputGather)
		case <-timer.C:
			return asks
		}
	}
}

// missingCaps is the ClientCapabilities that the asks need and caps does
// not declare, nil when none is missing.
func missingCaps(caps json.RawMessage, asks []*inputAsk) json.RawMessage {
	var need []string
	for _, a := range asks {
		kind := map[string]string{"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}[a.req.Method]
		if _, ok := rawjson.Member(caps, kind); !ok && kind != "" && !slices.Contains(need, kind) {
			need = append(need, kind)
		}
	}
	if need == nil {
		return nil
	}
	out := []byte{'{'}
	for i, kind := range need {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(rawjson.AppendString(out, kind), `:{}`...)
	}
	return append(out, '}')
}

// park stores the op under a fresh requestState until the client's retry
// (or the server request timeout, which ends the op) and returns the
// input_required result that asks its pending questions.
func (t *Tunnel) park(op *inputOp) json.RawMessage {
	var b [16]byte
	_, _ = rand.Read(b[:])
	state := "rs-" + hex.EncodeToString(b[:])
	out := []byte(`{"resultType":"input_required","inputRequests":{`)
	first := true
	for key, a := range op.pending {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(rawjson.AppendString(out, key), `:{"method":`...)
		out = rawjson.AppendString(out, a.req.Method)
		// params always: a request of the child's without them (roots/list)
		// still has its object in an input request, as the 2026 clients
		// read it (the Go SDK's cannot decode one without).
		params := a.req.Params
		if params == nil {
			params = json.RawMessage(`{}`)
		}
		out = append(append(out, `,"params":`...), params...)
		out = append(out, '}')
	}
	out = rawjson.AppendString(append(out, `},"requestState":`...), state)
	out = append(out, '}')
	t.mu.Lock()
	t.running = slices.DeleteFunc(t.running, func(x *inputOp) bool { return x == op })
	t.parked[state] = op
	op.expiry = time.AfterFunc(t.child().Relay.Timeout, func() {
		if t.unpark(state) == op {
			t.endOp(op)
		}
	})
	t.mu.Unlock()
	return out
}

// unpark removes a parked op and returns it, nil when none is parked under
// state.
func (t *Tunnel) unpark(state string) *inputOp {
	t.mu.Lock()
	defer t.mu.Unlock()
	op := t.parked[state]
	if op == nil {
		return nil
	}
	delete(t.parked, state)
	op.expiry.Stop()
	return op
}

// resume takes the op parked under state back for the retry of the same
// request (method and params), nil when there is none.
func (t *Tunnel) resume(state, method string, digest [sha256.Size]byte) *inputOp {
	t.mu.Lock()
	op := t.parked[state]
	ok := op != nil && op.method == method && op.digest == digest
	t.mu.Unlock()
	if !ok || t.unpark(state) != op {
		return nil
	}
	t.mu.Lock()
	t.running = append(t.running, op)
	t.mu.Unlock()
	return op
}

// endOp cancels the op's child call (a no-op once it returned) and fails
// the questions still waiting.
func (t *Tunnel) endOp(op *inputOp) {
	t.mu.Lock()
	t.running = slices.DeleteFunc(t.running, func(x *inputOp) bool { return x == op })
	t.mu.Unlock()
	op.cancel()
	for key, a := range op.pending {
		a.answer(fanout.Outcome{Err: jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", a.req.Method)})
		delete(op.pending, key)
	}
}

// askInput hands a server request of the legacy child to the 2026 call it
// belongs to: the one running, or the most recent when several are.
func (t *Tunnel) askInput(ctx context.Context, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error) {
	t.mu.Lock()
	var op *inputOp
	if n := len(t.running); n > 0 {
		op = t.running[n-1]
	}
	t.mu.Unlock()
	if op == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError,
			"The 2026-07-28 client has no request in flight that can take %s", req.Method)
	}
	a := &inputAsk{req: req, reply: make(chan fanout.Outcome, 1)}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var reply <-chan fanout.Outcome
	var send chan<- *inputAsk = op.asks
	for { // first hand the question over, then wait for its answer
		select {
		case send <- a:
			send, reply = nil, a.reply
		case o := <-reply:
			if o.Err != nil {
				return nil, o.Err
			}
			return o.Result, nil
		case <-op.ctx.Done():
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The request that %s belongs to has ended", req.Method)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", req.Method)
		}
	}
}

// endParked ends every parked op; stopIntake calls it.
func (t *Tunnel) endParked() {
	t.mu.Lock()
	ops := make([]*inputOp, 0, len(t.parked))
	for state, op := range t.parked {
		delete(t.parked, state)
		op.expiry.Stop()
		ops = append(ops, op)
	}
	t.mu.Unlock()
	for _, op := range ops {
		t.endOp(op)
	}
}
