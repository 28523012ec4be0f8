package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// The benchmarks compare the Client with a bare line-echo loop over the
// same child and the same pipes: the target is that the Client reaches at
// least 80% of the raw loop's requests/s at the same number of requests in
// flight. Reproduce the figures of docs/performance.md with
//
//	go test -run '^$' -bench 'RoundTrip|Throughput|LargeResponse|RawPipe' -benchtime 3s -count 5 -benchmem ./stdio/
//
// Nothing here asserts on timing (docs/stdio.md, "Memory and timing";
// docs/contributing.md, "Tests").

// The "echo" fixture answers every request with its params as the result
// ({} without params), or with a fixed result of echoResultEnv bytes. It
// finds the id without decoding the line, so that the child costs as little
// as possible and the benchmarks measure the parent, and it flushes only
// when no further complete line is buffered: under load it batches
// responses, a lone request is never delayed.
func init() { fixtures["echo"] = runEchoFixture }

// echoResultEnv, when set to N >= 11, makes every result a JSON object of
// exactly N bytes.
const echoResultEnv = "ECHO_RESULT_BYTES"

func runEchoFixture() int {
	var fixed []byte
	if n, err := strconv.Atoi(os.Getenv(echoResultEnv)); err == nil && n > 0 {
		fixed = sizedResult(n)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	var long []byte // a request longer than in's buffer
	for {
		frag, err := in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, frag...)
			continue
		}
		if err != nil { // EOF: a final unterminated line is no request
			return flushed(out)
		}
		line := frag
		if len(long) > 0 {
			line = append(long, frag...)
		}
		echoLine(out, line, fixed)
		long = long[:0]
		if !lineBuffered(in) {
			if out.Flush() != nil {
				return 1
			}
		}
	}
}

func flushed(w *bufio.Writer) int {
	if w.Flush() != nil {
		return 1
	}
	return 0
}

// sizedResult returns {"blob":"xx…x"}, n bytes in all.
func sizedResult(n int) []byte {
	n = max(n, 11)
	b := append(make([]byte, 0, n), `{"blob":"`...)
	b = append(b, bytes.Repeat([]byte("x"), n-11)...)
	return append(b, `"}`...)
}

// lineBuffered reports whether a complete line is already in r's buffer,
// so that the next ReadSlice will not block.
func lineBuffered(r *bufio.Reader) bool {
	n := r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := r.Peek(n) // never reads: n bytes are buffered
	return bytes.IndexByte(b, '\n') >= 0
}

// echoLine writes the response to one request line; notifications get none.
func echoLine(w *bufio.Writer, line, fixed []byte) {
	id, params := requestIDParams(line)
	if id == nil {
		return
	}
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	w.Write(id)
	w.WriteString(`,"result":`)
	switch {
	case fixed != nil:
		w.Write(fixed)
	case params != nil:
		w.Write(params)
	default:
		w.WriteString(`{}`)
	}
	w.WriteString("}\n")
}

var (
	idKey     = []byte(`"id":`)
	paramsKey = []byte(`,"params":`)
)

// requestIDParams finds the integer id and the params of a request line as
// wire.AppendRequest frames it (id before method, params last), without
// decoding: a raw quote only ever delimits a string, so `"id":` and
// `,"params":` cannot match inside the escaped method name. It is a fixture
// shortcut, not a JSON-RPC parser.
func requestIDParams(line []byte) (id, params []byte) {
	line = bytes.TrimRight(line, "\r\n")
	i := bytes.Index(line, idKey)
	if i < 0 {
		return nil, nil
	}
	id = line[i+len(idKey):]
	end := bytes.IndexAny(id, ",}")
	if end <= 0 {
		return nil, nil
	}
	id = id[:end]
	if j := bytes.Index(line, paramsKey); j >= 0 && line[len(line)-1] == '}' {
		params = line[j+len(paramsKey) : len(line)-1]
	}
	return id, params
}

// The request every benchmark sends: a small tools/call, passed to Call as
// raw JSON, the way the bridge forwards params. The raw loop writes the
// very bytes the Client writes.
const benchMethod = "tools/call"

var benchParams = json.RawMessage(`{"name":"echo","arguments":{"message":"hello, stdio"}}`)

func appendBenchRequest(dst []byte, id int64) []byte {
	var num [20]byte
	return wire.AppendRequest(dst, rawjson.AppendInt(num[:0], id), benchMethod, benchParams)
}

// echoConfig runs the echo fixture; resultBytes > 0 fixes the result size.
func echoConfig(resultBytes int) spec {
	cfg := spec{fixture: "echo"}
	if resultBytes > 0 {
		cfg.env = append(cfg.env, echoResultEnv+"="+strconv.Itoa(resultBytes))
	}
	return cfg
}

// startEchoClient starts a Client over the echo fixture, checks one echo
// and stops the child (Close, then Done) when the benchmark ends.
func startEchoClient(b *testing.B, resultBytes int) *Client {
	b.Helper()
	c := startClient(b, echoConfig(resultBytes))
	res, err := c.Call(context.Background(), benchMethod, benchParams, nil)
	if err != nil {
		b.Fatalf("Call(%s) = %v", benchMethod, err)
	}
	if resultBytes == 0 && !bytes.Equal(res, benchParams) {
		b.Fatalf("Call(%s) = %s, want %s", benchMethod, res, benchParams)
	}
	return c
}

// reportRate reports requests per second over the timed part of the run.
func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "req/s")
	}
}

// reportLatency reports the median and 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(q float64) float64 {
		return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// BenchmarkRoundTrip measures one caller's sequential Call latency.
