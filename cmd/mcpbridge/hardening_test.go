//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// keyBridge runs `mcpbridge serve --config` in front of the demo with one
// API key, ci-bot's, and the rules given (YAML list items), and returns
// it with grpcurl's arguments for a plaintext call with that key.
func keyBridge(t *testing.T, rules string) (b *bridgeProcess, config string, withKey []string) {
	t.Helper()
	key := "ci-bot-key-8c2e4f6a1b3d5e7f9a0b"
	config = writeConfig(t, "", fmt.Sprintf(`auth:
  api_keys:
    - {principal: ci-bot, sha256: %s}
rules:
%sservers:
  - command: %s
`, access.HashKey(key), rules, yamlList([]string{mcpbridgeBin, "demo"})))
	b = startBridge(t, nil, "--config", config)
	return b, config, []string{"-plaintext", "-H", "authorization: Bearer " + key}
}

// TestServeRuleGrantsOnlyWhatItNames: a rule that names the echo tool and
// no resources or prompts grants echo and nothing else, and the bridge
// warns of it at start and at each reload.
func TestServeRuleGrantsOnlyWhatItNames(t *testing.T) {
	g := findGrpcurl(t)
	b, _, withKey := keyBridge(t, "  - {principals: [ci-bot], servers: [\"*\"], tools: [echo]}\n")
	rpc := func(method, req string) (string, int) {
		_, stderr, code := g.run(t, append(withKey, "-d", req, b.addr, "mcpbridge.v1.BridgeService/"+method)...)
		return stderr, code
	}
	if echoed, stderr, code := g.echo(t, b.addr, "hi", withKey...); code != 0 || echoed != "hi" {
		t.Errorf("CallTool echo = %q, exit %d, %s", echoed, code, stderr)
	}
	for _, c := range []struct{ method, req string }{
		{"ReadResource", `{"uri":"demo://about"}`},
		{"GetPrompt", `{"name":"greet","arguments":{"name":"Ada"}}`},
	} {
		if stderr, code := rpc(c.method, c.req); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
			t.Errorf("%s %s = exit %d, %s; want PermissionDenied", c.method, c.req, code, stderr)
		}
	}
	warning := `rules[0]: the rule names no resources or prompts: it grants none of them`
	if !b.log.Has("level=WARN", warning) {
		t.Errorf("the start-up log does not warn %q", warning)
	}
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b.log.WaitFor(ctx, t, "configuration reloaded")
	if n := strings.Count(b.log.String(), warning); n != 2 {
		t.Errorf("the log warns %d times, want 2 (start and reload)", n)
	}
}

// TestServeResourcePatternsSeeDecodedURIs: a rule's resource pattern is
// matched against the URI decoded and normalised, so an escaped ".." does
// not reach past it: demo://greeting/..%2fcounter is refused where
// demo://greeting/bob is read.
func TestServeResourcePatternsSeeDecodedURIs(t *testing.T) {
	g := findGrpcurl(t)
	b, _, withKey := keyBridge(t, "  - {principals: [ci-bot], servers: [\"*\"], tools: [], resources: [\"demo://greeting/*\"], prompts: []}\n")
	read := func(uri string) (string, string, int) {
		return g.run(t, append(withKey, "-d", fmt.Sprintf(`{"uri":%q}`, uri), b.addr, "mcpbridge.v1.BridgeService/ReadResource")...)
	}
	if out, stderr, code := read("demo://greeting/bob"); code != 0 || !strings.Contains(out, "Hello, bob!") {
		t.Errorf("ReadResource demo://greeting/bob = %s, exit %d, %s; want the greeting", out, code, stderr)
	}
	for _, uri := range []string{"demo://greeting/..%2fcounter", "demo://greeting/%2e%2e/counter", "demo://counter"} {
		if out, stderr, code := read(uri); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
			t.Errorf("ReadResource %s = %s, exit %d, %s; want PermissionDenied", uri, out, code, stderr)
		}
	}
}
