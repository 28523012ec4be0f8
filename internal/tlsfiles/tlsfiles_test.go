package tlsfiles

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is the time of a test, which moves only when the test moves it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Unix(1_800_000_000, 0)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// reloads records the calls of OnReload.
type reloads struct {
	mu    sync.Mutex
	calls []reload
}

type reload struct {
	files []string
	err   error
}

func (r *reloads) record(files []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, reload{files, err})
}

// take returns the calls since the last take.
func (r *reloads) take() []reload {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

// paths are the files of a test's server.
type paths struct{ cert, key, ca string }

func newPaths(t *testing.T) paths {
	dir := t.TempDir()
	return paths{filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "ca.pem")}
}

// handshake runs a TLS handshake of a server with cfg and a client with
// client over loopback TCP (whose buffers take an alert that nobody reads
// yet, where a net.Pipe would block), then a one-byte exchange so that
// the client learns whether the server accepted its certificate (in TLS
// 1.3 the client's handshake ends before the server checked it). It
// returns the client's view of the connection and either side's error.
func handshake(t *testing.T, cfg, client *tls.Config) (tls.ConnectionState, error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	srvErr := make(chan error, 1)
	go func() {
		sc, err := lis.Accept()
		if err != nil {
			srvErr <- err
			return
		}
		s := tls.Server(sc, cfg)
		err = s.Handshake()
		if err == nil {
			_, err = s.Write([]byte{1})
		}
		s.Close()
		srvErr <- err
	}()
	cc, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Client(cc, client)
	err = c.Handshake()
	if err == nil {
		// (1, io.EOF) when the close_notify came with the byte.
		if n, rerr := c.Read(make([]byte, 1)); n == 0 {
			err = rerr
		}
	}
	state := c.ConnectionState()
	c.Close()
	if serr := <-srvErr; serr != nil {
		err = errors.Join(serr, err)
	}
	return state, err
}

