package seam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// Progress limits (docs/stdio.md, "Progress"), enforced before a frame
// reaches the coordinator.
const (
	maxProgressReports = 1000
	maxProgressMessage = 4096
)

var errReporterClosed = errors.New("stdio: progress reporter closed: the request has ended")

// ProgressReporter sends notifications/progress for one request that
// carried a _meta.progressToken (docs/protocol.md,
// "Progress and cancellation"). The transport makes one per such request
// with [NewProgressReporter] and passes it as [Request.Progress]; it is
// safe for concurrent use, and concurrent reports are written one after
// another.
//
// A nil *ProgressReporter is valid: its Report does nothing and returns nil.
type ProgressReporter struct {
	token json.RawMessage
	// send hands a complete frame to the transport and returns once it is
	// written, or fails without writing it.
	send func(ctx context.Context, frame []byte) error

	// closed is set by the coordinator when the request's outcome is
	// decided. It is atomic, not under mu, because a Report holds mu while
	// it waits for the coordinator.
	closed atomic.Bool

	mu   sync.Mutex
	n    int
	last float64
}

// NewProgressReporter returns the reporter of the request whose
// _meta.progressToken is token (valid, compact JSON). send hands a complete
// frame to the transport and returns once it is written, or fails without
// writing it.
func NewProgressReporter(token json.RawMessage, send func(ctx context.Context, frame []byte) error) *ProgressReporter {
	return &ProgressReporter{token: token, send: send}
}

// Report writes one notifications/progress frame,
// {progressToken, progress, total?, message?}, with neither an id nor
// params._meta, and returns only once it is written, so that every progress
// frame of a request precedes its response (docs/stdio.md, "Progress").
//
// It refuses, writing nothing, a progress that is not finite or not
// greater than the previous one, a total that is not finite, a message over
// 4,096 bytes or not valid UTF-8 (an empty message is left out), and more
// than 1,000 reports. It fails, writing nothing, once the request has ended
// (its response written, cancelled by the client, past its deadline),
// when ctx ends, or when its turn to be written does not come within 5 s.
func (p *ProgressReporter) Report(ctx context.Context, progress float64, total *float64, message string) error {
	if p == nil {
		return nil
	}
	switch {
	case math.IsNaN(progress) || math.IsInf(progress, 0):
		return fmt.Errorf("stdio: progress %v is not finite", progress)
	case total != nil && (math.IsNaN(*total) || math.IsInf(*total, 0)):
		return fmt.Errorf("stdio: progress total %v is not finite", *total)
	case len(message) > maxProgressMessage:
		return fmt.Errorf("stdio: progress message of %d bytes exceeds %d", len(message), maxProgressMessage)
	case !utf8.ValidString(message):
		return errors.New("stdio: progress message is not valid UTF-8")
	}
	// Holding mu across the write keeps concurrent reports in the order
	// their values were checked.
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed.Load():
		return errReporterClosed
	case p.n >= maxProgressReports:
		return fmt.Errorf("stdio: more than %d progress reports", maxProgressReports)
	case p.n > 0 && !(progress > p.last):
		return fmt.Errorf("stdio: progress %v does not increase on %v", progress, p.last)
	}
	params := append(make([]byte, 0, 64+len(message)), `{"progressToken":`...)
	params = append(params, p.token...)
	params = append(params, `,"progress":`...)
	params = rawjson.AppendFloat(params, progress)
	if total != nil {
		params = append(params, `,"total":`...)
		params = rawjson.AppendFloat(params, *total)
	}
	if message != "" {
		params = append(params, `,"message":`...)
		params = rawjson.AppendString(params, message)
	}
	params = append(params, '}')
	if err := p.send(ctx, wire.AppendNotification(nil, "notifications/progress", params)); err != nil {
		return err
	}
	p.n++
	p.last = progress
	return nil
}

// Close stops the reporter, when the request's outcome is decided: later
// reports fail without reaching the transport (which refuses them anyway
// once the request has ended).
func (p *ProgressReporter) Close() {
	if p == nil {
		return
	}
	p.closed.Store(true)
}
