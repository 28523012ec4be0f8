package stdio

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// ErrTooLarge is the Cause of the error a call gets when its request or
// its response is over a line limit: the request over
// ClientConfig.MaxRequestBytes (refused before it is sent, -32600), the
// response over ClientConfig.MaxLineBytes (discarded as it arrived,
// -32603), or a request the child refused unread with an id-less error
// (its own line limit, as far as can be told, -32600). Test with
// errors.Is.
var ErrTooLarge = errors.New("stdio: message over a line limit")

// requestTooLarge refuses a request of size bytes locally.
func requestTooLarge(size, limit int) *jsonrpc.Error {
	e := jsonrpc.WithData(jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("The request is %d bytes, over the server's %d-byte line limit", size, limit),
		map[string]int{"requestBytes": size, "limit": limit})
	e.Cause = ErrTooLarge
	return e
}

// tooLong handles a line from the child that was over MaxLineBytes: the
// response it held, when its first or last bytes tell which call it
// answers, fails that call at once instead of leaving it to time out.
func (c *Client) tooLong(e *wire.LineTooLongError) {
	if n := c.cfg.Counters; n != nil {
		n.LinesTooLong.Add(1)
	}
	raw, kind := e.Peek()
	_, isInt := wire.IntID(raw)
	if kind != wire.KindResponse || !isInt && c.forwarded.Load() == 0 {
		c.log.Warn("stdio: dropped an over-long line from the server", "limit", e.Limit, "kind", kind)
		return
	}
	id := string(raw)
	c.mu.Lock()
	cl := c.inFlight(raw)
	if cl != nil {
		c.forget(cl)
	}
	c.mu.Unlock()
	if cl == nil {
		c.log.Warn("stdio: dropped an over-long response to an unknown or abandoned id", "limit", e.Limit, "id", id)
		return
	}
	err := jsonrpc.WithData(jsonrpc.CodeInternalError,
		fmt.Sprintf("The server's response exceeds the %d-byte line limit", e.Limit),
		map[string]int{"limit": e.Limit})
	err.Cause = ErrTooLarge
	c.log.Warn("stdio: failed a call whose response is over the line limit", "limit", e.Limit, "id", id)
	cl.resp <- response{err: err}
}

// noteAnswered records that the child answered a request line of size
// bytes, so that it cannot have been over the child's line limit.
func (c *Client) noteAnswered(size int) {
	for {
		old := c.answered.Load()
		if int64(size) <= old || c.answered.CompareAndSwap(old, int64(size)) {
			return
		}
	}
}

// unreadable handles an error response with a null id: the child could
// not read a line it got (JSON-RPC 2.0, section 5), and since every line
// the Client writes is valid JSON, the likely cause is the child's own
// line limit. The call in flight with the longest request fails with the
// child's error as it was sent (ErrTooLarge as its Cause), when that request is longer than any the child has
// answered: a smaller one cannot be over a limit the child has shown it
// does not have. Otherwise nothing can be told and the error is logged.
func (c *Client) unreadable(raw json.RawMessage) {
	we, ok := wire.DecodeError(raw)
	rpcErr := (*jsonrpc.Error)(we)
	if !ok {
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request"}
	}
	answered := int(c.answered.Load())
	c.mu.Lock()
	var worst *call
	for _, cl := range c.pending {
		if cl.size > answered && (worst == nil || cl.size > worst.size) {
			worst = cl
		}
	}
	if worst != nil {
		c.forget(worst)
	}
	c.mu.Unlock()
	if worst == nil {
		c.log.Warn("stdio: the server could not read a request and did not say which", "code", rpcErr.Code, "message", rpcErr.Message)
		return
	}
	c.log.Warn("stdio: the server could not read a request; failing the longest in flight",
		"id", worst.id, "requestBytes", worst.size, "longestAnswered", answered, "code", rpcErr.Code, "message", rpcErr.Message)
	rpcErr.Cause = ErrTooLarge
	worst.resp <- response{err: rpcErr}
}
