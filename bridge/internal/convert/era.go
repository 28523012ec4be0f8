package convert

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Era is what of a child's protocol revision decides which fields the
// typed messages carry and which request fields the child can take.
type Era struct {
	version   string
	modern    bool // 2026-07-28: resultType, ttlMs, cacheScope, MRTR, logLevel in _meta
	icons     bool // 2025-11-25 and 2026-07-28
	execution bool // 2025-11-25 only
}

// EraOf returns the era of a negotiated protocol version.
func EraOf(version string) Era {
	return Era{
		version:   version,
		modern:    protocol.Modern(version),
		icons:     version == protocol.Version20260728 || version == protocol.Version20251125,
		execution: version == protocol.Version20251125,
	}
}

// Result types of 2026-07-28 results (docs/protocol.md, "Result stamping").
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

// resultType returns a 2026-07-28 result's resultType: "complete" when
// missing (docs/protocol.md, "JSON-RPC basics"), and always "complete" for a legacy child, whose
// results have none.
func resultType(raw json.RawMessage, r Era) (string, error) {
	if !r.modern {
		return resultComplete, nil
	}
	v, ok := rawjson.Member(raw, "resultType")
	if !ok || isNull(v) {
		return resultComplete, nil
	}
	return jsonString(v)
}

// completeOnly refuses a 2026-07-28 result that is not complete, for methods
// that cannot answer input_required.
func completeOnly(raw json.RawMessage, r Era) error {
	rt, err := resultType(raw, r)
	if err != nil {
		return fmt.Errorf("result.resultType: %w", err)
	}
	if rt != resultComplete {
		return fmt.Errorf("resultType %q is not one this RPC can return", rt)
	}
	return nil
}

// mrtr reads a 2026-07-28 tools/call, prompts/get or resources/read result's
// resultType: nil for a complete result, the InputRequired for an
// input_required one, and an error for any other (an extension's "task"
// cannot be told in the typed messages; Call returns it).
func mrtr(raw json.RawMessage, r Era) (*mcpbridgev1.InputRequired, error) {
	rt, err := resultType(raw, r)
	switch {
	case err != nil:
		return nil, fmt.Errorf("result.resultType: %w", err)
	case rt == resultComplete:
		return nil, nil
	case rt != resultInputRequired:
		return nil, fmt.Errorf("resultType %q is not one this RPC can return", rt)
	}
	ir := &mcpbridgev1.InputRequired{}
	// Other members (one real server adds content:null) are tolerated and
	// left out (docs/protocol.md, "MRTR").
	err = members(raw, "result", func(k string, v json.RawMessage) (err error) {
		switch k {
		case "inputRequests":
			ir.InputRequests, err = Struct(v)
		case "requestState":
			ir.RequestState, err = jsonString(v)
		case "_meta":
			ir.Meta, err = Struct(v)
		}
		return err
	})
	return ir, err
}

// Modern reports a 2026-07-28 era.
func (r Era) Modern() bool { return r.modern }
