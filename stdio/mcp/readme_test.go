package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// The README's server is a complete program: it builds as printed, and
// a client gets its tool's answer, or the reason it has none, in both
// eras.
func TestREADMEServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with go build")
	}
	bin := testkit.READMEProgram(t)
	for _, version := range []string{stdio.Version20260728, stdio.Version20251125} {
		t.Run(version, func(t *testing.T) {
			c := stdiotest.ConnectProgram(t, bin, version)
			res := stdiotest.Call(t, c, "tools/call", `{"name":"forecast","arguments":{"city":"Paris"}}`, nil)
			var r struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal(res, &r); err != nil || len(r.Content) != 1 || r.Content[0].Text != "Sunny in Paris" {
				t.Errorf("forecast(Paris) = %s, want one text block \"Sunny in Paris\"", res)
			}
			// Without a city the handler never runs: the model is told why.
			res = stdiotest.Call(t, c, "tools/call", `{"name":"forecast","arguments":{}}`, nil)
			if got := string(res); !strings.Contains(got, `"text":"Invalid arguments: city: required"`) || !strings.Contains(got, `"isError":true`) {
				t.Errorf("forecast() = %s, want an isError result saying city is required", res)
			}
		})
	}
}
