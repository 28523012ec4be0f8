package server

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Run is a server program's one call: it serves rt on the process's
// standard input and output until stdin ends or the process is asked to
// stop (docs/stdio.md, "Run"). Its steps:
//
//   - It takes standard output for the protocol, as [TakeStdout] does, so
//     that from then on a stray print lands on stderr instead of corrupting
//     the protocol. When TakeStdout was called already, Run serves on the
//     descriptor it returned.
//   - It serves rt with [Serve] on os.Stdin and that descriptor, as cfg
//     says.
//   - At stdin EOF it returns nil once every request has been answered.
//   - At the first SIGINT or SIGTERM it stops reading stdin, lets the
//     requests already read finish within cfg.ShutdownGrace (default 3 s),
//     and returns nil once they have. Requests still running at the end of
//     the grace are cancelled, unanswered, and Run returns an error that
//     counts them. A second SIGINT or SIGTERM takes the signal's default
//     action: the process ends at once.
//   - When ctx ends, or the output fails, it stops at once and returns the
//     error Serve returns.
//
// Output written to standard output before Run (or TakeStdout) was called
// has already gone to the client, ahead of the first protocol line, where
// it can break the client. A main that may print before Run, because it
// parses flags, logs to stdout, or starts something that prints, calls
// TakeStdout first.
//
// Run is called once per process, with nothing else reading os.Stdin or
// handling SIGINT or SIGTERM. When Run returns, a goroutine blocked
// reading stdin may remain (os.Stdin takes no read deadline); it delivers
// nothing more, and ends with the process. On systems other than Unix Run
// serves on os.Stdout itself, and a stray print does reach the client.
func Run(ctx context.Context, rt Runtime, cfg Config) error {
	if rt == nil {
		return errors.New("stdio: Run needs a Runtime")
	}
	cfg, err := cfg.normalize()
	if err != nil {
		return err
	}
	// Signals first: one that arrives while Run starts stops it gracefully
	// too, instead of killing the process.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var stopSignals sync.Once
	defer stopSignals.Do(func() { signal.Stop(sigs) })

	out, err := protocolOutput()
	if err != nil {
		return err
	}

	// The signal watcher is Run's: it ends and is waited for before Run
	// returns.
	stop, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case sig := <-sigs:
			// A second signal takes the default action: exit at once.
			stopSignals.Do(func() { signal.Stop(sigs) })
			cfg.Logger.Info("stdio: stopping on a signal; a second one exits at once", "signal", sig.String())
			close(stop)
		case <-done:
		}
	})
	err = serve(ctx, rt, os.Stdin, out, cfg, stop)
	close(done)
	wg.Wait()
	return err
}
