package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// The "listener" fixture is a 2026-07-28 server on the project's own
// runtime (package stdio/mcp served by server.Serve with its defaults, so
// that, like `mcpbridge demo`, it keeps at most 32 listens open at once)
// that counts the subscriptions/listen requests it receives. It has tools
// and the resource test://r, no prompts, so its acknowledgements leave
// promptsListChanged out. Its tools:
//
//   - touch {uri}: announces an update of uri (mcp.Server.ResourceUpdated).
//   - toolschanged: announces a change of the tool list.
//   - listens: {"received":n,"open":n,"cancelled":n,"refused":n} as text:
//     the listens received, open now, cancelled by the client, and refused
//     over server.Config.MaxSubscriptions.
//   - waitopen {n}: answers once exactly n listens are open.
//   - endlistens: ends every open listen normally (the server answers it
//     with a complete result).
//   - hold: the listens that arrive from now on wait before they open.
//   - waitheld {n}: answers once exactly n listens wait.
//   - release {error?: {code, message}}: lets every waiting listen open,
//     or fails each with that error, and stops holding them. A waiting
//     listen the client cancels counts as cancelled.
func init() {
	fixtures["listener"] = runListenerFixture
	fixtures["subscribers"] = runSubscribersFixture
}

// listenerServer fronts the "listener" fixture.
func listenerServer(tb testing.TB) ServerConfig {
	tb.Helper()
	sc := fixtureServer(tb, "", "listener")
	sc.Grace = 0
	return sc
}

// listenStats are the listener fixture's counts and switches.
type listenStats struct {
	mu                                       sync.Mutex
	changed                                  *sync.Cond
	received, open, cancelled, refused, held int
	end                                      context.Context // cancelled by endlistens
	endAll                                   context.CancelFunc
	gate                                     *listenGate // while holding
}

// listenGate holds listens until release.
type listenGate struct {
	open chan struct{} // closed by release
	err  error         // what the held listens fail with
}

func runListenerFixture() int {
	out, err := server.TakeStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 2
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "listener-fixture", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 2
	}
	st := &listenStats{}
	st.changed = sync.NewCond(&st.mu)
	st.end, st.endAll = context.WithCancel(context.Background())
	srv.AddResource(mcp.Resource{URI: "test://r", Name: "r"}, mcp.TextResource("r"))
	srv.AddTool(mcp.Tool{Name: "touch"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ URI string }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		srv.ResourceUpdated(args.URI)
		return mcp.TextResult("ok"), nil
	})
	srv.AddTool(mcp.Tool{Name: "toolschanged"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		srv.NotifyToolsChanged()
		return mcp.TextResult("ok"), nil
	})
	srv.AddTool(mcp.Tool{Name: "listens"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		return mcp.TextResult(fmt.Sprintf(`{"received":%d,"open":%d,"cancelled":%d,"refused":%d}`, st.received, st.open, st.cancelled, st.refused)), nil
	})
	srv.AddTool(mcp.Tool{Name: "waitopen"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ N int }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		return mcp.TextResult("ok"), st.wait(ctx, func() bool { return st.open == args.N })
	})
	srv.AddTool(mcp.Tool{Name: "endlistens"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		st.mu.Lock()
		st.endAll()
		st.end, st.endAll = context.WithCancel(context.Background())
		st.mu.Unlock()
		return mcp.TextResult("ok"), nil
	})
	srv.AddTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.gate == nil {
			st.gate = &listenGate{open: make(chan struct{})}
		}
		return mcp.TextResult("ok"), nil
	})
	srv.AddTool(mcp.Tool{Name: "waitheld"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ N int }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		return mcp.TextResult("ok"), st.wait(ctx, func() bool { return st.held == args.N })
	})
	srv.AddTool(mcp.Tool{Name: "release"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Error *jsonrpc.Error }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.gate != nil {
			if args.Error != nil {
				st.gate.err = args.Error
			}
			close(st.gate.open)
			st.gate = nil
		}
		return mcp.TextResult("ok"), nil
	})
	if err := server.Serve(context.Background(), countingRuntime{srv, st}, os.Stdin, out, server.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, "fixture: serve:", err)
	}
	return 0
}

// wait waits until cond, which reads the counts, holds or ctx ends.
func (st *listenStats) wait(ctx context.Context, cond func() bool) error {
	defer context.AfterFunc(ctx, func() {
		st.mu.Lock()
		st.changed.Broadcast()
		st.mu.Unlock()
	})()
	st.mu.Lock()
	defer st.mu.Unlock()
	for !cond() && ctx.Err() == nil {
		st.changed.Wait()
	}
	return ctx.Err()
}

// countingRuntime is the runtime with its listens counted.
type countingRuntime struct {
	*mcp.Server
	st *listenStats
}

func (r countingRuntime) NewSession(peer seam.Peer) seam.Session {
	return countingSession{r.Server.NewSession(peer), r.st}
}

