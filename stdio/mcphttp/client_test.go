package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// This file is the tests' HTTP client: just enough Streamable HTTP to drive
// the adapter message by message.

// modernMeta is a complete 2026-07-28 request _meta.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcphttp-test","version":"0"}}`

// serve runs an Adapter with cfg behind a loopback httptest server until
// the test ends, and returns it with its endpoint URL.
func serve(t *testing.T, cfg Config) (*Adapter, string) {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	srv := httptest.NewServer(a)
	t.Cleanup(func() {
		a.Close()
		srv.Close()
	})
	return a, srv.URL + Endpoint
}

// fixtureConfig runs the fixture of fixture_test.go: this test binary.
func fixtureConfig(t *testing.T) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if rawFixtures {
		return Config{Open: openFixture(t)}
	}
	return Config{Start: Command([]string{exe}, []string{testkit.FixtureEnv + "=server", testkit.QuickRaceExit()}, "", nil)}
}

// request is one POST. Its headers default to what a 2026-07-28 client
// sends for body; header entries override them, and an empty value removes
// one.
type request struct {
	body    string
	session string
	header  map[string]string
}

// send POSTs r under ctx. The caller closes the body.
func send(ctx context.Context, t *testing.T, url string, r request) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(r.body), &m)
	if m.Params.Meta.Version != "" {
		h.Set("MCP-Protocol-Version", m.Params.Meta.Version)
	}
	if m.Method != "" {
		h.Set("Mcp-Method", m.Method)
	}
	if n := m.Params.Name + m.Params.URI; n != "" {
		h.Set("Mcp-Name", n)
	}
	if r.session != "" {
		h.Set("Mcp-Session-Id", r.session)
	}
	for k, v := range r.header {
		h.Del(k)
		if v != "" {
			h.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", r.body, err)
	}
	return resp
}

// post sends r and reads the whole answer: its status, header and messages
// (one for application/json, each event's data for text/event-stream).
func post(t *testing.T, url string, r request) (int, http.Header, []json.RawMessage) {
	t.Helper()
	resp := send(context.Background(), t, url, r)
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("reading the answer to %s: %v", r.body, err)
		}
		if len(body) == 0 {
			return resp.StatusCode, resp.Header, nil
		}
		return resp.StatusCode, resp.Header, []json.RawMessage{body}
	}
	var msgs []json.RawMessage
	events := newEvents(resp.Body)
	for {
		msg, err := events.next()
		if err == io.EOF {
			return resp.StatusCode, resp.Header, msgs
		}
		if err != nil {
			t.Fatalf("reading the stream answering %s: %v", r.body, err)
		}
		msgs = append(msgs, msg)
	}
}

// call posts r and returns its one JSON-RPC response: the last message.
func call(t *testing.T, url string, r request) json.RawMessage {
	t.Helper()
	status, _, msgs := post(t, url, r)
	if len(msgs) == 0 {
		t.Fatalf("POST %s: status %d and no message", r.body, status)
	}
	return msgs[len(msgs)-1]
}

// events reads the data of SSE events, one JSON-RPC message each.
type events struct{ r *bufio.Reader }

func newEvents(r io.Reader) *events { return &events{r: bufio.NewReader(r)} }

// next returns the next event's data, or io.EOF at the end of the stream.
func (e *events) next() (json.RawMessage, error) {
	var data []byte
	for {
		line, err := e.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && data == nil {
				return nil, io.EOF
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && data != nil:
			return data, nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
	}
}

// field decodes the member of msg at a path of keys into a Go value, for
// comparisons; no keys is the whole message.
func field(t *testing.T, msg json.RawMessage, path ...string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(msg, &v); err != nil {
		t.Fatalf("message %s: %v", msg, err)
	}
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// raw returns the member of msg at a path of keys as JSON text (object
// keys sorted).
func raw(t *testing.T, msg json.RawMessage, path ...string) string {
	t.Helper()
	b, err := json.Marshal(field(t, msg, path...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
