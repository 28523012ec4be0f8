// Package tlsfiles is the TLS configuration of a server whose certificate,
// key and client CA bundle are PEM files that an operator, cert-manager or
// a Kubernetes secret rotates while the server runs.
//
// The files are read once when the configuration is made, so that a
// missing or bad file fails the start, and again when they change: at a
// TLS handshake, at most once a second, each file is stat'ed, and when the
// modification time, the size or the file itself (a rename or a symlink
// swap put another file at the path) changed, the set is read again. A
// set that fails to load (a half-written file, a key that does not match
// its certificate) is reported to [Files.OnReload] and the previous one
// stays in use; since the failed set's state is remembered, it is tried
// again only when one of its files changes once more. A file rewritten in
// place with the same size within the file system's timestamp granularity
// is not noticed; writing a new file and renaming it over the old one
// always is.
//
// Only crypto/tls and crypto/x509 touch the key material.
package tlsfiles

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// CheckInterval is the least time between two looks at the files.
const CheckInterval = time.Second

// Files names the PEM files of a TLS server.
type Files struct {
	// CertFile is the server's certificate chain, leaf first, and KeyFile
	// its private key (PKCS #1, PKCS #8 or SEC 1).
	CertFile, KeyFile string
	// ClientCAFile, when set, holds the CA certificates that client
	// certificates must chain to: clients without one are refused.
	ClientCAFile string
	// OnReload, when set, is called after files that changed were read
	// again: files are the certificate and key files, or the client CA
	// file; err is nil when the new contents are in use, and otherwise
	// says why not, naming the file (the previous contents stay in use).
	// It is called from a TLS handshake, after the files were read, so it
	// must not block.
	OnReload func(files []string, err error)

	now func() time.Time // time.Now; tests set it
}

// ServerConfig returns the TLS configuration of a server with the
// certificate in certFile and its key in keyFile and, when clientCAFile
// is not empty, client certificates required and verified against the
// CAs in clientCAFile: [Files.ServerConfig] without a reload callback.
func ServerConfig(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	return (&Files{CertFile: certFile, KeyFile: keyFile, ClientCAFile: clientCAFile}).ServerConfig()
}

// ServerConfig reads the files and returns a TLS server configuration
// that uses them and follows their changes: TLS 1.2 at least (Go prefers
// 1.3 whenever the client has it), the certificate from GetCertificate
// and, with a ClientCAFile, tls.RequireAndVerifyClientCert with ClientCAs
// from the file, kept current through GetConfigForClient. An error names
// the file at fault.
func (f *Files) ServerConfig() (*tls.Config, error) {
	if f.CertFile == "" || f.KeyFile == "" {
		return nil, errors.New("tlsfiles: a certificate file and a key file are both needed")
	}
	now := f.now
	if now == nil {
		now = time.Now
	}
	cert, err := newWatched(now, f.OnReload, []string{f.CertFile, f.KeyFile}, func() (*tls.Certificate, error) {
		return LoadKeyPair(f.CertFile, f.KeyFile)
	})
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return cert.get(), nil
		},
	}
	if f.ClientCAFile == "" {
		return cfg, nil
	}
	// Each CA pool gets its own configuration, made once when the pool is
	// read: a handshake takes the current one.
	forPool := func(pool *x509.CertPool) *tls.Config {
		c := cfg.Clone()
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = pool
		return c
	}
	clientCAs, err := newWatched(now, f.OnReload, []string{f.ClientCAFile}, func() (*tls.Config, error) {
		pool, err := LoadCAs("client CA", f.ClientCAFile)
		if err != nil {
			return nil, err
		}
		return forPool(pool), nil
	})
	if err != nil {
		return nil, err
	}
	// The returned configuration requires client certificates on its own
	// too, with the CAs as first read, for a caller that ignores
	// GetConfigForClient.
	top := clientCAs.cur.Clone()
	top.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return clientCAs.get(), nil
	}
	return top, nil
}

// LoadKeyPair reads a certificate and its key; an error names the file
// at fault.
func LoadKeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// tls says which input is at fault ("certificate input", "key
		// input") or that they do not match; the names say which files.
		return nil, fmt.Errorf("TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &cert, nil
}

// LoadCAs reads a bundle of PEM CA certificates; an error names it as
// what ("client CA", a flag) and the file.
func LoadCAs(what, file string) (*x509.CertPool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s %s: no PEM certificate in it", what, file)
	}
	return pool, nil
}

// watched is a value read from files, read again when they change.
type watched[T any] struct {
	now      func() time.Time
	onReload func([]string, error)
	files    []string
	load     func() (T, error)

	mu      sync.Mutex
	checked time.Time // the last look at the files
	stamps  []stamp   // the files as last read, successfully or not
	cur     T         // the last value that loaded
}

// newWatched reads the value a first time.
func newWatched[T any](now func() time.Time, onReload func([]string, error), files []string, load func() (T, error)) (*watched[T], error) {
	w := &watched[T]{now: now, onReload: onReload, files: files, load: load}
	w.checked = now()
	// Stat before reading: a write between the two is seen at the next
	// look, never missed.
	w.stamps = stampFiles(files)
	v, err := load()
	if err != nil {
		return nil, err
	}
	w.cur = v
	return w, nil
}

// get returns the current value, after reading the files again if the
// last look is CheckInterval old and they changed since.
func (w *watched[T]) get() T {
	cur, reloaded, err := w.check()
	if reloaded && w.onReload != nil {
		w.onReload(slices.Clone(w.files), err)
	}
	return cur
}

// check is get but for the report: reloaded says that the files were read
// again, and err why they did not load.
func (w *watched[T]) check() (cur T, reloaded bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if now.Sub(w.checked) < CheckInterval {
		return w.cur, false, nil
	}
	w.checked = now
	stamps := stampFiles(w.files)
	if slices.EqualFunc(stamps, w.stamps, stamp.same) {
		return w.cur, false, nil
	}
	w.stamps = stamps
	v, err := w.load()
	if err == nil {
		w.cur = v
	}
	return w.cur, true, err
}

// stamp is what a file's stat said; info is nil when it failed.
type stamp struct{ info os.FileInfo }

func stampFiles(files []string) []stamp {
	stamps := make([]stamp, len(files))
	for i, name := range files {
		stamps[i].info, _ = os.Stat(name) // follows symlinks: a swapped target is a change
	}
	return stamps
}

// same reports whether a and b describe the same contents, as far as a
// stat can tell.
func (a stamp) same(b stamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return SameStat(a.info, b.info)
}

// SameStat reports whether two stats of a path describe the same contents,
// as far as a stat can tell: the same file (a swapped symbolic link, as
// when Kubernetes updates a mounted ConfigMap or Secret, is another), size
// and modification time.
func SameStat(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}
