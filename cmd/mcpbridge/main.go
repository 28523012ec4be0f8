// Command mcpbridge puts a gRPC front on a stdio MCP server.
//
//	mcpbridge [serve] [flags] [-- command [args...]]   the gRPC bridge (the default)
//	mcpbridge serve [flags] [--] [command [args...]]   the same, the -- optional
//	mcpbridge demo [flags]                              the built-in stdio MCP demo server
//	mcpbridge connect [flags]                           a stdio MCP server that is a remote bridge's Connect tunnel
//	mcpbridge version                                   print "mcpbridge <version> (<go version>)"; also --version
//	mcpbridge help [command]                            the commands, or a command's flags; also -h, --help
//
// serve --config FILE fronts the servers a YAML file describes, each under
// its child policy, and reloads the file on SIGHUP (docs/operations.md,
// "The config file"). With no command after -- and no file, serve fronts
// the built-in demo server, run as this binary's own demo subcommand. Without the serve subcommand the
// server command must follow --, and a first argument that is neither a
// flag nor a subcommand is an error: `mcpbridge help` prints the help
// rather than starting a program called help.
//
// Every mistake on the command line (an unknown command or flag, a bad
// value, a stray argument) is one line on stderr,
//
//	mcpbridge <command>: <what is wrong>
//	Run 'mcpbridge <command> -h' for usage.
//
// and exit status 2. A failure to start (a server command that cannot be
// run, an address that cannot be listened on) or to serve is
// "mcpbridge <command>: <error>" and exit status 1. Exit status 0 follows
// a graceful shutdown, help and version. Help goes to stdout, except that
// of demo and connect, whose stdout is the MCP protocol: theirs goes to
// stderr.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/demo"

	"github.com/mcpbridge/mcpbridge/stdio/reaper"
	"github.com/mcpbridge/mcpbridge/stdio/sandbox"
)

// usageError is a mistake on the command line: exit status 2.
type usageError struct {
	err     error
	printed bool // the subcommand has printed it already
}

func (e usageError) Error() string { return e.err.Error() }

// commands are mcpbridge's subcommands, as the help lists them.
var commands = []struct{ name, summary string }{
	{"serve", "the gRPC bridge in front of a stdio MCP server (the default command)"},
	{"demo", "the built-in stdio MCP demo server"},
	{"connect", "a stdio MCP server that is a remote bridge's Connect tunnel"},
	{"version", "print mcpbridge's version"},
	{"help", "print this help, or a command's: mcpbridge help <command>"},
}

func isCommand(name string) bool {
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}

func main() {
	// First: run as the reaper of a child when started as one, and
	// otherwise let serve run its children under reapers.
	reaper.Main()
	// Then: enter a child's sandbox when started as its entry, and
	// otherwise let serve start children in sandboxes.
	sandbox.Main()
	os.Exit(runCommandLine(os.Args[1:]))
}

// runCommandLine runs the command line args (without the program name) and returns
// the exit status.
func runCommandLine(args []string) int {
	cmd, explicit := "serve", false
	if len(args) > 0 {
		switch a := args[0]; {
		case isCommand(a):
			cmd, args, explicit = a, args[1:], true
		case a == "-h" || a == "-help" || a == "--help":
			cmd, args = "help", args[1:]
		case a == "-version" || a == "--version":
			cmd, args = "version", args[1:]
		case strings.HasPrefix(a, "-") && a != "-": // serve's flags, or --
		default:
			fmt.Fprintf(os.Stderr, "mcpbridge: unknown command %q; run 'mcpbridge help'\n", a)
			return 2
		}
	}
	var err error
	switch cmd {
	case "serve":
		err = runServe(args, !explicit)
	case "demo":
		err = runDemo(args)
	case "connect":
		err = runConnect(args)
	case "version":
		err = runVersion(args)
	case "help":
		err = runHelp(args)
	}
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		if !usage.printed {
			fmt.Fprintf(os.Stderr, "mcpbridge %s: %v\nRun 'mcpbridge %s -h' for usage.\n", cmd, err, cmd)
		}
		return 2
	default:
		fmt.Fprintf(os.Stderr, "mcpbridge %s: %v\n", cmd, err)
		return 1
	}
}

