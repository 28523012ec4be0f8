package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
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
