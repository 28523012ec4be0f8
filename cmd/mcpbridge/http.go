package main

import (
	"errors"
	"strings"

	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// The HTTP front door (docs/operations.md, "HTTP") is the bridge's
// (bridge.HTTPDoor, which bridge.Service.Serve serves on the listener);
// what lives here is its flag.

// originsFlag is --http-cors-origin, repeatable.
type originsFlag []string

func (o *originsFlag) String() string { return strings.Join(*o, ",") }

func (o *originsFlag) Set(s string) error {
	c, err := canonicalOrigin(s)
	if err != nil {
		return err
	}
	*o = append(*o, c)
	return nil
}

// canonicalOrigin accepts "*" or an origin, scheme://host[:port] without
// a path, and returns it as browsers send it (mcphttp.CanonicalOrigin), so
// that https://App.example/ matches what a page on it sends.
func canonicalOrigin(s string) (string, error) {
	if s == "*" {
		return s, nil
	}
	c, ok := mcphttp.CanonicalOrigin(s)
	if !ok {
		return "", errors.New("want * or an origin such as https://app.example.com")
	}
	return c, nil
}
