//go:build !unix

package server

import "os"

// protocolOutput is Run's output. Without descriptors to rearrange, it is
// os.Stdout itself: a stray write to it goes to the client.
func protocolOutput() (*os.File, error) { return os.Stdout, nil }
