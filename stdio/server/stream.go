package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// This file serves subscriptions/listen streams (docs/stdio.md,
// "Listen streams"): opening, acknowledging, pumping one event at a time,
// and ending.

// serveStream is one open listen stream. Its pump goroutine is the only
// caller of src.Next and, once started, of src.Close.
type serveStream struct {
	key    string
	id     json.RawMessage
	src    seam.Source
	cancel context.CancelCauseFunc // ends the pump; nil before it starts
	done   chan struct{}           // closed when the pump returns

	live bool // owned by the coordinator
}

// runListen is a listen's job: it opens the Source, hands it to the
// coordinator with its acknowledgement, and returns, freeing the executor
// slot.
func (c *serveConn) runListen(ctx context.Context, e *execution) {
	src, panicked, err := c.callListen(ctx, e.req)
	if ctx.Err() != nil {
		if src != nil {
			c.closeSource(src, context.Cause(ctx))
		}
		return
	}
	if !panicked && err == nil && src == nil {
		err = errors.New("stdio: Session.Listen returned neither a Source nor an error")
	}
	var ack []byte
	if !panicked && err == nil {
		ack, err = c.ackFrame(e.id, src)
		if err != nil {
			c.closeSource(src, err)
			err = fmt.Errorf("stdio: Source.Accepted: %w", err)
			c.log.Error("stdio: invalid listen acknowledgement", "id", string(e.id), "error", err)
			frame := wire.AppendError(nil, e.id, (*wire.Error)(serveInternal("Server produced an invalid result")))
			_ = c.send(&frameReq{kind: frameFinal, exec: e, frame: frame})
			return
		}
	}
	if panicked || err != nil {
		frame, _ := c.finalFrame(e, nil, panicked, err)
		_ = c.send(&frameReq{kind: frameFinal, exec: e, frame: frame})
		return
	}
	if err := c.send(&frameReq{kind: frameOpen, exec: e, src: src, frame: ack}); errors.Is(err, errServeStopped) {
		// Never handed over; otherwise the coordinator owns src now.
		c.closeSource(src, c.stopCause)
	}
}

func (c *serveConn) callListen(ctx context.Context, req *seam.Request) (src seam.Source, panicked bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: Session.Listen panicked", "id", string(req.ID), "panic", r, "stack", string(debug.Stack()))
			panicked = true
		}
	}()
	src, err = c.sess.Listen(ctx, req)
	return src, false, err
}

// ackFrame builds notifications/subscriptions/acknowledged for listen id.
func (c *serveConn) ackFrame(id json.RawMessage, src seam.Source) (frame []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: Source.Accepted panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	accepted := json.RawMessage(`{}`)
	if raw := src.Accepted(); raw != nil {
		if accepted, err = rawjson.Compact(raw); err != nil {
			return nil, err
		}
		if !rawjson.IsObject(accepted) {
			return nil, errors.New("the accepted filter is not a JSON object")
		}
	}
	params := append([]byte(`{"notifications":`), accepted...)
	params = append(params, `,"_meta":{"`+protocol.MetaSubscriptionID+`":`...)
	params = append(params, id...)
	params = append(params, "}}"...)
	return wire.AppendNotification(nil, acknowledgedMethod, params), nil
}

// open takes over a listen's Source (coordinator). It returns the terminal
// error, if any, and the producer's verdict.
func (c *serveConn) open(ctx context.Context, fr *frameReq) (err, reply error) {
	e, src := fr.exec, fr.src
	if !e.live { // cancelled, or past its deadline, while Listen ran
		c.closeSource(src, e.cause)
		return nil, errServeGone
	}
	c.finish(e, nil)
	if c.eof { // a stream opening after EOF is closed, never acknowledged
		c.closeSource(src, io.EOF)
		return nil, errServeGone
	}
	if len(c.subs) >= c.cfg.MaxSubscriptions {
		c.closeSource(src, seam.ErrCapacity)
		err = c.writeError(ctx, e.id, capacityRefusal("Subscription capacity exhausted", c.cfg.MaxSubscriptions))
		return err, err
	}
	s := &serveStream{key: e.key, id: e.id, src: src, done: make(chan struct{}), live: true}
	c.subs[s.key] = s
	// The acknowledgement goes out before the source is first pulled.
	if err := c.writeFrame(ctx, fr.frame); err != nil {
		c.closeSub(s, err)
		return err, err
	}
	var pctx context.Context
	pctx, s.cancel = context.WithCancelCause(ctx)
	c.pumps = append(c.pumps, s)
	go c.pump(pctx, s)
	return nil, nil
}

