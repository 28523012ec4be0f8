//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// TestDocsErrorsFailureModel provokes the refusals of docs/errors.md's
// failure model on a real `mcpbridge serve` and holds each row to what the
// caller gets: the row whose first cell names the situation names the
// status's gRPC code and its ErrorInfo reason, and no other reason.
func TestDocsErrorsFailureModel(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := failureModelRows(t, string(raw))

	b := startBridge(t, nil) // in front of `mcpbridge demo`
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	if _, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		row  string // a phrase of the first cell of the row that says what happens
		call func() error
	}{
		{"an unknown server", func() error {
			_, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "nosuch", Method: "tools/list", ParamsJson: "{}"})
			return err
		}},
		{"malformed JSON", func() error {
			_, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/list", ParamsJson: "{"})
			return err
		}},
		{"metadata that disagree", func() error {
			md := metadata.Pairs(bridge.ServerMetadataKey, "other")
			_, err := bc.Call(metadata.NewOutgoingContext(ctx, md), &mcpbridgev1.CallRequest{Server: "nosuch", Method: "tools/list", ParamsJson: "{}"})
			return err
		}},
	} {
		t.Run(tc.row, func(t *testing.T) {
			var found [][]string
			for _, row := range rows {
				if strings.Contains(row[0], tc.row) {
					found = append(found, row)
				}
			}
			if len(found) != 1 {
				t.Fatalf("docs/errors.md's failure model has %d rows whose first cell says %q, want 1", len(found), tc.row)
			}
			row := found[0]
			st := status.Convert(tc.call())
			reason := ""
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok {
					reason = info.GetReason()
				}
			}
			if st.Code() == codes.OK || reason == "" {
				t.Fatalf("the call got %v, with ErrorInfo reason %q; want a refusal with a reason", st.Err(), reason)
			}
			var namesCode bool
			var reasons []string
			for _, span := range codeSpans(row[1]) {
				if c, ok := grpcCodeNamed(span); ok {
					namesCode = namesCode || c == st.Code()
				} else if span == strings.ToUpper(span) && !strings.ContainsAny(span, " -/") {
					reasons = append(reasons, span)
				}
			}
			if !namesCode {
				t.Errorf("docs/errors.md's failure model, %q: the caller sees %q, but the bridge answers %s (%q)", row[0], row[1], st.Code(), st.Message())
			}
			if len(reasons) != 1 || reasons[0] != reason {
				t.Errorf("docs/errors.md's failure model, %q: the caller sees reason %q, but the bridge's ErrorInfo says %s (%s %q)", row[0], reasons, reason, st.Code(), st.Message())
			}
		})
	}
}

// failureModelRows are the rows of docs/errors.md's failure model, each
// with at least two cells.
func failureModelRows(t *testing.T, doc string) [][]string {
	t.Helper()
	i := strings.Index(doc, "## Failure model")
	if i < 0 {
		t.Fatal("docs/errors.md has no \"## Failure model\"")
	}
	lines := strings.Split(doc[i:], "\n")
	for j, line := range lines {
		if cells := testkit.TableCells(line); len(cells) < 2 || cells[0] != "What happens" {
			continue
		}
		var rows [][]string
		for _, l := range lines[j+2:] {
			if !strings.HasPrefix(l, "|") {
				break
			}
			if cells := testkit.TableCells(l); len(cells) >= 2 {
				rows = append(rows, cells)
			}
		}
		return rows
	}
	t.Fatal("docs/errors.md's failure model has no table headed | What happens |")
	return nil
}

// grpcCodeNamed is the gRPC code a doc spells name (INVALID_ARGUMENT).
func grpcCodeNamed(name string) (codes.Code, bool) {
	var c codes.Code
	err := json.Unmarshal([]byte(strconv.Quote(name)), &c)
	return c, err == nil && name != "" && name[0] >= 'A' && name[0] <= 'Z'
}