// parseFlags parses args with fs, a subcommand's flag set, the way every
// subcommand does: the flag package prints nothing; -h and --help print
// usage to stdout and return flag.ErrHelp; any other mistake is a
// usageError, which run prints as one line.
func parseFlags(fs *flag.FlagSet, args []string, usage func(w io.Writer)) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(os.Stdout)
		return err
	case err != nil:
		return usageError{err: errors.New(flagMessage(fs, err.Error()))}
	}
	return nil
}

// flagSpelling matches where the flag package names a flag: -name.
var flagSpelling = regexp.MustCompile(`(flag |defined: |argument: |for )-([A-Za-z0-9][\w.-]*)`)

// flagMessage rewrites the flag package's messages in the style of the
// rest: flags spelled --name, and "parse error" replaced by what the flag
// wants.
func flagMessage(fs *flag.FlagSet, msg string) string {
	var name string
	msg = flagSpelling.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagSpelling.FindStringSubmatch(m)
		name = sub[2]
		if sub[1] == "for " {
			return "for flag --" + sub[2]
		}
		return sub[1] + "--" + sub[2]
	})
	msg = strings.Replace(msg, "invalid boolean value", "invalid value", 1)
	// The flag package's own reasons ("parse error", strconv's and
	// slog's) become what the flag wants.
	prefix := "for flag --" + name + ": "
	i := strings.Index(msg, prefix)
	if !strings.HasPrefix(msg, "invalid value") || i < 0 || fs.Lookup(name) == nil {
		return msg
	}
	want := ""
	if g, ok := fs.Lookup(name).Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			want = "want a duration such as 10s, 1m30s or 500ms"
		case int, int64, uint, uint64:
			want = "want a whole number"
		case float64:
			want = "want a number"
		case bool:
			want = "want true or false"
		case *slog.Level, slog.Level:
			want = "want debug, info, warn or error"
		}
	}
	if want != "" {
		msg = msg[:i+len(prefix)] + want
	}
	return msg
}

// printDefaults writes fs's flags, with their defaults, to w.
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// version is what `mcpbridge version` prints: the main module's version
// ("dev" when built from a checkout without one) and the Go version.
func version() string {
	return fmt.Sprintf("mcpbridge %s (%s)", demo.Version(), runtime.Version())
}

// runVersion is `mcpbridge version`.
func runVersion(args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	err := parseFlags(fs, args, func(w io.Writer) {
		fmt.Fprint(w, "usage: mcpbridge version\n\nPrints mcpbridge's version and the Go version it was built with; so do\nmcpbridge --version and mcpbridge serve --version.\n")
	})
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		return err
	case fs.NArg() > 0:
		return usageError{err: fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	fmt.Println(version())
	return nil
}

// printHelp writes the top-level help to w.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `usage: mcpbridge [command] [flags] [-- server command [args...]]

mcpbridge puts a gRPC front (mcpbridge.v1.BridgeService, grpc.health.v1 and
server reflection) on a stdio MCP server.

Commands:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
Without a command, mcpbridge is mcpbridge serve, and the server command must
follow --; with no server command, serve fronts the built-in demo server:

  mcpbridge --listen 127.0.0.1:50051 -- npx -y @modelcontextprotocol/server-everything
  mcpbridge serve --name files -- ./files-server --root /srv

Run 'mcpbridge help <command>' or 'mcpbridge <command> -h' for a command's flags.

Exit status: 0 after a graceful shutdown (and for help and version), 1 when
starting or serving failed, 2 for a mistake on the command line.
`)
}

// runHelp is `mcpbridge help [command]`.
func runHelp(args []string) error {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	err := parseFlags(fs, args, printHelp)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		return err
	case fs.NArg() > 1:
		return usageError{err: fmt.Errorf("unexpected argument %q: help takes one command", fs.Arg(1))}
	}
	switch topic := fs.Arg(0); topic {
	case "", "help":
		printHelp(os.Stdout)
		return nil
	case "serve":
		_, sfs := newServeFlags()
		printServeUsage(os.Stdout, sfs)
		return nil
	case "demo":
		return runDemo([]string{"-h"}) // on stderr: demo's stdout is the protocol
	case "connect":
		return runConnect([]string{"-h"}) // on stderr, likewise
	case "version":
		return runVersion([]string{"-h"})
	default:
		return usageError{err: fmt.Errorf("unknown command %q", topic)}
	}
}
