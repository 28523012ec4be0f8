package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestDocsConnectMessages holds the messages of `mcpbridge connect` that
// the docs quote to what connect answers its host with: each doc has the
// message verbatim, in a code span, the gRPC status's own text, which
// varies, written "(...)". The answer is made as connect makes it, by the
// connector failing a pending request with the status of a tunnel that
// could not open; it is a -32000 error with the gRPC code in
// data.grpcCode, as docs/protocol.md and docs/operations.md say.
func TestDocsConnectMessages(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		args []string       // connect's flags
		st   *status.Status // why the tunnel failed; its message is what the doc writes (...)
		span string         // the code span's delimiter in the doc: `` when the message holds a `
	}{
		{"hosts.md", []string{"--addr", "127.0.0.1:PORT"},
			status.New(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:PORT: connect: connection refused"`), "``"},
		{"operations.md", []string{"--addr", "bridge.example.com:50051"},
			status.New(codes.Unavailable, `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"`), "`"},
	} {
		t.Run(tc.doc, func(t *testing.T) {
			f, fs := newConnectFlags()
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			c := &connector{explain: f.explain, ctx: context.Background(), out: &out, pending: map[string]bool{}}
			c.track([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
			c.fail(tc.st.Err())
			var answer struct {
				ID    int `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Data    struct {
						GRPCCode string `json:"grpcCode"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
				t.Fatalf("connect answered the host %q: %v", out.Bytes(), err)
			}
			if answer.ID != 1 || answer.Error.Code != -32000 || answer.Error.Data.GRPCCode != tc.st.Code().String() {
				t.Errorf("connect answered the host %s; want the request's id, -32000 and data.grpcCode %q", out.Bytes(), tc.st.Code())
			}
			msg := answer.Error.Message
			if !strings.Contains(msg, "("+tc.st.Message()+")") {
				t.Fatalf("connect's message %q does not quote the status's %q; update this test", msg, tc.st.Message())
			}
			want := strings.Replace(msg, tc.st.Message(), "...", 1)
			if strings.Contains(want, "``") || (tc.span == "`") == strings.Contains(want, "`") {
				t.Fatalf("the message %q needs a code span other than %s; update this test", want, tc.span)
			}
			raw, err := os.ReadFile(filepath.Join("..", "..", "docs", tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			doc := strings.Join(strings.Fields(string(raw)), " ")
			if !strings.Contains(doc, tc.span+want+tc.span) {
				t.Errorf("docs/%s does not quote connect's message verbatim, as the code span %s%s%s", tc.doc, tc.span, want, tc.span)
			}
		})
	}
}
