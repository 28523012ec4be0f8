package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/testkit/otlptest"
)

// The caller's span, which the tests' tools/call carries in
// params._meta.traceparent.
const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
)

// tracedDemo is a `mcpbridge demo` child spoken to by hand over its pipes.
type tracedDemo struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *testkit.SyncBuffer
	exited bool
}

// startDemo starts `mcpbridge demo -tick 0` with the test process's
// environment less every OTEL_* variable, plus env. The cleanup kills it
// if the test did not end it.
func startDemo(t *testing.T, env ...string) *tracedDemo {
	t.Helper()
	cmd := exec.Command(mcpbridgeBin, "demo", "-tick", "0")
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") }), env...)
	d := &tracedDemo{t: t, cmd: cmd, lines: make(chan string, 100), stderr: &testkit.SyncBuffer{}}
	cmd.Stderr = d.stderr
	cmd.WaitDelay = waitLimit
	var err error
	if d.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The reader ends at the child's stdout EOF, which wait waits for.
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		if !d.exited {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("demo stderr:\n%s", d.stderr)
		}
	})
	return d
}

// call sends a request line and returns the next line the demo writes.
func (d *tracedDemo) call(line string) string {
	d.t.Helper()
	d.send(line)
	select {
	case got, ok := <-d.lines:
		if !ok {
			d.t.Fatalf("the demo's stdout ended before it answered %s", line)
		}
		return got
	case <-time.After(waitLimit):
		d.t.Fatalf("no answer to %s within %v", line, waitLimit)
	}
	return ""
}

func (d *tracedDemo) send(line string) {
	d.t.Helper()
	if _, err := io.WriteString(d.stdin, line+"\n"); err != nil {
		d.t.Fatal(err)
	}
}

// wait waits for the demo to exit, and fails the test unless it exits 0.
func (d *tracedDemo) wait() {
	d.t.Helper()
	for range d.lines {
	}
	err := d.cmd.Wait()
	d.exited = true
	if err != nil {
		d.t.Fatalf("mcpbridge demo: %v", err)
	}
}

