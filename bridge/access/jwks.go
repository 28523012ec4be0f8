package access

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"golang.org/x/time/rate"
)

// jwksFile reads a JSON Web Key Set from a file (read once: restart or
// reload the bridge to rotate).
func jwksFile(path string) (keyfunc.Keyfunc, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("access: jwks_file: %w", err)
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("access: jwks_file %s is not JSON", path)
	}
	k, err := keyfunc.NewJWKSetJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("access: jwks_file %s: %w", path, err)
	}
	return k, nil
}

// jwksWaitMax bounds what a token naming an unknown key id waits for:
// the refresh allowance and the fetch (whose own timeout is as long).
const jwksWaitMax = 10 * time.Second

// jwksURL fetches a JSON Web Key Set over HTTPS and keeps it fresh (the
// keyfunc library: a refresh every RefreshInterval, and at most one a
// minute for a token that names a key id it does not have, which is how
// a rotated key is found). The first fetch must succeed.
//
// Authentication runs on a connection's reader goroutine (the bridge's
// tap, bridge/preauth.go), so a token must not hold it long: a token that
// names an unknown key id waits for a refresh at most jwksWaitMax, the
// wait for the once-a-minute allowance and the fetch together. When the
// next refresh is further away than that, the token is refused at once
// instead of waiting up to a minute for it.
func jwksURL(ctx context.Context, c *JWTConfig) (keyfunc.Keyfunc, error) {
	client := c.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	fail := false
	k, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{c.JWKSURL}, keyfunc.Override{
		Client:                    client,
		HTTPTimeout:               10 * time.Second,
		RefreshInterval:           c.RefreshInterval,
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(time.Minute), 1),
		RateLimitWaitMax:          jwksWaitMax,
		NoErrorReturnFirstHTTPReq: &fail,
	})
	if err != nil {
		return nil, fmt.Errorf("access: jwks_url %s: %w", c.JWKSURL, err)
	}
	return k, nil
}
