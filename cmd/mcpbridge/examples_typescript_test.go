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

// What the TypeScript example needs, run from the module root: Node.js 20 or
// later with npm, then its packages (package-lock.json), its stubs (buf
// generate with the local protoc-gen-es, into src/gen) and its build (tsc,
// into dist).
const installTypeScriptExample = "npm ci --prefix examples/typescript && npm --prefix examples/typescript run generate && npm --prefix examples/typescript run build"

// The TypeScript example (examples/typescript) runs end to end as its README
// tells a user to run it: node dist/example.js in its directory, after npm ci,
// npm run generate and npm run build.
func TestTypeScriptExample(t *testing.T) {
	dir := filepath.Join(testkit.ModuleRoot(t), "examples", "typescript")
	node, err := exec.LookPath("node")
	if err != nil {
		testkit.MissingPeer(t, "node (Node.js 20 or later)", "apt-get install nodejs npm && "+installTypeScriptExample)
		return
	}
	for _, f := range []string{
		"node_modules/@connectrpc/connect-node/package.json",
		"node_modules/@bufbuild/protobuf/package.json",
		"dist/example.js",
		"dist/errors.js",
		"dist/gen/mcpbridge/v1/bridge_pb.js",
		"dist/gen/google/rpc/error_details_pb.js",
	} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			testkit.MissingPeer(t, "the TypeScript example's packages and build (examples/typescript/"+f+")", installTypeScriptExample)
			return
		}
	}
	checkTypeScriptStubs(t, dir, node)
	runExample(t, dir, node, "dist/example.js")
}

// checkTypeScriptStubs fails the test when the built stubs describe another
// mcpbridge/v1/bridge.proto than the Go code does: they were generated before
// the proto last changed, and the example's failures would mislead.
func checkTypeScriptStubs(t *testing.T, dir, node string) {
	t.Helper()
	const script = `import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { file_mcpbridge_v1_bridge } from "./dist/gen/mcpbridge/v1/bridge_pb.js";
process.stdout.write(Buffer.from(toBinary(FileDescriptorProtoSchema, file_mcpbridge_v1_bridge.proto)).toString("base64"));`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("the TypeScript example's built stubs do not load with %s: %v\n%s\nrebuild them: %s", node, err, stderr, installTypeScriptExample)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("decoding the stubs' descriptor: %v", err)
	}
	ts := new(descriptorpb.FileDescriptorProto)
	if err := proto.Unmarshal(raw, ts); err != nil {
		t.Fatalf("decoding the stubs' descriptor: %v", err)
	}
	goDesc := protodesc.ToFileDescriptorProto(mcpbridgev1.File_mcpbridge_v1_bridge_proto)
	for _, d := range []*descriptorpb.FileDescriptorProto{ts, goDesc} {
		// What may differ between generators: protoc-gen-es embeds no source
		// info, and no json_name where it is the default.
		d.SourceCodeInfo = nil
		clearJSONNames(d.MessageType)
	}
	if !proto.Equal(ts, goDesc) {
		t.Fatalf("examples/typescript/dist was generated from another bridge.proto than proto/mcpbridge/v1/bridge.pb.go; regenerate and rebuild it: %s", installTypeScriptExample)
	}
}

// clearJSONNames clears the json_name of every field of msgs and their
// nested messages.
func clearJSONNames(msgs []*descriptorpb.DescriptorProto) {
	for _, m := range msgs {
		for _, f := range m.Field {
			f.JsonName = nil
		}
		clearJSONNames(m.NestedType)
	}
}