// closeSub closes an open stream without a terminal message (coordinator).
func (c *serveConn) closeSub(s *serveStream, reason error) {
	c.dropSub(s)
	if s.cancel != nil {
		s.cancel(reason) // the pump closes the source
	} else {
		c.closeSource(s.src, reason)
	}
}

// dropSub forgets a stream, freeing its id (coordinator).
func (c *serveConn) dropSub(s *serveStream) {
	s.live = false
	if c.subs[s.key] == s {
		delete(c.subs, s.key)
	}
}

// pump moves a stream's events to the coordinator one at a time: it asks
// for the next event only once the previous one has been written.
func (c *serveConn) pump(ctx context.Context, s *serveStream) {
	defer func() {
		s.cancel(nil) // release the context of a stream that ended itself
		close(s.done)
	}()
	for {
		method, params, err := c.next(ctx, s.src)
		var frame []byte
		if err == nil && ctx.Err() == nil {
			if frame, err = eventFrame(s.id, method, params); err != nil {
				err = fmt.Errorf("stdio: invalid event from the source: %w", err)
			}
		}
		if ctx.Err() != nil { // closed by Serve: no terminal message
			c.closeSource(s.src, context.Cause(ctx))
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.log.Error("stdio: subscription source failed", "id", string(s.id), "error", err)
			}
			end := c.endFrame(s.id, err)
			if serr := c.send(&frameReq{kind: frameEnd, sub: s, frame: end}); serr != nil && ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			c.closeSource(s.src, err)
			return
		}
		if err := c.send(&frameReq{kind: frameEvent, sub: s, frame: frame}); err != nil {
			reason := err
			switch {
			case ctx.Err() != nil:
				reason = context.Cause(ctx)
			case errors.Is(err, errServeStopped):
				reason = c.stopCause
			}
			c.closeSource(s.src, reason)
			return
		}
	}
}

func (c *serveConn) next(ctx context.Context, src seam.Source) (method string, params json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: Source.Next panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("stdio: Source.Next panicked: %v", r)
		}
	}()
	return src.Next(ctx)
}

// eventFrame builds an event notification whose params._meta carries the
// subscription id, keeping the source's other keys and bytes.
func eventFrame(id json.RawMessage, method string, params json.RawMessage) ([]byte, error) {
	if method == "" {
		return nil, errors.New("empty method")
	}
	p := json.RawMessage(`{}`)
	if params != nil {
		var err error
		if p, err = rawjson.Compact(params); err != nil {
			return nil, err
		}
		if !rawjson.IsObject(p) {
			return nil, errors.New("params are not a JSON object")
		}
	}
	meta, ok := rawjson.Member(p, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		meta = nil
	}
	meta, err := rawjson.SetMember(meta, protocol.MetaSubscriptionID, id)
	if err != nil {
		return nil, err
	}
	if p, err = rawjson.SetMember(p, "_meta", meta); err != nil {
		return nil, err
	}
	return wire.AppendNotification(nil, method, p), nil
}

// endFrame is a stream's terminal response: the complete result after a
// normal end, -32603 after a failure (docs/stdio.md, "Listen streams").
func (c *serveConn) endFrame(id json.RawMessage, err error) []byte {
	if !errors.Is(err, io.EOF) {
		return wire.AppendError(nil, id, (*wire.Error)(serveInternal("Subscription source failed")))
	}
	meta, _ := rawjson.SetMember(nil, protocol.MetaSubscriptionID, id)
	if info := c.serverInfo(); info != nil {
		meta, _ = rawjson.SetMember(meta, protocol.MetaServerInfo, info)
	}
	result := append([]byte(`{"resultType":"complete","_meta":`), meta...)
	return wire.AppendResponse(nil, id, append(result, '}'))
}

// serverInfo returns the session's compact serverInfo, or nil.
func (c *serveConn) serverInfo() (info json.RawMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: Session.ServerInfo panicked", "panic", r, "stack", string(debug.Stack()))
			info = nil
		}
	}()
	raw := c.sess.ServerInfo()
	if raw == nil {
		return nil
	}
	info, err := rawjson.Compact(raw)
	if err != nil || !rawjson.IsObject(info) {
		c.log.Error("stdio: Session.ServerInfo is not a JSON object", "error", err)
		return nil
	}
	return info
}

// closeSource calls src.Close, which is runtime code, safely.
func (c *serveConn) closeSource(src seam.Source, reason error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: Source.Close panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	src.Close(reason)
}
