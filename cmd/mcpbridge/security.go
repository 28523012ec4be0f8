package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/configfile"
)

// security builds what the config file says of callers (docs/security.md):
// the authenticator, the audit sink and whether reflection is served. It
// keeps what outlives one configuration: the JWKS refreshes of the
// authenticator in force, and the audit file.
type security struct {
	mu        sync.Mutex
	stopJWKS  context.CancelFunc // the authenticator in force's refreshes
	auditFile *os.File

	// auth is the last authenticator made, and authFrom what it was made
	// of: a reload whose auth section (and JWT CA file) did not change
	// keeps it, its caches and its JWKS refreshes, and the bridge's
	// reload log can tell an auth change from none.
	auth     *access.Authenticator
	authFrom authSource
}

// authSource is what an authenticator is made of.
type authSource struct {
	auth    configfile.Auth
	ca      []byte // the JWT CA file's contents, if any
	oauthCA []byte // the OAuth CA file's
}

// apply sets cfg's Auth, Audit and DisableReflection from file (nil: the
// command line's one server) for a bridge listening on listen.
func (sec *security) apply(f *serveFlags, file *configfile.File, cfg *bridge.Config, listen string) error {
	reflection := "auto"
	switch {
	case f.reflection != "":
		reflection = f.reflection
	case file != nil && file.Reflection != "":
		reflection = file.Reflection
	}
	cfg.DisableReflection = reflection == "off" || reflection == "auto" && !isLoopback(listen)
	if file == nil {
		return nil
	}
	if file.Audit != "" && cfg.Audit == nil {
		audit, err := sec.openAudit(file.Audit)
		if err != nil {
			return err
		}
		cfg.Audit = audit
	}
	if file.Auth == nil {
		sec.swapJWKS(nil)
		sec.auth = nil
		return nil
	}
	from, readable := authSource{auth: *file.Auth}, true
	if j := file.Auth.JWT; j != nil && j.CAFile != "" {
		var err error
		from.ca, err = os.ReadFile(j.CAFile)
		readable = err == nil // if not, httpClientWithCA below says why
	}
	if o := file.Auth.OAuth; o != nil && o.CAFile != "" {
		var err error
		from.oauthCA, err = os.ReadFile(o.CAFile)
		readable = readable && err == nil
	}
	if sec.auth != nil && readable && reflect.DeepEqual(from, sec.authFrom) {
		cfg.Auth = sec.auth // unchanged
		return nil
	}
	acfg := file.AccessConfig()
	if acfg.MTLS && f.clientCA == "" {
		return usageError{err: fmt.Errorf("%s: auth.mtls needs --client-ca (and --tls-cert, --tls-key)", f.config)}
	}
	if j := file.Auth.JWT; j != nil && j.CAFile != "" {
		client, err := httpClientWithCA("auth.jwt.ca_file", j.CAFile)
		if err != nil {
			return err
		}
		acfg.JWT.HTTPClient = client
	}
	if o := file.Auth.OAuth; o != nil && o.CAFile != "" {
		client, err := httpClientWithCA("auth.oauth.ca_file", o.CAFile)
		if err != nil {
			return err
		}
		acfg.OAuth.HTTPClient = client
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := access.New(ctx, acfg)
	if err != nil {
		cancel()
		return fmt.Errorf("%s: auth: %w", f.config, err)
	}
	sec.swapJWKS(cancel)
	cfg.Auth = a
	sec.auth, sec.authFrom = a, from
	return nil
}

// swapJWKS stops the refreshes of the previous authenticator.
func (sec *security) swapJWKS(cancel context.CancelFunc) {
	sec.mu.Lock()
	old := sec.stopJWKS
	sec.stopJWKS = cancel
	sec.mu.Unlock()
	if old != nil {
		old()
	}
}

// openAudit is the audit logger on path, or on stderr.
func (sec *security) openAudit(path string) (*slog.Logger, error) {
	if path == "stderr" {
		return slog.New(slog.NewJSONHandler(os.Stderr, nil)), nil
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	sec.auditFile = file
	return slog.New(slog.NewJSONHandler(file, nil)), nil
}

// close stops the JWKS refreshes and closes the audit file.
func (sec *security) close() {
	sec.swapJWKS(nil)
	if sec.auditFile != nil {
		sec.auditFile.Close()
	}
}

// httpClientWithCA is an HTTPS client that trusts the system's CAs and
// those of caFile, the config file's key.
func httpClientWithCA(key, caFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s: no PEM certificate", key, caFile)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig.RootCAs = pool
	return &http.Client{Timeout: 10 * time.Second, Transport: transport}, nil
}
