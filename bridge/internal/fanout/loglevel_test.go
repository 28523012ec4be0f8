package fanout

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
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
