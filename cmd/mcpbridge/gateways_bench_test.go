//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// installGateways installs the gateways BenchmarkGateways compares with.
const installGateways = "npm ci --prefix testdata/gateways"

// BenchmarkGateways puts the bridge's HTTP front door beside its gRPC API
// and beside the stdio-to-HTTP gateways people use instead (supergateway
// and mcp-proxy, from testdata/gateways), all in front of the same child
// (the demo's echo tool), at 1, 8 and 64 callers, interleaved:
//
//   - path=grpc: CallTool on the bridge;
//   - path=http-2026: stateless 2026-07-28 tools/call POSTs to the bridge's
//     /mcp;
//   - path=http-2025: tools/call POSTs in one 2025-11-25 session at the
//     bridge's /mcp (the bridge runs --tunnel shared, so that the session
//     is served by the same child as the other paths);
//   - path=http2-2026 and http2-2025: the same over HTTP/2 (h2c), whose
//     streams share one connection as the gRPC client's do;
//   - path=supergateway: the same session at supergateway --stateful;
//   - path=mcp-proxy: the same session at mcp-proxy.
//
// Each reports requests/s, p50 and p99, and CPU per call of the gateway
// process (gw-cpu-µs/op), of the child (child-cpu-µs/op) and of this
// process, the client (cli-cpu-µs/op). From
//
//	npm ci --prefix testdata/gateways
//	go test -run '^$' -bench Gateways -benchtime 2s ./cmd/mcpbridge/
//
// Nothing asserts on timing.
func BenchmarkGateways(b *testing.B) {
	ctx := b.Context()
	demo := []string{mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn"}
	httpAddr := closedPort(b)
	br, bc := startQuietBridge(b, append([]string{"--http-listen", httpAddr, "--tunnel", "shared", "--"}, demo...)...)
	child := readyChild(b, bc, "")
	bridgeURL := "http://" + httpAddr + "/mcp"

	args, err := structpb.NewStruct(map[string]any{"message": "hello"})
	if err != nil {
		b.Fatal(err)
	}
	req := &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: args}
	checkEcho := textIs("hello")

	type path struct {
		name  string
		procs map[string]int
		call  func() error
	}
	paths := []path{{"grpc", map[string]int{"gw": br.Process.Pid, "child": child}, func() error {
		return checkEcho(bc.CallTool(ctx, req))
	}}}
	modern := newMCPHTTPBench(b, bridgeURL, true)
	paths = append(paths, path{"http-2026", map[string]int{"gw": br.Process.Pid, "child": child}, modern.echo})
	legacy := newMCPHTTPBench(b, bridgeURL, false)
	paths = append(paths, path{"http-2025", map[string]int{"gw": br.Process.Pid, "child": child}, legacy.echo})
	modernH2 := newMCPHTTPBench(b, bridgeURL, true, h2c)
	paths = append(paths, path{"http2-2026", map[string]int{"gw": br.Process.Pid, "child": child}, modernH2.echo})
	legacyH2 := newMCPHTTPBench(b, bridgeURL, false, h2c)
	paths = append(paths, path{"http2-2025", map[string]int{"gw": br.Process.Pid, "child": child}, legacyH2.echo})

	if bin := gatewayBin(b, "supergateway"); bin != "" {
		port := closedPort(b)
		_, p, _ := net.SplitHostPort(port)
		gw := startGateway(b, port, bin, "--stdio", strings.Join(demo, " "), "--outputTransport", "streamableHttp",
			"--stateful", "--port", p, "--logLevel", "none")
		c := newMCPHTTPBench(b, "http://"+port+"/mcp", false)
		paths = append(paths, path{"supergateway", map[string]int{"gw": gw, "child": descendant(b, gw, "demo")}, c.echo})
	}
	if bin := gatewayBin(b, "mcp-proxy"); bin != "" {
		port := closedPort(b)
		host, p, _ := net.SplitHostPort(port)
		gw := startGateway(b, port, bin, "--port", p, "--host", host, "--server", "stream", "--", demo[0], demo[1], demo[2], demo[3], demo[4], demo[5])
		c := newMCPHTTPBench(b, "http://"+port+"/mcp", false)
		paths = append(paths, path{"mcp-proxy", map[string]int{"gw": gw, "child": descendant(b, gw, "demo")}, c.echo})
	}
	for _, callers := range []int{1, 8, 64} {
		for _, p := range paths {
			b.Run(fmt.Sprintf("callers=%d/path=%s", callers, p.name), func(b *testing.B) {
				runLoad(b, callers, p.procs, p.call)
			})
		}
	}
}

