//go:build !linux

package sandbox

import (
	"errors"
	"syscall"
)

const supported = false

func namespaces(*syscall.SysProcAttr, Network) {}

func enter(*spec, []string) error { return errors.New("sandboxes need Linux") }

type cgroups struct{ memory string }

func newCgroups(int, int64) (*cgroups, error) { return nil, errors.New("control groups need Linux") }
func (*cgroups) Release()                     {}
func (*cgroups) oomKills() int                { return 0 }
func (*cgroups) procs() []string              { return nil }

type forwarder struct{}

func (*forwarder) forward(int, []int) error { return errors.New("forwarding needs Linux") }
func (*forwarder) close()                   {}
