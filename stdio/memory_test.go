package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// The "longline" fixture answers a request for method "long" with an
// over-long line first: a log notification of longLineBytes with no LF,
// written in chunks, then the LF, then the response. Every other request
// gets {} at once.
func init() { fixtures["longline"] = runLongLineFixture }

const (
	longLineBytes = 64 << 20
	longLineChunk = 256 << 10
)

func runLongLineFixture() int {
	in := bufio.NewReader(os.Stdin)
	out := os.Stdout
	chunk := bytes.Repeat([]byte("x"), longLineChunk)
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return 0
		}
		id, _ := requestIDParams(line)
		if id == nil {
			continue
		}
		result := json.RawMessage(`{}`)
		if bytes.Contains(line, []byte(`"method":"long"`)) {
			head := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"`)
			if _, err := out.Write(head); err != nil {
				return 1
			}
			for written := len(head); written < longLineBytes; written += len(chunk) {
				if _, err := out.Write(chunk); err != nil {
					return 1
				}
			}
			if _, err := out.Write([]byte("\"}}\n")); err != nil {
				return 1
			}
			result = json.RawMessage(`{"after":"long"}`)
		}
		if _, err := out.Write(wire.AppendResponse(nil, id, result)); err != nil {
			return 1
		}
	}
}

// Names of the runtime/metrics the test reads.
const (
	metricHeapObjects = "/memory/classes/heap/objects:bytes" // live and not yet swept
	metricHeapAllocs  = "/gc/heap/allocs:bytes"              // cumulative
)

func readMetric(tb testing.TB, name string) uint64 {
	tb.Helper()
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		tb.Fatalf("runtime/metrics has no %s", name)
	}
	return s[0].Value.Uint64()
}

// heapSampler records the peak of the heap's object bytes, sampled every
// period by a goroutine of its own until stop, which waits for it.
type heapSampler struct {
	stop    chan struct{}
	done    chan struct{}
	peak    uint64
	samples int
}

func sampleHeap(period time.Duration) *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: metricHeapObjects}}
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			metrics.Read(s)
			h.peak = max(h.peak, s[0].Value.Uint64())
			h.samples++
			select {
			case <-t.C:
			case <-h.stop:
				metrics.Read(s)
				h.peak = max(h.peak, s[0].Value.Uint64())
				h.samples++
				return
			}
		}
	}()
	return h
}

// stopSampling stops the sampler after one last sample and returns the
// peak and the number of samples.
func (h *heapSampler) stopSampling() (peak uint64, samples int) {
	close(h.stop)
	<-h.done
	return h.peak, h.samples
}

// docs/stdio.md, "Memory and timing": a 64 MB unterminated line against a
// 1 MB limit must not raise the Client's peak memory by more than 16 MB,
// and the response that follows the line must still reach its call.
//
// The heap is sampled from runtime/metrics: /memory/classes/heap/objects
// counts live objects and garbage not yet swept, so it bounds what the
// Reader holds, transiently or not. Sampling could in principle miss a
// short peak, so the bytes allocated during the transfer, which no timing
// affects, must also stay below the line's size: a Reader that ever
// materialised the line fails either way. The race detector keeps its
// shadow memory outside the Go heap and does not pad objects, so both
// figures mean the same under -race. GOGC is pinned at 100 for the test so
// that an inherited GOGC=off cannot turn churn into growth.
func TestMemoryOverlongLine(t *testing.T) {
	const (
		limit     = 1 << 20
		maxGrowth = 16_000_000
		period    = time.Millisecond
	)
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	warns := &warnCounter{}
	c := startClient(t, spec{
		fixture:      "longline",
		ClientConfig: ClientConfig{MaxLineBytes: limit, Logger: slog.New(warns)},
		Stderr:       os.Stderr,
	})
	ctx := context.Background()
	opts := &CallOptions{Timeout: 2 * time.Minute}
	// A first round trip: the reader's buffer and the Client's steady
	// state are allocated before the baseline.
	if res, err := c.Call(ctx, "warm", nil, opts); err != nil || string(res) != `{}` {
		t.Fatalf("Call(warm) = %s, %v; want {}", res, err)
	}

	runtime.GC()
	runtime.GC() // the second cycle frees what the first one's finalizers released
	base := readMetric(t, metricHeapObjects)
	allocsBefore := readMetric(t, metricHeapAllocs)
	sampler := sampleHeap(period)
	res, err := c.Call(ctx, "long", nil, opts)
	peak, samples := sampler.stopSampling()
	allocs := readMetric(t, metricHeapAllocs) - allocsBefore

	if err != nil || string(res) != `{"after":"long"}` {
		t.Fatalf(`Call(long) = %s, %v; want {"after":"long"}`, res, err)
	}
	if n := warns.n.Load(); n != 1 {
		t.Errorf("%d Warn logs, want 1 for the dropped line", n)
	}
	growth := int64(peak) - int64(base)
	t.Logf("%d MiB line, %d-byte limit: heap objects %d -> peak %d (+%s) over %d samples; %s allocated during the transfer",
		longLineBytes>>20, limit, base, peak, mib(growth), samples, mib(int64(allocs)))
	if allocs >= longLineBytes {
		t.Errorf("%d bytes allocated during a %d-byte line, want fewer than the line", allocs, longLineBytes)
	}
	if growth >= maxGrowth {
		t.Errorf("heap grew by %d bytes during a %d-byte line, want < %d", growth, longLineBytes, maxGrowth)
	}
	// The line is over and the stream still in step.
	if res, err := c.Call(ctx, "after", nil, opts); err != nil || string(res) != `{}` {
		t.Fatalf("Call(after) = %s, %v; want {}", res, err)
	}
}

func mib(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}