// clientOf returns the configuration of a client that trusts ca and
// presents cert, if any, even when the server names other CAs (a client
// with Certificates would then send none).
func clientOf(t *testing.T, ca *testkit.CA, cert *testkit.Leaf) *tls.Config {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	cfg := &tls.Config{RootCAs: roots, ServerName: "localhost"}
	if cert != nil {
		pair, err := tls.X509KeyPair(cert.CertPEM, cert.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	return cfg
}

// The configuration serves the certificate of the files, over TLS 1.3 when
// the client has it and 1.2 when it has no more, never below, and without
// a client CA file asks for no client certificate.
func TestServerConfig(t *testing.T) {
	p := newPaths(t)
	ca := testkit.NewCA(t, "test CA")
	leaf := ca.Server(t, "127.0.0.1", "localhost")
	leaf.Write(t, p.cert, p.key)
	cfg, err := ServerConfig(p.cert, p.key, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MinVersion != tls.VersionTLS12 || cfg.MaxVersion != 0 {
		t.Errorf("versions %x to %x, want TLS 1.2 (0x303) to the newest", cfg.MinVersion, cfg.MaxVersion)
	}
	if cfg.ClientAuth != tls.NoClientCert || cfg.GetConfigForClient != nil {
		t.Errorf("ClientAuth = %v, GetConfigForClient set %v; want no client certificates", cfg.ClientAuth, cfg.GetConfigForClient != nil)
	}
	for _, tc := range []struct {
		max, want uint16
	}{{0, tls.VersionTLS13}, {tls.VersionTLS12, tls.VersionTLS12}, {tls.VersionTLS11, 0}} {
		client := clientOf(t, ca, nil)
		client.MinVersion, client.MaxVersion = tls.VersionTLS10, tc.max
		state, err := handshake(t, cfg, client)
		switch {
		case tc.want == 0 && err == nil:
			t.Errorf("a client of at most %s connected; want TLS 1.2 at least", tls.VersionName(tc.max))
		case tc.want == 0:
		case err != nil:
			t.Errorf("a client of at most %s: %v", tls.VersionName(tc.max), err)
		case state.Version != tc.want || !state.PeerCertificates[0].Equal(leaf.Cert):
			t.Errorf("a client of at most %s got %s and serial %v; want %s and serial %v", tls.VersionName(tc.max),
				tls.VersionName(state.Version), state.PeerCertificates[0].SerialNumber, tls.VersionName(tc.want), leaf.Cert.SerialNumber)
		}
	}
}

// A file that is missing, not PEM, or a key that does not match its
// certificate fails ServerConfig with an error that names the file.
func TestServerConfigErrors(t *testing.T) {
	p := newPaths(t)
	ca := testkit.NewCA(t, "test CA")
	ca.Server(t, "localhost").Write(t, p.cert, p.key)
	if err := os.WriteFile(p.ca, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p.cert)
	missing := filepath.Join(dir, "missing.pem")
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Join(dir, "other-key.pem")
	if err := os.WriteFile(otherKey, ca.Server(t, "localhost").KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		cert, key, ca string
		want          []string
	}{
		{"missing certificate", missing, p.key, "", []string{"TLS certificate", missing, "no such file"}},
		{"missing key", p.cert, missing, "", []string{"TLS key", missing, "no such file"}},
		{"certificate not PEM", garbage, p.key, "", []string{garbage, "certificate input"}},
		{"key not PEM", p.cert, garbage, "", []string{garbage, "key input"}},
		{"key of another certificate", p.cert, otherKey, "", []string{p.cert, otherKey, "does not match"}},
		{"missing client CA", p.cert, p.key, missing, []string{"client CA", missing, "no such file"}},
		{"client CA not PEM", p.cert, p.key, garbage, []string{"client CA", garbage, "no PEM certificate"}},
		{"no key file", p.cert, "", "", []string{"a certificate file and a key file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ServerConfig(tc.cert, tc.key, tc.ca)
			if err == nil || cfg != nil || !testkit.ContainsAll(err.Error(), tc.want...) {
				t.Errorf("ServerConfig = %v, %v; want an error with %q", cfg, err, tc.want)
			}
		})
	}
}

// A new certificate and key are served once the next look at the files
// comes, a second after the last; a pair that does not load is reported
// and the previous one stays, until the files change again.
func TestRotation(t *testing.T) {
	p := newPaths(t)
	ca := testkit.NewCA(t, "test CA")
	first := ca.Server(t, "localhost")
	first.Write(t, p.cert, p.key)
	clk, r := newClock(), &reloads{}
	cfg, err := (&Files{CertFile: p.cert, KeyFile: p.key, OnReload: r.record, now: clk.now}).ServerConfig()
	if err != nil {
		t.Fatal(err)
	}
	served := func() *x509.Certificate {
		t.Helper()
		cert, err := cfg.GetCertificate(&tls.ClientHelloInfo{ServerName: "localhost"})
		if err != nil || cert == nil || cert.Leaf == nil {
			t.Fatalf("GetCertificate = %v, %v; want a certificate", cert, err)
		}
		return cert.Leaf
	}
	step := func(what string, d time.Duration, want *testkit.Leaf, wantReloads int, wantErr ...string) {
		t.Helper()
		clk.advance(d)
		if got := served(); !got.Equal(want.Cert) {
			t.Errorf("%s: serial %v served, want %v", what, got.SerialNumber, want.Cert.SerialNumber)
		}
		calls := r.take()
		if len(calls) != wantReloads {
			t.Fatalf("%s: %d reloads reported, want %d: %v", what, len(calls), wantReloads, calls)
		}
		for _, c := range calls {
			if !slices.Equal(c.files, []string{p.cert, p.key}) {
				t.Errorf("%s: reload of %q, want the certificate and key files", what, c.files)
			}
			if len(wantErr) == 0 && c.err != nil || len(wantErr) > 0 && (c.err == nil || !testkit.ContainsAll(c.err.Error(), wantErr...)) {
				t.Errorf("%s: reload error %v, want one with %q", what, c.err, wantErr)
			}
		}
	}

	step("unchanged files, a second on", time.Second, first, 0)
	second := ca.Server(t, "localhost")
	second.Write(t, p.cert, p.key)
	step("new files, within the second", CheckInterval-time.Millisecond, first, 0)
	step("new files, a second on", time.Millisecond, second, 1)
	step("the same files again", time.Hour, second, 0)

	// A certificate whose key has not arrived yet: refused, kept.
	third := ca.Server(t, "localhost")
	testkit.WriteFileAtomic(t, p.cert, third.CertPEM)
	step("a certificate without its key", CheckInterval, second, 1, p.cert, p.key, "does not match")
	step("the mismatch, unchanged", CheckInterval, second, 0)
	testkit.WriteFileAtomic(t, p.key, third.KeyPEM)
	step("its key arrives", CheckInterval, third, 1)

	// A removed file: refused, kept; back: served.
	if err := os.Remove(p.key); err != nil {
		t.Fatal(err)
	}
	step("the key removed", CheckInterval, third, 1, "TLS key", p.key)
	fourth := ca.Server(t, "localhost")
	fourth.Write(t, p.cert, p.key)
	step("a new pair", CheckInterval, fourth, 1)
}

// With a client CA file, a client must present a certificate that a CA of
// the file issued; when the file changes, the new CAs decide.
func TestClientCA(t *testing.T) {
	p := newPaths(t)
	ca, other := testkit.NewCA(t, "test CA"), testkit.NewCA(t, "other CA")
	ca.Server(t, "localhost").Write(t, p.cert, p.key)
	testkit.WriteFileAtomic(t, p.ca, ca.PEM)
	alice, mallory := ca.Client(t, "alice"), other.Client(t, "mallory")
	clk, r := newClock(), &reloads{}
	cfg, err := (&Files{CertFile: p.cert, KeyFile: p.key, ClientCAFile: p.ca, OnReload: r.record, now: clk.now}).ServerConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientAuth != tls.RequireAndVerifyClientCert || cfg.ClientCAs == nil || cfg.MinVersion != tls.VersionTLS12 {
		t.Errorf("ClientAuth = %v, ClientCAs %v, MinVersion %x; want client certificates required and verified, TLS 1.2 at least", cfg.ClientAuth, cfg.ClientCAs, cfg.MinVersion)
	}
	// check tries alice's certificate, mallory's and none; accepted names
	// those that the server must accept. The others it must refuse: a
	// certificate from an unknown CA, or no certificate.
	check := func(what string, accepted ...string) {
		t.Helper()
		for _, c := range []struct {
			name string
			cert *testkit.Leaf
		}{{"alice", alice}, {"mallory", mallory}, {"no certificate", nil}} {
			state, err := handshake(t, cfg, clientOf(t, ca, c.cert))
			want := "certificate signed by unknown authority"
			if c.cert == nil {
				want = "client didn't provide a certificate"
			}
			switch ok := slices.Contains(accepted, c.name); {
			case ok && err != nil:
				t.Errorf("%s: %s refused: %v", what, c.name, err)
			case ok && !state.HandshakeComplete:
				t.Errorf("%s: %s: the handshake did not complete", what, c.name)
			case !ok && (err == nil || !strings.Contains(err.Error(), want)):
				t.Errorf("%s: %s: %v, want refused with %q", what, c.name, err, want)
			}
		}
	}
	check("the first CA", "alice")
	testkit.WriteFileAtomic(t, p.ca, other.PEM)
	check("the other CA written, within the second", "alice")
	clk.advance(CheckInterval)
	check("the other CA, a second on", "mallory")
	if calls := r.take(); len(calls) != 1 || !slices.Equal(calls[0].files, []string{p.ca}) || calls[0].err != nil {
		t.Errorf("reloads %v, want one of the client CA file", calls)
	}
	testkit.WriteFileAtomic(t, p.ca, []byte("not PEM"))
	clk.advance(CheckInterval)
	check("a broken CA file", "mallory")
	if calls := r.take(); len(calls) != 1 || calls[0].err == nil || !strings.Contains(calls[0].err.Error(), p.ca) {
		t.Errorf("reloads %v, want one error naming the client CA file", calls)
	}
}
