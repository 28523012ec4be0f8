package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
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

// checkTypeScriptStubs is checkStubs for the TypeScript example: node
// prints the descriptor its built stubs hold.
func checkTypeScriptStubs(t *testing.T, dir, node string) {
	t.Helper()
	const script = `import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { file_mcpbridge_v1_bridge } from "./dist/gen/mcpbridge/v1/bridge_pb.js";
process.stdout.write(Buffer.from(toBinary(FileDescriptorProtoSchema, file_mcpbridge_v1_bridge.proto)).toString("base64"));`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Dir = dir
	checkStubs(t, cmd, "the TypeScript example's built stubs (examples/typescript/dist)", installTypeScriptExample)
}
