package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// What the Python example needs, run from the module root: grpcio and
// protobuf for Debian's python3 (pip install grpcio protobuf works too),
// then the stubs, generated with bin/buf (.ci/buf installs it) and the
// protoc and grpc_python_plugin of Debian's protobuf compilers.
const (
	installPythonGRPC   = "apt-get install python3-grpcio python3-protobuf"
	generatePythonStubs = "apt-get install protobuf-compiler protobuf-compiler-grpc && (cd examples/python && ../../bin/buf generate)"
)

// The Python example (examples/python) runs end to end as its README tells
// a user to run it: python3 example.py, with the stubs that buf generate
// wrote into examples/python/gen.
func TestPythonExample(t *testing.T) {
	dir := filepath.Join(testkit.ModuleRoot(t), "examples", "python")
	python := findPythonGRPC(t)
	for _, f := range []string{"mcpbridge/v1/bridge_pb2.py", "mcpbridge/v1/bridge_pb2_grpc.py", "google/rpc/status_pb2.py", "google/rpc/error_details_pb2.py"} {
		if _, err := os.Stat(filepath.Join(dir, "gen", f)); err != nil {
			testkit.MissingPeer(t, "the Python example's generated stubs (examples/python/gen/"+f+")", generatePythonStubs)
			return
		}
	}
	checkPythonStubs(t, dir, python)
	runExample(t, dir, python, "example.py")
}

// findPythonGRPC returns a python3 that can import grpc and protobuf:
// Debian's /usr/bin/python3 first (a python3 earlier on PATH, pyenv's for
// example, may lack the Debian packages), then the python3 on PATH.
func findPythonGRPC(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		if err := exec.Command(p, "-c", "import grpc, google.protobuf").Run(); err == nil {
			return p
		}
	}
	testkit.MissingPeer(t, "python3 with grpcio and protobuf", installPythonGRPC)
	return ""
}

// checkPythonStubs is checkStubs for the Python example: python prints
// the descriptor its generated stubs hold, after importing every module
// the example does.
func checkPythonStubs(t *testing.T, dir, python string) {
	t.Helper()
	const script = `import base64, sys
sys.path.insert(0, "gen")
from google.rpc import error_details_pb2, status_pb2
from mcpbridge.v1 import bridge_pb2, bridge_pb2_grpc
print(base64.b64encode(bridge_pb2.DESCRIPTOR.serialized_pb).decode())`
	cmd := exec.Command(python, "-c", script)
	cmd.Dir = dir
	checkStubs(t, cmd, "the Python example's generated stubs (examples/python/gen)", generatePythonStubs)
}

// pythonReadme is examples/python/README.md.
func pythonReadme(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(t), "examples", "python", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// shBlocks are the texts of the README's ```sh blocks.
func shBlocks(readme string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case !in && line == "```sh":
			in, cur = true, nil
		case in && line == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// TestPythonReadmeListTools holds the README's "ok ListTools" line to the
// demo's tools: the line example.py prints (its list_tools) for what
// `mcpbridge demo` lists.
func TestPythonReadmeListTools(t *testing.T) {
	var line string
	for _, l := range strings.Split(pythonReadme(t), "\n") {
		if strings.HasPrefix(l, "ok ListTools:") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("examples/python/README.md shows no \"ok ListTools: ...\" line")
	}
	c := connectDemo(t, demoChild{version: protocol.Version20260728, args: []string{"-tick", "0"}})
	list := decode[struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}](t, stdiotest.Call(t, c, "tools/list", `{}`, nil))
	if list.NextCursor != "" {
		t.Fatal("the demo's tools/list has a second page; list it too")
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := fmt.Sprintf("ok ListTools: %d tools: %s", len(names), strings.Join(names, ", ")); line != want {
		t.Errorf("examples/python/README.md shows\n\t%s\nbut example.py prints, for the demo's tools,\n\t%s", line, want)
	}
}

// TestPythonReadmeProtoc runs the README's protoc command, as a user
// runs it from the repository's root, in a scratch tree that holds the
// repository's proto/, and checks that the stubs it writes are those of
// the Go code and load with the modules example.py imports.
func TestPythonReadmeProtoc(t *testing.T) {
	var cmdText string
	for _, b := range shBlocks(pythonReadme(t)) {
		if strings.Contains(b, "protoc -I") && !strings.Contains(b, "grpc_tools") {
			if cmdText != "" {
				t.Fatal("examples/python/README.md has two protoc commands; say which this test runs")
			}
			cmdText = b
		}
	}
	if cmdText == "" {
		t.Fatal("examples/python/README.md gives no protoc command (a sh block with \"protoc -I\")")
	}
	for _, bin := range []string{"protoc", "grpc_python_plugin"} {
		if _, err := exec.LookPath(bin); err != nil {
			testkit.MissingPeer(t, bin, "apt-get install protobuf-compiler protobuf-compiler-grpc")
			return
		}
	}
	python := findPythonGRPC(t)
	root := t.TempDir()
	if err := os.Symlink(filepath.Join(testkit.ModuleRoot(t), "proto"), filepath.Join(root, "proto")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "examples", "python")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-e", "-c", cmdText)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's protoc command failed: %v\n%s\n%s", err, cmdText, out)
	}
	checkPythonStubs(t, dir, python)
}
