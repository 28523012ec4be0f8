package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// BenchmarkServeEcho measures Serve's echo throughput over io.Pipe with 1,
// 8 and 64 requests in flight.
func BenchmarkServeEcho(b *testing.B) {
	for _, inflight := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			rt := newFakeRuntime()
			rt.handle = func(_ context.Context, req *seam.Request) (json.RawMessage, error) { return req.Params, nil }
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			errc := make(chan error, 1)
			go func() {
				errc <- Serve(context.Background(), rt, inR, outW, Config{MaxConcurrency: 64, Logger: quietLogger})
				outW.Close()
			}()
			slots := make(chan struct{}, inflight)
			done := make(chan struct{})
			go func() {
				defer close(done)
				br := bufio.NewReader(outR)
				for range b.N {
					if _, err := br.ReadSlice('\n'); err != nil {
						b.Error(err)
						return
					}
					<-slots
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			var line []byte
			for i := range b.N {
				slots <- struct{}{}
				line = fmt.Appendf(line[:0], `{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"text":"hello, world","n":%d}}`+"\n", i, i)
				if _, err := inW.Write(line); err != nil {
					b.Fatal(err)
				}
			}
			<-done
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			inW.Close()
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
			outR.Close()
		})
	}
}
