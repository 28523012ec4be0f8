package stdio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// BenchmarkStart measures what a reaper costs a child (package
// stdio/reaper): each op starts the echo fixture, calls it once, closes it
// and waits until it is reaped, without a reaper and with one. It reports
// the time from Start to the first response, and at that point the
// resident memory of the child and of the reaper, and the part of the
// reaper's that it shares with no other process (the binary's pages are
// shared with the host's). The
// reaper is this test binary; docs/stdio.md, "Reapers" gives the
// figures. Reproduce them with
//
//	go test -run '^$' -bench Start -benchtime 200x -count 5 ./stdio/
func BenchmarkStart(b *testing.B) {
	for _, reaper := range []bool{false, true} {
		b.Run(fmt.Sprintf("reaper=%v", reaper), func(b *testing.B) {
			ctx := context.Background()
			var first []time.Duration
			var reaperKiB, reaperPrivKiB, childKiB int64
			for b.Loop() {
				cmd := testkit.FixtureCommand(b, "echo")
				start := time.Now()
				c, err := Start(ctx, cmd, ClientConfig{Reaper: reaper})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Call(ctx, benchMethod, benchParams, nil); err != nil {
					b.Fatal(err)
				}
				first = append(first, time.Since(start))
				childKiB += memKiB(b, c.Pid(), "Rss")
				if reaper {
					reaperKiB += memKiB(b, cmd.Process.Pid, "Rss")
					reaperPrivKiB += memKiB(b, cmd.Process.Pid, "Private_Clean", "Private_Dirty")
				}
				c.Close()
				<-c.Done()
			}
			reportLatency(b, first)
			b.ReportMetric(float64(childKiB)/float64(b.N), "child-KiB")
			if reaper {
				b.ReportMetric(float64(reaperKiB)/float64(b.N), "reaper-KiB")
				b.ReportMetric(float64(reaperPrivKiB)/float64(b.N), "reaper-private-KiB")
			}
		})
	}
}

// memKiB returns the sum of the named fields of process pid's
// /proc/<pid>/smaps_rollup, in KiB: "Rss" is its resident memory, and
// "Private_Clean" and "Private_Dirty" the part no other process shares.
func memKiB(b *testing.B, pid int, fields ...string) int64 {
	rollup, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		b.Fatal(err)
	}
	var sum int64
	for _, f := range fields {
		_, rest, _ := bytes.Cut(rollup, []byte("\n"+f+":"))
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		kib, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
		if err != nil {
			b.Fatalf("%s of %d: %q", f, pid, line)
		}
		sum += kib
	}
	return sum
}
