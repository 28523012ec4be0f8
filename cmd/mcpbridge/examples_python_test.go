package main

import (
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
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

// checkPythonStubs fails the test when the generated Python stubs do not
// import or describe another mcpbridge/v1/bridge.proto than the Go code
// does: they were generated before the proto last changed.
func checkPythonStubs(t *testing.T, dir, python string) {
	t.Helper()
	const script = `import base64, sys
sys.path.insert(0, "gen")
from google.rpc import error_details_pb2, status_pb2
from mcpbridge.v1 import bridge_pb2, bridge_pb2_grpc
print(base64.b64encode(bridge_pb2.DESCRIPTOR.serialized_pb).decode())`
	cmd := exec.Command(python, "-c", script)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("the generated Python stubs do not import with %s: %v\n%s\nregenerate them: %s", python, err, stderr, generatePythonStubs)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("decoding the stubs' descriptor: %v", err)
	}
	py := new(descriptorpb.FileDescriptorProto)
	if err := proto.Unmarshal(raw, py); err != nil {
		t.Fatalf("decoding the stubs' descriptor: %v", err)
	}
	goDesc := protodesc.ToFileDescriptorProto(mcpbridgev1.File_mcpbridge_v1_bridge_proto)
	for _, d := range []*descriptorpb.FileDescriptorProto{py, goDesc} {
		d.SourceCodeInfo = nil // what may differ between generators
	}
	if !proto.Equal(py, goDesc) {
		t.Fatalf("examples/python/gen was generated from another bridge.proto than proto/mcpbridge/v1/bridge.pb.go; regenerate it: %s", generatePythonStubs)
	}
}
