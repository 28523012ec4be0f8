package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test, to issue the
// certificates of TLS tests: every one is new, with a random serial, and
// valid from an hour ago for a day.
type CA struct {
	Cert *x509.Certificate
	PEM  []byte // the CA certificate, for a ClientCAs or RootCAs file
	key  *ecdsa.PrivateKey
}

// Leaf is a certificate that a CA issued, with its key.
type Leaf struct {
	Cert    *x509.Certificate
	CertPEM []byte
	KeyPEM  []byte // PKCS #8
}

// NewCA returns a new self-signed CA called name.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key := newKey(tb)
	tmpl := template(tb, name)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	cert, der := sign(tb, tmpl, tmpl, key, key)
	return &CA{Cert: cert, PEM: pemBlock("CERTIFICATE", der), key: key}
}

// Server issues a server certificate for hosts: IP addresses and DNS
// names.
func (ca *CA) Server(tb testing.TB, hosts ...string) *Leaf {
	tb.Helper()
	tmpl := template(tb, hosts[0])
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	return ca.issue(tb, tmpl)
}

// Client issues a client certificate with the common name name.
func (ca *CA) Client(tb testing.TB, name string) *Leaf {
	tb.Helper()
	tmpl := template(tb, name)
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return ca.issue(tb, tmpl)
}

func (ca *CA) issue(tb testing.TB, tmpl *x509.Certificate) *Leaf {
	tb.Helper()
	key := newKey(tb)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	cert, der := sign(tb, tmpl, ca.Cert, key, ca.key)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return &Leaf{Cert: cert, CertPEM: pemBlock("CERTIFICATE", der), KeyPEM: pemBlock("PRIVATE KEY", keyDER)}
}

// Write puts the certificate in certFile and the key in keyFile, each
// written to a new file renamed over the path, as a rotation does.
func (l *Leaf) Write(tb testing.TB, certFile, keyFile string) {
	tb.Helper()
	WriteFileAtomic(tb, certFile, l.CertPEM)
	WriteFileAtomic(tb, keyFile, l.KeyPEM)
}

// WriteFileAtomic writes data to a new file in path's directory and
// renames it to path.
func WriteFileAtomic(tb testing.TB, path string, data []byte) {
	tb.Helper()
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		tb.Fatal(err)
	}
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

func template(tb testing.TB, name string) *x509.Certificate {
	tb.Helper()
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
	}
}

func sign(tb testing.TB, tmpl, parent *x509.Certificate, key *ecdsa.PrivateKey, parentKey *ecdsa.PrivateKey) (*x509.Certificate, []byte) {
	tb.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return cert, der
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
