//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// These tests run `mcpbridge serve` with --tls-cert, --tls-key and
// --client-ca, with certificates made for each test, and drive it with the
// real grpcurl and with crypto/tls; and they check the rule that keeps
// plaintext on loopback unless --insecure says otherwise.

// tlsFiles are the PEM files of a TLS test: a CA, a server certificate
// for 127.0.0.1 and localhost, alice's client certificate from the same
// CA, and mallory's from another CA that nobody trusts.
type tlsFiles struct {
	ca                  *testkit.CA
	server              *testkit.Leaf
	caFile              string
	cert, key           string // the server's
	aliceCert, aliceKey string
	otherCert, otherKey string // mallory's
}

func newTLSFiles(t *testing.T) *tlsFiles {
	t.Helper()
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	ca, other := testkit.NewCA(t, "mcpbridge test CA"), testkit.NewCA(t, "another CA")
	f := &tlsFiles{ca: ca, server: ca.Server(t, "127.0.0.1", "localhost"), caFile: path("ca.pem"),
		cert: path("server.pem"), key: path("server-key.pem"),
		aliceCert: path("alice.pem"), aliceKey: path("alice-key.pem"),
		otherCert: path("mallory.pem"), otherKey: path("mallory-key.pem")}
	testkit.WriteFileAtomic(t, f.caFile, ca.PEM)
	f.server.Write(t, f.cert, f.key)
	ca.Client(t, "alice").Write(t, f.aliceCert, f.aliceKey)
	other.Client(t, "mallory").Write(t, f.otherCert, f.otherKey)
	return f
}

// roots is a pool of the CA, for a Go client of the bridge.
func (f *tlsFiles) roots() *x509.CertPool {
	roots := x509.NewCertPool()
	roots.AddCert(f.ca.Cert)
	return roots
}

// args are the flags that serve TLS with the files.
func (f *tlsFiles) args() []string { return []string{"--tls-cert", f.cert, "--tls-key", f.key} }

var servingRE = regexp.MustCompile(`msg="mcpbridge: serving" .* tls=(\S+) mtls=(\S+)`)

// checkServingLine checks what the bridge's "serving" line says of TLS.
func checkServingLine(t *testing.T, b *bridgeProcess, tlsOn, mtlsOn bool) {
	t.Helper()
	m := servingRE.FindStringSubmatch(b.log.String())
	if want := []string{fmt.Sprint(tlsOn), fmt.Sprint(mtlsOn)}; m == nil || m[1] != want[0] || m[2] != want[1] {
		t.Errorf("the serving line says tls, mtls = %q; want %q:\n%s", m, want, b.log)
	}
}

const servicesList = "grpc.health.v1.Health\ngrpc.reflection.v1.ServerReflection\ngrpc.reflection.v1alpha.ServerReflection\nmcpbridge.v1.BridgeService\n"

// echo calls the demo's echo tool with grpcurl and args, and returns what
// it echoed and grpcurl's stderr and exit code.
func (g grpcurl) echo(t *testing.T, addr, message string, args ...string) (echoed, stderr string, code int) {
	t.Helper()
	req := fmt.Sprintf(`{"name":"echo","arguments":{"message":%q}}`, message)
	out, stderr, code := g.run(t, append(args, "-d", req, addr, "mcpbridge.v1.BridgeService/CallTool")...)
	var res struct {
		Content []struct{ Text struct{ Text string } }
	}
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Content) == 0 {
			t.Errorf("CallTool echo printed %q: %v", out, err)
			return "", stderr, code
		}
		echoed = res.Content[0].Text.Text
	}
	return echoed, stderr, code
}

