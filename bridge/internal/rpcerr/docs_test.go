package rpcerr

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// docsErrors is docs/errors.md, from this package's directory.
var docsErrors = filepath.Join("..", "..", "..", "docs", "errors.md")

// reasonConstants are the ErrorInfo reasons this package declares: the
// values of its Reason* constants, read from its source, so that a reason
// added to the code is checked without this test naming it.
func reasonConstants(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{} // value -> constant name
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Reason") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s is not a string literal; read it some other way", name.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					reasons[v] = name.Name
				}
			}
		}
	}
	if len(reasons) == 0 {
		t.Fatal("found no Reason* constants in package rpcerr")
	}
	return reasons
}

// docTable returns the rows (cells, without the header) of the first
// table after anchor in doc whose header's first cell is first.
func docTable(t *testing.T, doc, anchor, first string) [][]string {
	t.Helper()
	i := strings.Index(doc, anchor)
	if i < 0 {
		t.Fatalf("docs/errors.md has no %q", anchor)
	}
	lines := strings.Split(doc[i:], "\n")
	for j, line := range lines {
		cells := testkit.TableCells(line)
		if len(cells) == 0 || cells[0] != first {
			continue
		}
		var rows [][]string
		for _, l := range lines[j+2:] {
			if !strings.HasPrefix(l, "|") {
				break
			}
			rows = append(rows, testkit.TableCells(l))
		}
		if len(rows) == 0 {
			t.Fatalf("the table headed %q after %q in docs/errors.md has no rows", first, anchor)
		}
		return rows
	}
	t.Fatalf("docs/errors.md has no table headed %q after %q", first, anchor)
	return nil
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	allCaps  = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
)

// capsSpans are the code spans of cell spelled like an enum value:
// `UNAVAILABLE`, `TOO_LARGE`.
func capsSpans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		if allCaps.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// isGRPCCode reports whether name is a gRPC code as docs spell it
// (INVALID_ARGUMENT).
func isGRPCCode(name string) bool {
	var c codes.Code
	return json.Unmarshal([]byte(strconv.Quote(name)), &c) == nil
}

// isChildState reports whether name is a ChildState value without its
// prefix (FAILED for CHILD_STATE_FAILED), as the failure model names a
// server's state.
func isChildState(name string) bool {
	_, ok := mcpbridgev1.ChildState_value["CHILD_STATE_"+name]
	return ok
}

// onTheWire reports whether a status that ToStatus makes with reason
// carries it in an ErrorInfo: UNAUTHENTICATED, for one, is a bare status.
func onTheWire(t *testing.T, reason string) bool {
	t.Helper()
	err := ToStatus("files", "tools/call", &CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "x"), Reason: reason})
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			if info.GetReason() != reason {
				t.Errorf("ToStatus with reason %s made an ErrorInfo with reason %q", reason, info.GetReason())
			}
			return true
		}
	}
	return false
}

// TestDocsReasons holds docs/errors.md's reasons to the code: the reason
// table has a row for every reason a status carries in its ErrorInfo and
// for no other (a reason the code keeps to itself, such as
// UNAUTHENTICATED, which makes a bare status, has none), and the failure
// model and the mapping name only gRPC codes, reasons the code has, and
// (in the failure model) a server's state.
func TestDocsReasons(t *testing.T) {
	raw, err := os.ReadFile(docsErrors)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	reasons := reasonConstants(t)

	documented := map[string]bool{}
	for _, row := range docTable(t, doc, "## Status details", "Reason") {
		spans := codeSpans(row[0])
		if len(spans) != 1 {
			t.Errorf("docs/errors.md's reason table has a row that does not name one reason: %q", row[0])
			continue
		}
		r := spans[0]
		if documented[r] {
			t.Errorf("docs/errors.md's reason table has two rows for %s", r)
		}
		documented[r] = true
		if _, ok := reasons[r]; !ok {
			t.Errorf("docs/errors.md's reason table has a row for %s, which package rpcerr does not declare", r)
		} else if !onTheWire(t, r) {
			t.Errorf("docs/errors.md's reason table has a row for %s, which no status carries (ToStatus makes a bare status)", r)
		}
	}
	for r, name := range reasons {
		if !documented[r] && onTheWire(t, r) {
			t.Errorf("docs/errors.md's reason table has no row for %s (rpcerr.%s), which statuses carry", r, name)
		}
	}

	for _, tc := range []struct {
		anchor, first string
		column        int
		states        bool // a server's state may be named
	}{
		{"## Failure model", "What happens", 1, true},
		{"## The mapping", "JSON-RPC error", 2, false},
		{"## The mapping", "JSON-RPC error", 1, false},
	} {
		for _, row := range docTable(t, doc, tc.anchor, tc.first) {
			if tc.column >= len(row) {
				t.Errorf("docs/errors.md, %s: a row of %d cells: %q", tc.anchor, len(row), row)
				continue
			}
			for _, name := range capsSpans(row[tc.column]) {
				if _, ok := reasons[name]; ok || isGRPCCode(name) || (tc.states && isChildState(name)) {
					continue
				}
				t.Errorf("docs/errors.md, %s: the row %q names %s, which is neither a gRPC code nor a reason of package rpcerr", tc.anchor, row[0], name)
			}
		}
	}
}

// codeSpans are the texts of the code spans of s, in order.
func codeSpans(s string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
