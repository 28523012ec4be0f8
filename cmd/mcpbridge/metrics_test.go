package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

var metricsListenRE = regexp.MustCompile(`msg="mcpbridge: serving metrics" listen=(\S+)`)

// A scrape of /metrics from a running mcpbridge serve, after known
// traffic, has exactly the series and counts that traffic makes: tool
// calls by name, an isError result as error_type tool_error, a JSON-RPC
// error by its code (the unknown tool's name folded into "_other"), the
// gRPC codes, the child's crash as a restart, and what the child printed
// that was not JSON-RPC or was over the line limit.
func TestMetricsScrape(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	env, command := slowFixture(t)
	b := startBridge(t, env, append([]string{"--metrics-listen", "127.0.0.1:0", "--max-message-bytes", "65536", "--name", "fx"}, command...)...)
	metricsAddr := metricsListenRE.FindStringSubmatch(b.log.WaitFor(ctx, t, `msg="mcpbridge: serving metrics"`))[1]
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	childPid(ctx, t, bc)

	call := func(tool string, args map[string]any) (*mcpbridgev1.CallToolResponse, error) {
		s, err := structpb.NewStruct(args)
		if err != nil {
			t.Fatal(err)
		}
		return bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: tool, Arguments: s})
	}
	for range 3 {
		if _, err := call("echo", map[string]any{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := call("fail", nil); err != nil || !res.GetIsError() {
		t.Fatalf("fail = %v, %v; want an isError result", res, err)
	}
	if _, err := call("no_such_tool", nil); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("an unknown tool: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := call("garbage", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := call("bigline", map[string]any{"bytes": 100000}); err != nil {
		t.Fatal(err)
	}
	if _, err := call("crash", nil); status.Code(err) != codes.Unavailable {
		t.Fatalf("crash: %v, want UNAVAILABLE", err)
	}
	b.log.WaitCount(ctx, t, 2, `msg="mcpbridge: server ready"`) // restarted

	m := scrape(t, "http://"+metricsAddr+"/metrics")
	ops := map[string]float64{} // tool/error_type -> count
	for _, s := range m["mcp_client_operation_duration_seconds"] {
		l := s.labels
		if l["server"] != "fx" || l["mcp_method_name"] != "tools/call" || l["gen_ai_prompt_name"] != "" || l["mcp_resource_uri"] != "" {
			t.Errorf("unexpected operation series %v", l)
		}
		ops[l["gen_ai_tool_name"]+"/"+l["error_type"]] += s.count
	}
	want := map[string]float64{"echo/": 3, "fail/tool_error": 1, "_other/-32602": 1, "garbage/": 1, "bigline/": 1, "_other/-32000": 1}
	if fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("mcp_client_operation_duration_seconds counts = %v, want %v", ops, want)
	}
	handled := map[string]float64{}
	for _, s := range m["grpc_server_handled_total"] {
		if s.labels["grpc_method"] == "CallTool" && s.value > 0 {
			handled[s.labels["grpc_code"]] = s.value
		}
	}
	if want := map[string]float64{"OK": 6, "InvalidArgument": 1, "Unavailable": 1}; fmt.Sprint(handled) != fmt.Sprint(want) {
		t.Errorf("grpc_server_handled_total for CallTool = %v, want %v", handled, want)
	}
	child := func(name string, extra ...string) float64 {
		t.Helper()
		for _, s := range m[name] {
			if s.labels["server"] == "fx" && s.labels["child"] == "0" && (len(extra) == 0 || s.labels[extra[0]] == extra[1]) {
				return s.value
			}
		}
		t.Errorf("no %s series for server fx, child 0 %v", name, extra)
		return -1
	}
	for name, want := range map[string]float64{
		"mcpbridge_child_restarts_total":               1,
		"mcpbridge_child_stdout_skipped_lines_total":   2,
		"mcpbridge_child_stdout_oversized_lines_total": 1,
		"mcpbridge_child_calls_in_flight":              0,
		"mcpbridge_child_calls_waiting":                0,
		"mcpbridge_child_server_requests_pending":      0,
		"mcpbridge_child_subscriptions_open":           0,
	} {
		if got := child(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, st := range []string{"starting", "ready", "restarting", "failed", "stopping"} {
		want := 0.0
		if st == "ready" {
			want = 1
		}
		if got := child("mcpbridge_child_state", "state", st); got != want {
			t.Errorf("mcpbridge_child_state{state=%q} = %v, want %v", st, got, want)
		}
	}
	if got := child("mcpbridge_child_bytes_total", "direction", "received"); got < 100000 {
		t.Errorf("bytes received = %v, want at least the 100000-byte line", got)
	}
	if got := child("mcpbridge_child_bytes_total", "direction", "sent"); got <= 0 {
		t.Errorf("bytes sent = %v, want > 0", got)
	}
	if s := m["mcpbridge_server_children"]; len(s) != 1 || s[0].value != 1 || s[0].labels["policy"] != "shared" {
		t.Errorf("mcpbridge_server_children = %+v, want one series, 1, policy shared", s)
	}
	if len(m["go_goroutines"]) != 1 || len(m["process_open_fds"]) != 1 {
		t.Error("the Go and process collectors are missing")
	}
}

// sample is one series of a scrape: its labels, and its value (a counter
// or gauge) or count (a histogram).
type sample struct {
	labels map[string]string
	value  float64
	count  float64
}

// scrape fetches a Prometheus text exposition and returns its series by
// metric name.
func scrape(t testing.TB, url string) map[string][]sample {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	out := map[string][]sample{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			s := sample{labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				s.value = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				s.value = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				s.count = float64(m.GetHistogram().GetSampleCount())
			}
			out[name] = append(out[name], s)
		}
	}
	return out
}