// echoCall is a tools/call of echo with id 7 whose _meta carries the
// caller's span, in era.
func echoCall(era string) string {
	meta := `"traceparent":"00-` + callerTrace + `-` + callerSpan + `-01"`
	if era == protocol.Version20260728 {
		meta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` + meta
	}
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"traced"},"_meta":{` + meta + `}}}`
}

// converse has the demo serve one traced echo in era: after initialize on
// 2025-11-25, with 2026-07-28's _meta otherwise.
func (d *tracedDemo) converse(era string) {
	d.t.Helper()
	if era != protocol.Version20260728 {
		got := d.call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + era +
			`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if !strings.Contains(got, `"protocolVersion":"`+era+`"`) {
			d.t.Fatalf("initialize = %s", got)
		}
		d.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	if got := d.call(echoCall(era)); !strings.Contains(got, `"text":"traced"`) || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":7,"result"`) {
		d.t.Fatalf("tools/call echo = %s", got)
	}
}

// echoSpan returns the tools/call echo span among spans, if any.
func echoSpan(spans []otlptest.Span) (otlptest.Span, bool) {
	for _, s := range spans {
		if s.Name == "tools/call echo" {
			return s, true
		}
	}
	return otlptest.Span{}, false
}

// checkEchoSpan checks the demo's span of echoCall: the MCP semantic
// conventions' server span, a child of the caller's span, from service
// mcpbridge-demo.
func checkEchoSpan(t *testing.T, spans []otlptest.Span, era string) {
	t.Helper()
	got, ok := echoSpan(spans)
	if !ok {
		t.Fatalf("no span tools/call echo among %v", spans)
	}
	want := otlptest.Span{
		TraceID: callerTrace, SpanID: got.SpanID, ParentSpanID: callerSpan,
		Name: "tools/call echo", Kind: trace.SpanKindServer,
		Attributes: map[string]string{
			"mcp.method.name":       "tools/call",
			"gen_ai.tool.name":      "echo",
			"gen_ai.operation.name": "execute_tool",
			"jsonrpc.request.id":    "7",
			"mcp.protocol.version":  era,
			"network.transport":     "pipe",
		},
		StatusCode: codes.Unset,
		Service:    "mcpbridge-demo",
		Scope:      "github.com/mcpbridge/mcpbridge/stdio/mcp",
	}
	if diff := cmp.Diff(want, got); diff != "" || len(got.SpanID) != 16 || got.SpanID == callerSpan {
		t.Errorf("span of tools/call echo (-want +got):\n%s", diff)
	}
}

// The demo exports a server span per request over the protocol its
// environment names, as the batch leaves (50 ms), in both eras: the
// tools/call echo span is the child of the caller's span from _meta.
func TestDemoTracing(t *testing.T) {
	for _, proto := range []string{otlptest.GRPC, otlptest.HTTPProtobuf} {
		for _, era := range eras {
			t.Run(proto+"/"+era, func(t *testing.T) {
				r := otlptest.Start(t)
				d := startDemo(t, r.Env(proto)...)
				d.converse(era)
				ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
				defer cancel()
				// Exported while the demo still runs.
				checkEchoSpan(t, r.WaitFor(ctx, t, func(s []otlptest.Span) bool { _, ok := echoSpan(s); return ok }), era)
				d.stdin.Close()
				d.wait()

				var names []string
				for _, s := range r.Spans() {
					names = append(names, s.Name)
				}
				slices.Sort(names)
				want := []string{"tools/call echo"}
				if era != protocol.Version20260728 {
					want = []string{"initialize", "tools/call echo"}
				}
				if diff := cmp.Diff(want, names); diff != "" {
					t.Errorf("spans exported (-want +got):\n%s", diff)
				}
				if !strings.Contains(d.stderr.String(), "tracing=true") {
					t.Errorf("the start-up log does not say tracing=true:\n%s", d.stderr)
				}
			})
		}
	}
}

// Spans still buffered when the demo stops are exported before it exits,
// at stdin EOF and at SIGTERM alike: with a batch delay of an hour, only
// the flush at exit can have delivered the span by the time the process
// is reaped.
func TestDemoTracingFlush(t *testing.T) {
	for _, tc := range []struct {
		name, proto string
		stop        func(*tracedDemo)
	}{
		{"eof/" + otlptest.HTTPProtobuf, otlptest.HTTPProtobuf, func(d *tracedDemo) { d.stdin.Close() }},
		{"eof/" + otlptest.GRPC, otlptest.GRPC, func(d *tracedDemo) { d.stdin.Close() }},
		{"sigterm/" + otlptest.HTTPProtobuf, otlptest.HTTPProtobuf, func(d *tracedDemo) { d.cmd.Process.Signal(syscall.SIGTERM) }},
		{"sigterm/" + otlptest.GRPC, otlptest.GRPC, func(d *tracedDemo) { d.cmd.Process.Signal(syscall.SIGTERM) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := otlptest.Start(t)
			d := startDemo(t, append(r.Env(tc.proto), "OTEL_BSP_SCHEDULE_DELAY=3600000")...)
			d.converse(protocol.Version20260728)
			if n := len(r.Spans()); n != 0 {
				t.Fatalf("%d spans exported before the demo stopped; the batch delay did not hold them", n)
			}
			tc.stop(d)
			d.wait()
			checkEchoSpan(t, r.Spans(), protocol.Version20260728)
		})
	}
}

// Without an OTEL_* environment the demo traces nothing and serves as
// before; with one that turns tracing off, it exports nothing even to a
// receiver it is pointed at.
func TestDemoTracingOff(t *testing.T) {
	r := otlptest.Start(t)
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"no environment", nil},
		{"OTEL_SDK_DISABLED", append(r.Env(otlptest.HTTPProtobuf), "OTEL_SDK_DISABLED=true")},
		{"OTEL_TRACES_EXPORTER=none", append(r.Env(otlptest.GRPC), "OTEL_TRACES_EXPORTER=none")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDemo(t, tc.env...)
			for _, era := range eras {
				d.converse(era)
			}
			d.stdin.Close()
			d.wait()
			if !strings.Contains(d.stderr.String(), "tracing=false") {
				t.Errorf("the start-up log does not say tracing=false:\n%s", d.stderr)
			}
			if spans := r.Spans(); len(spans) != 0 {
				t.Errorf("%d spans exported, want none: %v", len(spans), spans)
			}
		})
	}
}

// An OTLP protocol the demo cannot speak is a mistake on its command line:
// one line on stderr naming it, exit status 2, nothing on stdout.
func TestDemoTracingConfigError(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", `mcpbridge demo: OTEL_EXPORTER_OTLP_PROTOCOL "http/json" is not supported (grpc or http/protobuf)`},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=thrift", `mcpbridge demo: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL "thrift" is not supported (grpc or http/protobuf)`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			cmd := exec.Command(mcpbridgeBin, "demo")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") }),
				"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", tc.env)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if code := runExitCode(t, cmd); code != 2 || stdout.Len() != 0 {
				t.Errorf("exit code %d, stdout %q; want 2 and nothing", code, &stdout)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, &stderr)
			}
		})
	}
}