// gatewayBin returns the argv[0] of a gateway installed in
// testdata/gateways, or "" (having logged how to install it) when it is not.
func gatewayBin(b *testing.B, name string) string {
	bin := filepath.Join(testkit.ModuleRoot(b), "testdata", "gateways", "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		b.Logf("%s is not installed; %s", name, installGateways)
		return ""
	}
	return bin
}

// startGateway runs a gateway and waits until it accepts connections on
// addr; cleanup stops it and its children.
func startGateway(b *testing.B, addr string, argv ...string) int {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return cmd.Process.Pid
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s did not listen on %s within 30 s", argv[0], addr)
		}
	}
}

// descendant returns the deepest process under pid whose command line
// holds word: a gateway's child, under whatever shell or reaper.
func descendant(b *testing.B, pid int, word string) int {
	b.Helper()
	found, depth := 0, -1
	var walk func(p, d int)
	walk = func(p, d int) {
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && p != pid &&
			bytes.Contains(cmd, []byte(word)) && d > depth {
			found, depth = p, d
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", p))
		for _, t := range tasks {
			raw, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(raw)) {
				if c, err := strconv.Atoi(f); err == nil {
					walk(c, d+1)
				}
			}
		}
	}
	walk(pid, 0)
	if found == 0 {
		b.Fatalf("no process with %q under pid %d", word, pid)
	}
	return found
}

// mcpHTTPBench is a Streamable HTTP client calling the demo's echo: in one
// 2025-11-25 session, or with stateless 2026-07-28 requests.
type mcpHTTPBench struct {
	b      *testing.B
	url    string
	modern bool
	sid    string
	hc     *http.Client
	ids    atomic.Int64
}

// h2c makes a bench client speak HTTP/2 without TLS, on one connection,
// as a gRPC client does (a host behind TLS gets HTTP/2 the same way).
func h2c(tr *http.Transport) {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = &p
}

func newMCPHTTPBench(b *testing.B, url string, modern bool, opts ...func(*http.Transport)) *mcpHTTPBench {
	tr := &http.Transport{MaxIdleConnsPerHost: 128}
	for _, o := range opts {
		o(tr)
	}
	b.Cleanup(tr.CloseIdleConnections)
	c := &mcpHTTPBench{b: b, url: url, modern: modern, hc: &http.Client{Transport: tr, Timeout: time.Minute}}
	if modern {
		return c
	}
	res, h, err := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if err != nil || !bytes.Contains(res, []byte(`"protocolVersion"`)) {
		b.Fatalf("initialize at %s: %v %s", url, err, res)
	}
	c.sid = h.Get("Mcp-Session-Id")
	if _, _, err := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		b.Fatalf("notifications/initialized at %s: %v", url, err)
	}
	return c
}

// echo calls the echo tool and checks its answer.
func (c *mcpHTTPBench) echo() error { return c.callEcho("echo") }

// callEcho calls the demo's echo tool under name and checks its answer.
func (c *mcpHTTPBench) callEcho(name string) error {
	id := c.ids.Add(1)
	params := `{"name":"` + name + `","arguments":{"message":"hello"}}`
	if c.modern {
		params = testkit.WithModernMeta(params)
	}
	res, _, err := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params))
	if err == nil && !bytes.Contains(res, []byte(`"text":"hello"`)) {
		err = fmt.Errorf("tools/call at %s: %s", c.url, res)
	}
	return err
}

// post sends one message and returns the whole body (JSON or SSE) and
// the header.
func (c *mcpHTTPBench) post(body string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	if c.modern {
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	res, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s: %s", resp.Status, res)
	}
	return res, resp.Header, err
}
