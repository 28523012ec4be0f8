package fanout

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// TestRespondBoundToRoutingKey: an answer is taken only with the routing
// key (mcp-session) of a stream the request was offered on, also from the
// same principal; a wrong key leaves the request waiting for the right
// one.
func TestRespondBoundToRoutingKey(t *testing.T) {
	r := NewRelay("s", nil, time.Minute, false, slog.New(slog.DiscardHandler))
	session := func(key string) context.Context {
		if key == "" {
			return context.Background()
		}
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs(SessionMetadataKey, key))
	}
	reg := func(key string) *StreamReg {
		return r.OpenStream(session(key), true, true, func(*mcpbridgev1.ServerRequest) error { return nil })
	}
	req := stdio.ServerRequest{ID: json.RawMessage(`1`), Method: "elicitation/create"}
	a := reg("session-a") // the lone call in flight: it alone is offered the request
	defer a.Close()
	id := MintID()
	p := r.Offer(id, req)
	if p == nil {
		t.Fatal("Offer = nil, want the request offered to session-a's stream")
	}
	for _, key := range []string{"session-b", "", "session-a "} {
		if r.Respond(id, "", key, Outcome{Result: json.RawMessage(`{}`)}) {
			t.Errorf("Respond with routing key %q = true, want false: the request was offered to session-a alone", key)
		}
	}
	if !r.Respond(id, "", "session-a", Outcome{Result: json.RawMessage(`{"ok":1}`)}) {
		t.Fatal(`Respond with the stream's routing key = false, want true`)
	}
	if o := <-p.answer; string(o.Result) != `{"ok":1}` {
		t.Errorf("the answer = %s, want session-a's", o.Result)
	}
	r.forget(p)

	// Offered to several streams (two calls in flight), any of their
	// sessions may answer; one without mcp-session is answered without it.
	none := reg("")
	defer none.Close()
	for _, key := range []string{"session-a", ""} {
		id := MintID()
		p := r.Offer(id, req)
		if p == nil || len(p.targets) != 2 {
			t.Fatalf("Offer with two calls in flight = %v, want both streams", p)
		}
		if r.Respond(id, "", "session-c", Outcome{Result: json.RawMessage(`{}`)}) {
			t.Errorf("Respond with a session it was not offered to = true")
		}
		if !r.Respond(id, "", key, Outcome{Result: json.RawMessage(`{}`)}) {
			t.Errorf("Respond with routing key %q, one of the streams' = false, want true", key)
		}
		r.forget(p)
	}
}

// idRE is a ServerRequest id: the process's prefix, then 128 bits.
var idRE = regexp.MustCompile(`^sr-[0-9a-f]{12}-([0-9a-f]{32})$`)

// TestMintIDUnpredictable: ids carry 128 random bits each (crypto/rand),
// with none of a counter's structure. Of 4096 ids, all differ; every bit
// of the random part is set in about half of them (a counter's high bits
// never are); consecutive ids differ in about 64 bits (a counter's in
// about 2); and no two share 12 leading hex digits of it (a counter's
// share 29). For random bits each check fails with a probability below
// 1e-7.
func TestMintIDUnpredictable(t *testing.T) {
	const n = 4096
	var prefix string
	seen := map[string]bool{}
	var parts [][]byte
	for range n {
		id := MintID()
		m := idRE.FindStringSubmatch(id)
		if m == nil {
			t.Fatalf("MintID() = %q, want sr-<12 hex>-<32 hex>", id)
		}
		if p := strings.TrimSuffix(id, m[1]); prefix == "" {
			prefix = p
		} else if p != prefix {
			t.Fatalf("MintID() = %q: prefix %q, want the process's %q", id, p, prefix)
		}
		if seen[m[1]] {
			t.Fatalf("MintID() returned %q twice", id)
		}
		seen[m[1]] = true
		b, _ := hex.DecodeString(m[1])
		parts = append(parts, b)
	}
	if !MintedElsewhere("sr-000000000000-"+strings.Repeat("0", 32)) || MintedElsewhere(MintID()) {
		t.Error("MintedElsewhere does not tell another process's ids from this one's")
	}
	for bit := range 128 {
		set := 0
		for _, b := range parts {
			set += int(b[bit/8]>>(7-bit%8)) & 1
		}
		if set < n*4/10 || set > n*6/10 {
			t.Errorf("bit %d of the random part is set in %d of %d ids, want about half", bit, set, n)
		}
	}
	total := 0
	for i := 1; i < n; i++ {
		for j := range parts[i] {
			total += bits.OnesCount8(parts[i][j] ^ parts[i-1][j])
		}
	}
	if mean := float64(total) / (n - 1); mean < 60 || mean > 68 {
		t.Errorf("consecutive ids differ in %.1f bits on average, want about 64", mean)
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for s := range seen {
			if !yield(s) {
				return
			}
		}
	})
	for i := 1; i < len(sorted); i++ {
		common := 0
		for common < 32 && sorted[i][common] == sorted[i-1][common] {
			common++
		}
		if common >= 12 {
			t.Errorf("ids %s and %s share %d leading hex digits of their random part", sorted[i-1], sorted[i], common)
		}
	}
}