// With --tls-cert and --tls-key the bridge serves TLS only: grpcurl that
// trusts the CA lists the services and calls the demo's echo; grpcurl in
// plaintext, or without the CA, gets nothing.
func TestServeTLS(t *testing.T) {
	g := findGrpcurl(t)
	f := newTLSFiles(t)
	b := startBridge(t, nil, f.args()...)
	checkServingLine(t, b, true, false)

	if out, _, code := g.run(t, "-cacert", f.caFile, b.addr, "list"); code != 0 || out != servicesList {
		t.Errorf("grpcurl -cacert list = %q (exit %d), want %q", out, code, servicesList)
	}
	if echoed, _, code := g.echo(t, b.addr, "over TLS", "-cacert", f.caFile); code != 0 || echoed != "over TLS" {
		t.Errorf("grpcurl -cacert CallTool echo = %q (exit %d), want the message back", echoed, code)
	}
	// The certificate names localhost too.
	if echoed, _, code := g.echo(t, b.addr, "as localhost", "-cacert", f.caFile, "-servername", "localhost"); code != 0 || echoed != "as localhost" {
		t.Errorf("grpcurl -servername localhost CallTool echo = %q (exit %d), want the message back", echoed, code)
	}
	if out, _, code := g.run(t, "-plaintext", "-connect-timeout", "5", b.addr, "list"); code == 0 || out != "" {
		t.Errorf("grpcurl -plaintext list = %q (exit %d), want a failure", out, code)
	}
	_, stderr, code := g.run(t, "-connect-timeout", "5", b.addr, "list")
	if code == 0 || !strings.Contains(stderr, "certificate signed by unknown authority") {
		t.Errorf("grpcurl without -cacert: exit %d, stderr %q; want the server's certificate refused", code, stderr)
	}
}

// With --client-ca a client must show a certificate from that CA: alice's
// works, none is refused, and one from another CA fails the handshake.
func TestServeMTLS(t *testing.T) {
	g := findGrpcurl(t)
	f := newTLSFiles(t)
	b := startBridge(t, nil, append(f.args(), "--client-ca", f.caFile)...)
	checkServingLine(t, b, true, true)

	alice := []string{"-cacert", f.caFile, "-cert", f.aliceCert, "-key", f.aliceKey}
	if out, _, code := g.run(t, append(alice, b.addr, "list")...); code != 0 || out != servicesList {
		t.Errorf("grpcurl list as alice = %q (exit %d), want %q", out, code, servicesList)
	}
	if echoed, _, code := g.echo(t, b.addr, "from alice", alice...); code != 0 || echoed != "from alice" {
		t.Errorf("CallTool echo as alice = %q (exit %d), want the message back", echoed, code)
	}
	refused := regexp.MustCompile(`(?i)certificate|handshake`)
	// grpcurl, as any crypto/tls client, keeps back a certificate that
	// none of the CAs the server names issued, so mallory's is refused as
	// missing ("certificate required"); the Go client below sends it.
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no client certificate", []string{"-cacert", f.caFile}},
		{"a certificate of another CA", []string{"-cacert", f.caFile, "-cert", f.otherCert, "-key", f.otherKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			echoed, stderr, code := g.echo(t, b.addr, "let me in", append(tc.args, "-connect-timeout", "5")...)
			if code == 0 || echoed != "" || !refused.MatchString(stderr) {
				t.Errorf("CallTool with %s: %q, exit %d, stderr %q; want a failure naming the certificate or the handshake", tc.name, echoed, code, stderr)
			}
		})
	}
	t.Run("a certificate of another CA, sent anyway", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		defer cancel()
		mallory, err := tls.LoadX509KeyPair(f.otherCert, f.otherKey)
		if err != nil {
			t.Fatal(err)
		}
		dialer := &tls.Dialer{Config: &tls.Config{RootCAs: f.roots(), NextProtos: []string{"h2"},
			GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &mallory, nil }}}
		conn, err := dialer.DialContext(ctx, "tcp", b.addr)
		if err == nil {
			// In TLS 1.3 the server judges the client's certificate after
			// the client's handshake ended: its verdict comes with the
			// first read, an alert or the server's HTTP/2 settings.
			deadline, _ := ctx.Deadline()
			conn.SetDeadline(deadline)
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "remote error: tls: unknown certificate authority") {
			t.Errorf("a TLS client with mallory's certificate: %v; want the handshake refused for an unknown certificate authority", err)
		}
	})
	if strings.Contains(b.log.String(), "from alice") || strings.Contains(b.log.String(), "let me in") {
		t.Errorf("a call's arguments reached the log")
	}
}