func BenchmarkRoundTrip(b *testing.B) {
	c := startEchoClient(b, 0)
	ctx := context.Background()
	lat := make([]time.Duration, 0, 1<<16)
	for b.Loop() {
		start := time.Now()
		res, err := c.Call(ctx, benchMethod, benchParams, nil)
		lat = append(lat, time.Since(start))
		if err != nil || len(res) != len(benchParams) {
			b.Fatalf("Call = %s, %v", res, err)
		}
	}
	reportLatency(b, lat)
	reportRate(b)
}

// BenchmarkThroughput measures requests/s with N goroutines calling at
// once, so at most N requests in flight. It runs the goroutines itself
// rather than through RunParallel, whose goroutine count is a multiple of
// GOMAXPROCS, and shares b.N between them.
func BenchmarkThroughput(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("callers=%d", n), func(b *testing.B) { benchCallers(b, n) })
	}
}

func benchCallers(b *testing.B, callers int) {
	c := startEchoClient(b, 0)
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	b.ResetTimer()
	for range callers {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				res, err := c.Call(ctx, benchMethod, benchParams, nil)
				if err != nil || len(res) != len(benchParams) {
					errs <- fmt.Errorf("Call = %s, %v", res, err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	reportRate(b)
}

// BenchmarkLargeResponse measures a 10 MiB result through the Client: the
// reader's long-line path, validation and the copy handed to the caller.
func BenchmarkLargeResponse(b *testing.B) {
	const size = 10 << 20
	c := startEchoClient(b, size)
	ctx := context.Background()
	b.SetBytes(size)
	for b.Loop() {
		res, err := c.Call(ctx, benchMethod, benchParams, nil)
		if err != nil || len(res) != size {
			b.Fatalf("Call = %d bytes, %v; want %d bytes", len(res), err, size)
		}
	}
}

// rawEcho is the echo fixture on the Client's own pipes (spawn), driven
// without a Client: the bare line-echo loop the Client is measured against.
type rawEcho struct {
	cmd *exec.Cmd
	in  *os.File      // the child's stdin
	out *bufio.Reader // the child's stdout, buffered as the Client's reader is
}

// startRawEcho spawns the echo fixture and stops it when the benchmark
// ends: close stdin, then reap; SIGKILL to the group if it lingers.
func startRawEcho(b *testing.B) *rawEcho {
	b.Helper()
	cfg := echoConfig(0)
	cmd := cfg.command(b)
	s, err := spawn(b.Context(), cmd, false)
	if err != nil {
		b.Fatalf("spawn: %v", err)
	}
	stdin, stdout := s.stdin, s.stdout
	b.Cleanup(func() {
		stdin.Close()
		waited := make(chan struct{})
		go func() {
			defer close(waited)
			io.Copy(io.Discard, stdout) // until the child exits
			cmd.Wait()
		}()
		select {
		case <-waited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-waited
		}
		stdout.Close()
	})
	return &rawEcho{cmd: cmd, in: stdin, out: bufio.NewReaderSize(stdout, wire.ReadBufferSize)}
}

// readLine reads one response line; responses fit in the buffer.
func (r *rawEcho) readLine(b *testing.B) []byte {
	line, err := r.out.ReadSlice('\n')
	if err != nil {
		b.Fatalf("reading a response: %v", err)
	}
	return line
}

// BenchmarkRawPipe is the baseline: the same child and request bytes, one
// Write per line, responses read as lines and not correlated.
func BenchmarkRawPipe(b *testing.B) {
	b.Run("sequential", benchRawSequential)
	for _, w := range []int{8, 64} {
		b.Run(fmt.Sprintf("window=%d", w), func(b *testing.B) { benchRawWindow(b, w) })
	}
}

func benchRawSequential(b *testing.B) {
	r := startRawEcho(b)
	var buf []byte
	lat := make([]time.Duration, 0, 1<<16)
	id := int64(0)
	for b.Loop() {
		id++
		start := time.Now()
		buf = appendBenchRequest(buf[:0], id)
		if _, err := r.in.Write(buf); err != nil {
			b.Fatal(err)
		}
		r.readLine(b)
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
	reportRate(b)
}

// benchRawWindow keeps up to w requests in flight: a writer goroutine
// writes a line whenever it holds one of w tokens, and the benchmark
// goroutine returns a token per response line read.
func benchRawWindow(b *testing.B, w int) {
	r := startRawEcho(b)
	tokens := make(chan struct{}, w)
	stop := make(chan struct{})
	var written atomic.Int64
	writerErr := make(chan error, 1)
	writerDone := make(chan struct{})
	// A failed benchmark still stops and waits for the writer.
	stopWriter := sync.OnceFunc(func() { close(stop) })
	b.Cleanup(func() {
		stopWriter()
		<-writerDone
	})
	go func() {
		defer close(writerDone)
		var buf []byte
		for id := int64(1); ; id++ {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				writerErr <- nil
				return
			}
			buf = appendBenchRequest(buf[:0], id)
			if _, err := r.in.Write(buf); err != nil {
				r.in.Close() // the child exits, so the reader sees EOF
				writerErr <- err
				return
			}
			written.Add(1)
		}
	}()
	read := int64(0)
	for b.Loop() {
		r.readLine(b)
		read++
		<-tokens
	}
	stopWriter()
	if err := <-writerErr; err != nil {
		b.Fatalf("writing a request: %v", err)
	}
	for ; read < written.Load(); read++ { // the window still in flight
		r.readLine(b)
	}
	reportRate(b)
}