type countingSession struct {
	seam.Session
	st *listenStats
}

func (s countingSession) Listen(ctx context.Context, req *seam.Request) (seam.Source, error) {
	s.st.mu.Lock()
	s.st.received++
	end, gate := s.st.end, s.st.gate
	if gate != nil {
		s.st.held++
		s.st.changed.Broadcast()
	}
	s.st.mu.Unlock()
	if gate != nil {
		var err error
		select {
		case <-gate.open:
			err = gate.err
		case <-ctx.Done():
			err = ctx.Err()
		}
		s.st.mu.Lock()
		s.st.held--
		if errors.Is(context.Cause(ctx), server.ErrCancelled) {
			s.st.cancelled++
		}
		s.st.changed.Broadcast()
		s.st.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	src, err := s.Session.Listen(ctx, req)
	if err != nil {
		return nil, err
	}
	s.st.mu.Lock()
	s.st.open++
	s.st.changed.Broadcast()
	s.st.mu.Unlock()
	return &countedSource{Source: src, st: s.st, end: end}, nil
}

// countedSource is a listen's source that counts its end and ends when
// endlistens is called.
type countedSource struct {
	seam.Source
	st  *listenStats
	end context.Context
}

func (s *countedSource) Next(ctx context.Context) (string, json.RawMessage, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.end, cancel)()
	method, params, err := s.Source.Next(ctx)
	if s.end.Err() != nil {
		return "", nil, io.EOF
	}
	return method, params, err
}

func (s *countedSource) Close(reason error) {
	s.Source.Close(reason)
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	s.st.open--
	switch {
	case errors.Is(reason, server.ErrCancelled):
		s.st.cancelled++
	case errors.Is(reason, seam.ErrCapacity):
		s.st.refused++
	}
	s.st.changed.Broadcast()
}

// The "subscribers" fixture is a gRPC client in a process of its own, so
// that the bridge's memory per stream can be measured without the
// client's: it opens SUBSCRIBERS_N Subscribe streams with the request
// SUBSCRIBERS_REQUEST (protojson) to the bridge at SUBSCRIBERS_ADDR over
// one connection and reads each acknowledgement. It then writes one JSON
// line on stdout: {"acked":n,"failed":{code:n},"first":"<the first
// failure>"}. Each "recv" line on its stdin makes it read one more message
// from every stream and write {"events":{"<kind> <uri>":n}} ("failed" as
// above). At stdin's EOF it cancels the streams and exits.
func runSubscribersFixture() int {
	n, _ := strconv.Atoi(os.Getenv("SUBSCRIBERS_N"))
	req := &mcpbridgev1.SubscribeRequest{}
	if err := protojson.Unmarshal([]byte(os.Getenv("SUBSCRIBERS_REQUEST")), req); err != nil {
		fmt.Fprintln(os.Stderr, "subscribers:", err)
		return 2
	}
	conn, err := grpc.NewClient(os.Getenv("SUBSCRIBERS_ADDR"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "subscribers:", err)
		return 2
	}
	defer conn.Close()
	client := mcpbridgev1.NewBridgeServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a broken bridge's bound
	defer cancel()

	streams := make([]grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], n)
	report := func(what string, v any, failed *failures) {
		line, _ := json.Marshal(map[string]any{what: v, "failed": failed.codes, "first": failed.first})
		fmt.Printf("%s\n", line)
	}
	// Each step runs on 32 workers: the client needs no goroutine per
	// stream beyond what grpc-go keeps.
	each := func(f func(i int) (string, error)) (map[string]int, *failures) {
		var (
			mu    sync.Mutex
			tally = map[string]int{}
			fails = &failures{codes: map[string]int{}}
			next  atomic.Int64
			wg    sync.WaitGroup
		)
		for range 32 {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= n {
						return
					}
					key, err := f(i)
					mu.Lock()
					if err != nil {
						fails.add(err)
					} else {
						tally[key]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return tally, fails
	}
	tally, fails := each(func(i int) (string, error) {
		st, err := client.Subscribe(ctx, req)
		if err != nil {
			return "", err
		}
		m, err := st.Recv()
		if err != nil {
			return "", err
		}
		if m.GetAcknowledged() == nil {
			return "", fmt.Errorf("first message %v is not acknowledged", m)
		}
		streams[i] = st
		return "", nil
	})
	report("acked", tally[""], fails)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "recv" {
			continue
		}
		tally, fails := each(func(i int) (string, error) {
			if streams[i] == nil {
				return "", errors.New("no stream")
			}
			m, err := streams[i].Recv()
			if err != nil {
				return "", err
			}
			return eventKey(m), nil
		})
		report("events", tally, fails)
	}
	return 0
}

// failures tallies errors by gRPC code and keeps the first.
type failures struct {
	codes map[string]int
	first string
}

func (f *failures) add(err error) {
	f.codes[status.Code(err).String()]++
	if f.first == "" {
		f.first = err.Error()
	}
}
