package fanout

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// syncLog is a log handler's output, safe for concurrent use.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// legacyPeer serves a 2025-11-25 connection with the logging capability
// over in-process pipes: it answers initialize, then tells setLevel when
// a logging/setLevel arrives and never answers it, as a child that is
// going away. It returns when its input ends.
func legacyPeer(in io.Reader, out io.WriteCloser, setLevel chan<- string) {
	defer out.Close()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"peer","version":"1"}}}`+"\n")
		case "logging/setLevel":
			setLevel <- string(m.Params)
		default:
			io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`+"\n")
		}
	}
}

// TestSetLevelEndedByTheConnectionIsNoRefusal: a logging/setLevel that
// fails because the connection closes under it (a host that disconnects
// from its private child, a shutdown) is no refusal of the server's: no
// WARN, only a debug line.
func TestSetLevelEndedByTheConnectionIsNoRefusal(t *testing.T) {
	toPeerR, toPeerW := io.Pipe()
	fromPeerR, fromPeerW := io.Pipe()
	setLevel := make(chan string, 1)
	peerDone := make(chan struct{})
	go func() {
		defer close(peerDone)
		legacyPeer(toPeerR, fromPeerW, setLevel)
	}()
	var out syncLog
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := stdio.Connect(ctx, func(context.Context) (*stdio.Client, error) {
		return stdio.Open(toPeerW, fromPeerR, stdio.ClientConfig{Logger: log})
	}, stdio.ConnectConfig{Versions: []string{stdio.Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	l := NewChildLevel(c, 0, log, func() ([]string, bool) { return nil, false })
	if l == nil {
		t.Fatal("no level keeper for a legacy child with the logging capability")
	}
	wanted := make(chan func())
	go func() { wanted <- l.Want(ctx, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO) }()
	select {
	case p := <-setLevel:
		if !strings.Contains(p, `"info"`) {
			t.Errorf("logging/setLevel params %s, want level info", p)
		}
	case <-ctx.Done():
		t.Fatal("no logging/setLevel reached the peer")
	}
	c.Close() // the host leaves while the child has the request
	(<-wanted)()
	<-c.Done()
	toPeerR.Close()
	<-peerDone
	got := out.String()
	if strings.Contains(got, "level=WARN") {
		t.Errorf("a setLevel ended by the connection's close logged a warning:\n%s", got)
	}
	if !strings.Contains(got, "logging/setLevel ended with the connection") {
		t.Errorf("the log does not say the setLevel ended with the connection:\n%s", got)
	}
}

// levels answers the child's logging/setLevel and reports each level set.
func levels(p *peer, refuse *atomic.Bool) chan string {
	ch := make(chan string, 16)
	p.handle("logging/setLevel", func(m msg) string {
		ch <- member(m.Params, "level")
		if refuse != nil && refuse.Load() {
			return errorLine(m.ID, -32602, "no such level")
		}
		return result(m.ID, `{}`)
	})
	return ch
}

// nextLevel is the next level the child was set to, "" after wait.
func nextLevel(t *testing.T, ch chan string) string {
	t.Helper()
	return within(t, ch, "logging/setLevel")
}

// noLevel checks that the child was set to nothing (meanwhile: callers of
// Want and Settle have their setLevel answered before they return).
func noLevel(t *testing.T, ch chan string, what string) {
	t.Helper()
	select {
	case l := <-ch:
		t.Errorf("%s: the child was set to %s, want no logging/setLevel", what, l)
	default:
	}
}

// TestChildLevelNone: a 2026 child, and a legacy child that does not
// declare logging, have no level keeper; its absence takes wants as
// no-ops.
func TestChildLevelNone(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	none := func() ([]string, bool) { return nil, false }
	modern, _, _ := connect(t, childConfig{version: "2026-07-28"})
	if NewChildLevel(modern, 0, log, none) != nil {
		t.Error("a level keeper for a 2026 child")
	}
	mute, p, _ := connect(t, childConfig{caps: `{"tools":{}}`})
	l := NewChildLevel(mute, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO, log, none)
	if l != nil {
		t.Fatal("a level keeper for a child without the logging capability")
	}
	l.Want(context.Background(), mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG)()
	l.Settle()
	p.none(t)
}

// TestChildLevelMostVerbose: without authentication the child is held at
// the floor with no reader, at the most verbose level any reader wants
// while one does (set before Want returns), and back when they leave.
func TestChildLevelMostVerbose(t *testing.T) {
	c, p, r := connect(t, childConfig{})
	set := levels(p, nil)
	l := NewChildLevel(c, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_NOTICE, slog.New(slog.DiscardHandler), r.InFlight)
	if got := nextLevel(t, set); got != `"notice"` {
		t.Errorf("the child was first set to %s, want the floor", got)
	}
	ctx := context.Background()
	releaseDebug := l.Want(ctx, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG)
	select {
	case got := <-set:
		if got != `"debug"` {
			t.Errorf("a debug reader set the child to %s", got)
		}
	default:
		t.Error("Want returned before the child was set to debug")
	}
	releaseInfo := l.Want(ctx, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO)
	noLevel(t, set, "a less verbose reader beside a debug one")
	releaseDebug()
	releaseDebug() // idempotent
	if got := nextLevel(t, set); got != `"info"` {
		t.Errorf("the debug reader left: the child was set to %s, want info", got)
	}
	releaseInfo()
	if got := nextLevel(t, set); got != `"notice"` {
		t.Errorf("every reader left: the child was set to %s, want the floor", got)
	}
	l.Want(ctx, 0)() // no level: nothing
	noLevel(t, set, "a want of no level")
}

// TestChildLevelRefused: a level the child refuses is logged as a
// refusal and asked again by the next want.
func TestChildLevelRefused(t *testing.T) {
	c, p, r := connect(t, childConfig{})
	var refuse atomic.Bool
	refuse.Store(true)
	set := levels(p, &refuse)
	var out syncLog
	l := NewChildLevel(c, 0, slog.New(slog.NewTextHandler(&out, nil)), r.InFlight)
	release := l.Want(context.Background(), mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR)
	if got := nextLevel(t, set); got != `"error"` {
		t.Errorf("set %s", got)
	}
	if !strings.Contains(out.String(), "refused logging/setLevel") {
		t.Errorf("the log does not tell the refusal:\n%s", out.String())
	}
	release()
	refuse.Store(false)
	defer l.Want(context.Background(), mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR)()
	if got := nextLevel(t, set); got != `"error"` {
		t.Errorf("the next want set %s, want error asked again", got)
	}
}

// TestChildLevelByPrincipal: with authentication the child is set, as a
// call goes out, to what the principals in flight want: bob's debug
// reader raises it during bob's calls only; during alice's it goes back
// to emergency (no floor); with no want anywhere and the child at rest a
// call costs no logging/setLevel.
func TestChildLevelByPrincipal(t *testing.T) {
	r := NewRelay("s", nil, wait, true, slog.New(slog.DiscardHandler))
	c, p, _ := connect(t, childConfig{relay: r})
	set := levels(p, nil)
	l := NewChildLevel(c, 0, slog.New(slog.DiscardHandler), r.InFlight)
	r.Settle = l.Settle

	r.Enter(as("carol"))() // nothing wanted, the child at rest
	noLevel(t, set, "a call with no want anywhere")

	release := l.Want(as("bob"), mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG)
	defer l.Want(as("bob"), mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR)() // a second reader of his wants less
	noLevel(t, set, "bob's wants with none of his calls in flight")
	leave := r.Enter(as("bob"))
	if got := nextLevel(t, set); got != `"debug"` {
		t.Errorf("bob's call: the child was set to %s, want debug", got)
	}
	leave()
	leave = r.Enter(as("alice"))
	if got := nextLevel(t, set); got != `"emergency"` {
		t.Errorf("alice's call: the child was set to %s, want emergency", got)
	}
	leave()
	g := r.OpenStream(as("bob"), true, false, nil) // bob's call stream goes out
	if got := nextLevel(t, set); got != `"debug"` {
		t.Errorf("bob's call stream: the child was set to %s, want debug", got)
	}
	g.Close()
	release()
	r.Enter(as("alice"))()
	if got := nextLevel(t, set); got != `"emergency"` {
		t.Errorf("alice's call after bob left: the child was set to %s, want emergency", got)
	}
	r.Enter(as("alice"))() // at rest now
	noLevel(t, set, "a second call at rest")
}

// TestChildLevelFloorHeld: the floor (ServerConfig.LogLevel) is held
// while no reader asks for more: a reader that wants less does not make
// the child log less than the floor, whose logs other readers (a tunnel
// that set no level gets every log) still have; with or without
// authentication.
func TestChildLevelFloorHeld(t *testing.T) {
	for _, secure := range []bool{false, true} {
		r := NewRelay("s", nil, wait, secure, slog.New(slog.DiscardHandler))
		c, p, _ := connect(t, childConfig{relay: r})
		set := levels(p, nil)
		l := NewChildLevel(c, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_NOTICE, slog.New(slog.DiscardHandler), r.InFlight)
		r.Settle = l.Settle
		if got := nextLevel(t, set); got != `"notice"` {
			t.Fatalf("secure %v: the child was first set to %s, want the floor", secure, got)
		}
		bob := as("bob")
		release := l.Want(bob, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR)
		r.Enter(bob)()
		noLevel(t, set, "a reader that wants less than the floor")
		releaseDebug := l.Want(bob, mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG)
		r.Enter(bob)()
		if got := nextLevel(t, set); got != `"debug"` {
			t.Errorf("secure %v: a debug reader set the child to %s, want debug", secure, got)
		}
		releaseDebug()
		r.Enter(bob)()
		if got := nextLevel(t, set); got != `"notice"` {
			t.Errorf("secure %v: the debug reader left, an error one stays: the child was set to %s, want the floor", secure, got)
		}
		release()
	}
}