// New certificate and key files are served to new connections, without a
// restart: --tls-cert and --tls-key with --config, which they go with
// like every service-wide flag.
func TestServeTLSRotation(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	f := newTLSFiles(t)
	config := writeConfig(t, "", fmt.Sprintf("servers:\n  - name: demo\n    command: %s\n", yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"})))
	b := startBridge(t, nil, append([]string{"--config", config}, f.args()...)...)
	checkServingLine(t, b, true, false)

	dialer := &tls.Dialer{Config: &tls.Config{RootCAs: f.roots(), NextProtos: []string{"h2"}}}
	dials := 0
	served := func() *big.Int {
		t.Helper()
		dials++
		conn, err := dialer.DialContext(ctx, "tcp", b.addr)
		if err != nil {
			t.Fatalf("TLS dial %d: %v", dials, err)
		}
		defer conn.Close()
		return conn.(*tls.Conn).ConnectionState().PeerCertificates[0].SerialNumber
	}
	if got, want := served(), f.server.Cert.SerialNumber; got.Cmp(want) != 0 {
		t.Fatalf("serial %v served, want %v", got, want)
	}

	next := f.ca.Server(t, "127.0.0.1", "localhost")
	next.Write(t, f.cert, f.key)
	// The bridge looks at the files at a handshake, once a second at
	// most: each dial is a handshake, until one gets the new certificate
	// (or the test's deadline fails the dial).
	for served().Cmp(next.Cert.SerialNumber) != 0 {
		// the old one still: dial again
	}
	t.Logf("the new certificate after %d dials", dials)
	select {
	case <-b.exited:
		t.Fatalf("the bridge exited")
	default:
	}
	b.log.WaitFor(ctx, t, "mcpbridge: TLS files reloaded", f.cert, f.key)
}

// Plaintext is for loopback: an address that is not is refused with exit
// status 2 unless --insecure allows it, with a warning in the log; TLS
// flags that do not go together are exit status 2, and files that do not
// load exit status 1, before the bridge listens.
func TestServeTLSFlags(t *testing.T) {
	f := newTLSFiles(t)
	t.Run("refused", func(t *testing.T) {
		const plaintext = "refusing to serve plaintext on %s, which is not a loopback address: add --tls-cert and --tls-key to serve TLS, or --insecure to serve plaintext anyway"
		dir := t.TempDir()
		wildcard := writeConfig(t, filepath.Join(dir, "wildcard.yaml"), "listen: 0.0.0.0:0\nservers:\n  - name: a\n    command: "+yamlList([]string{mcpbridgeBin, "demo"})+"\n")
		missing := filepath.Join(dir, "missing.pem")
		garbage := filepath.Join(dir, "garbage.pem")
		if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			code int
			want []string
		}{
			{[]string{"--listen", "0.0.0.0:0"}, 2, []string{fmt.Sprintf(plaintext, "0.0.0.0:0")}},
			{[]string{"--listen", ":0"}, 2, []string{fmt.Sprintf(plaintext, ":0")}},
			{[]string{"--listen", "[::]:0"}, 2, []string{fmt.Sprintf(plaintext, "[::]:0")}},
			{[]string{"--config", wildcard}, 2, []string{fmt.Sprintf(plaintext, "0.0.0.0:0")}},
			{[]string{"--tls-cert", f.cert}, 2, []string{"--tls-cert and --tls-key go together"}},
			{[]string{"--tls-key", f.key}, 2, []string{"--tls-cert and --tls-key go together"}},
			{[]string{"--client-ca", f.caFile}, 2, []string{"--client-ca needs --tls-cert and --tls-key"}},
			{append(f.args(), "--insecure"), 2, []string{"--insecure allows plaintext: it cannot go with --tls-cert"}},
			{[]string{"--tls-cert", missing, "--tls-key", f.key}, 1, []string{"mcpbridge serve: TLS certificate: open " + missing + ": no such file or directory"}},
			{[]string{"--tls-cert", f.cert, "--tls-key", missing}, 1, []string{"mcpbridge serve: TLS key: open " + missing + ": no such file or directory"}},
			{[]string{"--tls-cert", garbage, "--tls-key", f.key}, 1, []string{"mcpbridge serve: TLS certificate " + garbage, "failed to find any PEM data in certificate input"}},
			{[]string{"--tls-cert", f.cert, "--tls-key", f.aliceKey}, 1, []string{"mcpbridge serve: TLS certificate " + f.cert + " and key " + f.aliceKey, "private key does not match public key"}},
			{append(f.args(), "--client-ca", missing), 1, []string{"mcpbridge serve: client CA: open " + missing + ": no such file or directory"}},
			{append(f.args(), "--client-ca", garbage), 1, []string{"mcpbridge serve: client CA " + garbage + ": no PEM certificate in it"}},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				// runCLI fails the test if the bridge starts serving.
				_, stderr, code := runCLI(t, "", append([]string{"serve"}, tc.args...)...)
				if code != tc.code || !testkit.ContainsAll(stderr, tc.want...) {
					t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tc.code, tc.want)
				}
			})
		}
	})

	const warning = `level=WARN msg="mcpbridge: serving plaintext on a non-loopback address"`
	t.Run("insecure", func(t *testing.T) {
		b := startBridge(t, nil, "--listen", "0.0.0.0:0", "--insecure", "--reflection", "on") // the later --listen wins
		if !b.log.Has(warning) {
			t.Errorf("--insecure on 0.0.0.0: no warning in the log:\n%s", b.log)
		}
		checkServingLine(t, b, false, false)
		// Plaintext gRPC works.
		if echoed, _, code := findGrpcurl(t).echo(t, b.addr, "in the clear", "-plaintext"); code != 0 || echoed != "in the clear" {
			t.Errorf("grpcurl -plaintext CallTool echo = %q (exit %d)", echoed, code)
		}
		// Off loopback, reflection is off unless asked for.
		quiet := startBridge(t, nil, "--listen", "0.0.0.0:0", "--insecure")
		if out, stderr, code := findGrpcurl(t).run(t, "-plaintext", quiet.addr, "list"); code == 0 || !strings.Contains(stderr, "reflection") {
			t.Errorf("grpcurl list off loopback = %q, exit %d, %s; want no reflection", out, code, stderr)
		}
	})

	t.Run("loopback", func(t *testing.T) {
		for _, listen := range []string{"127.0.0.1:0", "localhost:0"} {
			b := startBridge(t, nil, "--listen", listen)
			if b.log.Has(warning) {
				t.Errorf("plaintext on %s: a warning in the log:\n%s", listen, b.log)
			}
			checkServingLine(t, b, false, false)
		}
	})
}

// isLoopback takes 127.0.0.0/8, ::1 and localhost, and nothing else.
func TestIsLoopback(t *testing.T) {
	for listen, want := range map[string]bool{
		"127.0.0.1:50051":        true,
		"127.3.2.1:0":            true,
		"[::1]:0":                true,
		"[::ffff:127.0.0.1]:0":   true,
		"localhost:0":            true,
		"LocalHost.:0":           true,
		":0":                     false,
		"0.0.0.0:0":              false,
		"[::]:0":                 false,
		"192.0.2.1:0":            false,
		"[2001:db8::1]:0":        false,
		"no-such-host.invalid:0": false,
		"not an address":         false,
		"[fe80::1%lo]:0":         false,
		"128.0.0.1:0":            false,
		"126.255.255.255:0":      false,
		"[::2]:0":                false,
	} {
		if got := isLoopback(listen); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", listen, got, want)
		}
	}
}
