// Package testkit is this module's test support: the real MCP peers the
// tests talk to, the fixture processes they run, and the small helpers
// that several packages' tests share. It does not import package stdio,
// so stdio's own tests can use it; the helpers that drive a stdio.Client
// are in package stdiotest below it, the stdio-to-HTTP adapter that the
// conformance suite drives is package mcphttp, the OTLP collector that
// traced processes export their spans to is package otlptest, and the
// server written with the Go SDK and with stdio/mcp for the README's
// comparison is package sidebyside.
//
// # Real peers
//
// Fakes we write only prove that we agree with ourselves, so every
// integration test of the bridge or of our stdio server should also pass
// against a peer written by someone else (which peers, and how each is
// kept: docs/testing.md, "Real peers"). Each function here returns the argv
// that starts one such peer; the test starts the process itself, with
// [os/exec], and owns its lifetime:
//
//   - [GoSDKServer]: the Go SDK's conformance everything-server, pinned by
//     go.mod's tool directive. It speaks both the 2026-07-28 era and the
//     legacy 2025-11-25 … 2024-11-05 eras over stdio.
//   - [ServerEverything]: the TypeScript @modelcontextprotocol/server-everything,
//     a legacy-era peer, installed by npm ci --prefix testdata/peers.
//   - [Conformance]: the official conformance CLI under the Node 22 it
//     needs, installed by npm ci --prefix testdata/conformance.
//
// [ModuleRoot] finds the tree that holds go.mod and testdata/.
//
// A peer that is not installed makes the test skip with the command that
// installs it, so go test ./... passes on a fresh clone with only Go. When
// the environment variable CI is "true" a missing peer fails the test
// instead: .ci/run installs every peer, and a skip there would hide a broken
// install step. [MissingPeer] implements that rule for tests that need other
// peers.
//
// # Fixtures and helpers
//
// A package's tests run misbehaving servers, dying hosts and taps as
// re-executions of the test binary: [Fixtures] is the registry its TestMain
// runs, [FixtureCommand] starts one. [Lines] collects log lines to wait
// for, [StopChild] stops a child as a host does, [Pidfd] and [Exited] wait
// for processes that are not the test's children, [LongLine] checks a
// server's memory against a 64 MiB line, and [NewCA] makes the CA and
// certificates of a TLS test.
//
// Every function may be called from parallel tests.
package testkit
