// Command hostile is a stdio MCP server that attacks what is around it,
// for the sandbox's tests (cmd/mcpbridge, sandbox_test.go; docs/sandbox.md).
// Its tool attack tries one thing and reports, as JSON text, whether the
// system refused it: reading or writing a file, connecting to an address,
// starting processes, allocating memory, tracing its parent, signalling a
// process. A test runs it inside a sandbox and checks that every attack
// was refused, and outside one that the same attacks succeed (so that a
// refusal is the sandbox's).
//
//	go build -o hostile ./testdata/hostile
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

type attackArgs struct {
	// What: read, write, connect, fork, alloc, ptrace, signal.
	What string `json:"what" jsonschema:"read | write | connect | fork | alloc | ptrace | signal"`
	// Target: a path (read, write), an address (connect), a count
	// (fork), a number of bytes (alloc), a pid (ptrace, signal).
	Target string `json:"target" jsonschema:"what the attack aims at"`
}

// outcome is the tool's answer.
type outcome struct {
	Attack  string `json:"attack"`
	Refused bool   `json:"refused"`
	Error   string `json:"error,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

func main() {
	switch {
	case len(os.Args) > 1 && os.Args[1] == "-sleep": // a process of the fork attack
		time.Sleep(time.Minute)
		return
	case len(os.Args) > 2 && os.Args[1] == "-alloc": // the alloc attack's process
		n, _ := strconv.ParseInt(os.Args[2], 10, 64)
		b := make([]byte, n)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Println("allocated", len(b))
		return
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "hostile", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "attack", Description: "Tries one attack and says whether it was refused"},
		func(ctx context.Context, req *mcp.CallToolRequest, a attackArgs) (string, error) {
			o := attack(a)
			o.Attack = a.What + " " + a.Target
			raw, _ := json.Marshal(o)
			return string(raw), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "exhaust", Description: "Allocates in the server's own process until it is stopped"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			var hoard [][]byte
			for {
				b := make([]byte, 64<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				hoard = append(hoard, b)
			}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "tmpdir", Description: "Says where its TMPDIR is"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			return os.Getenv("TMPDIR"), nil
		})
	if err := srv.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func attack(a attackArgs) outcome {
	refused := func(err error) outcome {
		if err != nil {
			return outcome{Refused: true, Error: err.Error()}
		}
		return outcome{}
	}
	switch a.What {
	case "read":
		b, err := os.ReadFile(a.Target)
		o := refused(err)
		if err == nil {
			o.Detail = fmt.Sprintf("read %d bytes", len(b))
		}
		return o
	case "write":
		return refused(os.WriteFile(a.Target, []byte("written by hostile\n"), 0o600))
	case "connect":
		c, err := net.DialTimeout("tcp", a.Target, 2*time.Second)
		if err == nil {
			c.Close()
		}
		return refused(err)
	case "fork":
		n, _ := strconv.Atoi(a.Target)
		var started []*exec.Cmd
		var err error
		for len(started) < n {
			cmd := exec.Command("/proc/self/exe", "-sleep")
			if err = cmd.Start(); err != nil {
				break
			}
			started = append(started, cmd)
		}
		for _, cmd := range started {
			cmd.Process.Kill()
			cmd.Wait()
		}
		o := refused(err)
		o.Detail = fmt.Sprintf("started %d of %d", len(started), n)
		return o
	case "alloc":
		out, err := exec.Command("/proc/self/exe", "-alloc", a.Target).CombinedOutput()
		o := refused(err)
		o.Detail = lastLine(string(out))
		return o
	case "ptrace":
		pid, _ := strconv.Atoi(a.Target)
		if pid == 0 {
			pid = os.Getppid()
		}
		err := syscall.PtraceAttach(pid)
		if err == nil {
			syscall.PtraceDetach(pid)
		}
		return refused(err)
	case "signal":
		pid, _ := strconv.Atoi(a.Target)
		return refused(syscall.Kill(pid, syscall.SIGCONT)) // harmless, but a signal all the same
	}
	return outcome{Error: "unknown attack " + a.What}
}

func lastLine(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
