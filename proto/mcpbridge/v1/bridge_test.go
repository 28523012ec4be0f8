package mcpbridgev1_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The RPCs of the table in docs/architecture.md, "The gRPC API",
// RespondToServerRequest (the server-request path) included.
var wantRPCs = sorted([]string{
	"Call", "CallStream", "CallTool", "CallToolStream", "Complete", "Connect",
	"GetPrompt", "GetServer", "ListPrompts", "ListResourceTemplates",
	"ListResources", "ListServers", "ListTools", "Ping", "ReadResource",
	"RespondToServerRequest", "Subscribe",
	"AnswerTask", "CancelTask", "GetTask", "ListTasks", "StartTask", "WaitTask", "WatchTask",
})

func sorted(s []string) []string { slices.Sort(s); return s }

var (
	rpcLine = regexp.MustCompile(`^\s*rpc\s+(\w+)\s*\(`)
	// A field: optional label, a scalar, message or map type, a lower-case
	// name and a number. Enum values (one upper-case name) do not match.
	fieldLine = regexp.MustCompile(`^\s*(?:(?:optional|repeated)\s+)?(?:map<[^>]+>|[A-Za-z_][\w.]*)\s+([a-z_][a-z0-9_]*)\s*=\s*\d+\s*(?:\[[^\]]*\])?\s*;`)
)

// decl is an rpc or a field declared in proto source, with the comment lines
// directly above it (no blank line between), as buf attaches them.
type decl struct {
	kind    string // "rpc" or "field"
	name    string
	line    int
	comment string
}

// parse returns every rpc and field declared in src, in order.
func parse(src string) []decl {
	var decls []decl
	var comment []string
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if c, ok := strings.CutPrefix(trimmed, "//"); ok {
			comment = append(comment, strings.TrimSpace(c))
			continue
		}
		d := decl{line: i + 1, comment: strings.Join(comment, "\n")}
		comment = nil
		if m := rpcLine.FindStringSubmatch(line); m != nil {
			d.kind, d.name = "rpc", m[1]
		} else if m := fieldLine.FindStringSubmatch(line); m != nil {
			d.kind, d.name = "field", m[1]
		} else {
			continue
		}
		decls = append(decls, d)
	}
	return decls
}

// problems lists the declarations that break the API's documentation rule:
// every rpc has a leading comment, and every field's leading comment says
// what it means, its default ("Default:") and the child eras it applies to
// ("Eras:").
func problems(decls []decl) []string {
	var out []string
	for _, d := range decls {
		switch {
		case d.comment == "":
			out = append(out, fmt.Sprintf("line %d: %s %s has no leading comment", d.line, d.kind, d.name))
		case d.kind == "field" && !strings.Contains(d.comment, "Default:"):
			out = append(out, fmt.Sprintf("line %d: field %s: comment does not say its default (Default:)", d.line, d.name))
		case d.kind == "field" && !strings.Contains(d.comment, "Eras:"):
			out = append(out, fmt.Sprintf("line %d: field %s: comment does not say its eras (Eras:)", d.line, d.name))
		}
	}
	return out
}

func TestBridgeProtoIsDocumented(t *testing.T) {
	src, err := os.ReadFile("bridge.proto")
	if err != nil {
		t.Fatal(err)
	}
	decls := parse(string(src))
	for _, p := range problems(decls) {
		t.Error(p)
	}

	// The text scan must see exactly what protoc compiled, or a declaration
	// it cannot parse would escape the check.
	var gotRPCs, gotFields []string
	for _, d := range decls {
		if d.kind == "rpc" {
			gotRPCs = append(gotRPCs, d.name)
		} else {
			gotFields = append(gotFields, d.name)
		}
	}
	fd := mcpbridgev1.File_mcpbridge_v1_bridge_proto
	var descRPCs, descFields []string
	methods := fd.Services().ByName("BridgeService").Methods()
	for i := range methods.Len() {
		descRPCs = append(descRPCs, string(methods.Get(i).Name()))
	}
	descFields = fieldNames(fd.Messages())
	slices.Sort(gotRPCs)
	slices.Sort(descRPCs)
	slices.Sort(gotFields)
	slices.Sort(descFields)
	if diff := cmp.Diff(descRPCs, gotRPCs); diff != "" {
		t.Errorf("rpcs in bridge.proto text vs descriptor (-descriptor +text):\n%s", diff)
	}
	if diff := cmp.Diff(descFields, gotFields); diff != "" {
		t.Errorf("fields in bridge.proto text vs descriptor (-descriptor +text):\n%s", diff)
	}
	if diff := cmp.Diff(wantRPCs, descRPCs); diff != "" {
		t.Errorf("BridgeService rpcs (-want +got):\n%s", diff)
	}
}

// fieldNames returns the names of the fields of msgs and their nested
// messages, leaving out the entries protoc synthesizes for map fields.
func fieldNames(msgs protoreflect.MessageDescriptors) []string {
	var names []string
	for i := range msgs.Len() {
		m := msgs.Get(i)
		if m.IsMapEntry() {
			continue
		}
		for j := range m.Fields().Len() {
			names = append(names, string(m.Fields().Get(j).Name()))
		}
		names = append(names, fieldNames(m.Messages())...)
	}
	return names
}

// TestProblems shows that the check fails on what it must refuse.
func TestProblems(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "documented",
			src: `service S {
  // Do does it.
  rpc Do(DoRequest) returns (DoResponse);
}
message DoRequest {
  // The thing.
  // Default: empty. Eras: all.
  map<string, string> things = 1;
  oneof x {
    // One.
    // Default: unset. Eras: 2026.
    google.protobuf.Struct one = 2;
  }
}
enum E {
  E_UNSPECIFIED = 0;
}`,
		},
		{
			name: "rpc without comment",
			src: `service S {
  // Detached, so it does not count.

  rpc Do(DoRequest) returns (DoResponse);
}`,
			want: []string{"line 4: rpc Do has no leading comment"},
		},
		{
			name: "field without comment",
			src: `message M {
  int32 a = 1; // a trailing comment does not count
  repeated string b = 2;
}`,
			want: []string{
				"line 2: field a has no leading comment",
				"line 3: field b has no leading comment",
			},
		},
		{
			name: "field without default or eras",
			src: `message M {
  // What a is. Eras: all.
  optional double a = 1;
  // What b is. Default: 0.
  int64 b = 2;
}`,
			want: []string{
				"line 3: field a: comment does not say its default (Default:)",
				"line 5: field b: comment does not say its eras (Eras:)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problems(parse(tt.src))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems(parse(src)) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
