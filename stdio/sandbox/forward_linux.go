package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// This file is network: loopback's forwarding: the sandbox's own network
// namespace gets a listener on 127.0.0.1 for each of Profile.LoopbackPorts,
// made from outside (this process enters the namespace on one locked
// thread, which its user namespace's creator may), and each connection to
// it is carried to the same port on the host's loopback. The sandboxed
// process reaches those ports and nothing else.

// maxForwarded bounds the connections a sandbox has forwarded at once;
// one more is closed as it arrives.
const maxForwarded = 256

// forwarder carries a sandbox's loopback ports to the host's.
type forwarder struct {
	mu     sync.Mutex
	lns    []net.Listener
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// forward starts forwarding ports into the network namespace of process
// pid.
func (f *forwarder) forward(pid int, ports []int) error {
	for _, port := range ports {
		ln, err := listenIn(pid, port)
		if err != nil {
			f.close()
			return fmt.Errorf("network loopback: port %d: %v", port, err)
		}
		f.mu.Lock()
		f.lns = append(f.lns, ln)
		f.mu.Unlock()
		f.wg.Add(1)
		go f.accept(ln, port)
	}
	return nil
}

// listenIn listens on 127.0.0.1:port inside pid's network namespace.
func listenIn(pid, port int) (net.Listener, error) {
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		// A thread that cannot return to the host's namespace is left
		// locked: the runtime then ends it with the goroutine.
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- result{err: err}
			return
		}
		defer own.Close()
		theirs, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil {
			runtime.UnlockOSThread()
			done <- result{err: err}
			return
		}
		defer theirs.Close()
		if err := unix.Setns(int(theirs.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- result{err: fmt.Errorf("entering the sandbox's network: %v", err)}
			return
		}
		ln, lerr := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
		if err := unix.Setns(int(own.Fd()), unix.CLONE_NEWNET); err == nil {
			runtime.UnlockOSThread()
		}
		done <- result{ln, lerr}
	}()
	r := <-done
	return r.ln, r.err
}

// accept carries each connection to ln to the host's port.
func (f *forwarder) accept(ln net.Listener, port int) {
	defer f.wg.Done()
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		full := len(f.conns) >= 2*maxForwarded
		f.mu.Unlock()
		if full {
			in.Close()
			continue
		}
		out, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			in.Close()
			continue
		}
		if !f.track(in, out) {
			return
		}
		f.wg.Add(2)
		go f.pipe(in, out)
		go f.pipe(out, in)
	}
}

// track records a connection pair, or closes it when the forwarder is
// closed.
func (f *forwarder) track(cs ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	if f.conns == nil {
		f.conns = map[net.Conn]struct{}{}
	}
	for _, c := range cs {
		f.conns[c] = struct{}{}
	}
	return true
}

// pipe copies src to dst, then ends dst's writing.
func (f *forwarder) pipe(dst, src net.Conn) {
	defer f.wg.Done()
	io.Copy(dst, src)
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	f.mu.Lock()
	delete(f.conns, src)
	f.mu.Unlock()
	src.Close()
}

// close stops forwarding: the listeners and every connection closed, and
// their goroutines ended.
func (f *forwarder) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.closed = true
	for _, ln := range f.lns {
		ln.Close()
	}
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}
