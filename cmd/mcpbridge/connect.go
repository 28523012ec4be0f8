package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// runConnect is `mcpbridge connect`: a stdio MCP server that is a remote
// bridge's Connect tunnel (docs/operations.md, "mcpbridge connect"). An
// MCP host that starts stdio servers (an IDE, a desktop app, the
// conformance suite's adapter) runs it as its server, and every line it
// writes to our stdin goes into the tunnel as it is, every message of the
// tunnel comes out on our stdout, one line each. The host then talks to
// the server behind the bridge as if it ran locally: the tunnel passes the
// host's own params and _meta.
//
// It ends with exit status 0 when stdin ends and the tunnel has answered
// what was in flight, and 1 when the tunnel fails (the status is on
// stderr).
func runConnect(args []string) error {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:50051", "the bridge's gRPC `address` (host:port), plaintext")
	server := fs.String("server", "", "the fronted server's `name` (empty: the bridge's only one)")
	maxBytes := fs.Int("max-message-bytes", bridge.DefaultMaxMessageBytes, "the size limit of a message either way, in `bytes`")
	// Help goes to stderr: stdout is the MCP protocol.
	if err := parseFlags(fs, args, func(io.Writer) {
		fmt.Fprint(os.Stderr, "usage: mcpbridge connect [flags]\n\n"+
			"A stdio MCP server that tunnels to a remote bridge: each line on stdin goes into a\n"+
			"Connect stream, each message of the stream comes out on stdout. Point an MCP host\n"+
			"that launches stdio servers at it to use the server behind the bridge.\n\nFlags:\n")
		printDefaults(os.Stderr, fs)
	}); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usageError{err: fmt.Errorf("connect takes no arguments, got %q", fs.Args())}
	}
	if *maxBytes <= 0 {
		return usageError{err: fmt.Errorf("invalid value %d for flag --max-message-bytes: must be positive", *maxBytes)}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(*maxBytes), grpc.MaxCallSendMsgSize(*maxBytes)))
	if err != nil {
		return err
	}
	defer conn.Close()
	return tunnel(ctx, mcpbridgev1.NewBridgeServiceClient(conn), *server, os.Stdin, os.Stdout, *maxBytes)
}

// tunnel relays lines from in into a Connect stream and the stream's
// messages to out until in ends and the stream has ended.
func tunnel(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, server string, in io.Reader, out io.Writer, maxBytes int) error {
	st, err := bc.Connect(ctx)
	if err != nil {
		return err
	}
	sent := make(chan error, 1)
	go func() { // ends at stdin's EOF or a failed Send
		lr := wire.NewReader(in, maxBytes)
		first := true
		for {
			line, err := lr.ReadLine()
			var tooLong *wire.LineTooLongError
			switch {
			case errors.Is(err, io.EOF):
				sent <- st.CloseSend()
				return
			case errors.As(err, &tooLong):
				fmt.Fprintf(os.Stderr, "mcpbridge connect: dropped a line over the %d-byte limit\n", tooLong.Limit)
				continue
			case err != nil:
				sent <- err
				return
			}
			req := &mcpbridgev1.ConnectRequest{MessageJson: string(line)}
			if first {
				req.Server, first = server, false
			}
			if err := st.Send(req); err != nil {
				sent <- nil // the stream failed: Recv says why
				return
			}
		}
	}()
	buf := make([]byte, 0, 64<<10)
	for {
		msg, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return <-sent
		}
		if err != nil {
			return err
		}
		buf = append(append(buf[:0], msg.GetMessageJson()...), '\n')
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
}
