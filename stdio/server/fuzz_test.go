package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// fuzzRuntime answers every request at once: panic and fail fail, a listen
// streams its params as one event, anything else echoes its params after a
// progress report and a request-scoped notification.
func fuzzRuntime() *fakeRuntime {
	rt := newFakeRuntime()
	rt.handle = func(ctx context.Context, req *seam.Request) (json.RawMessage, error) {
		switch req.Method {
		case "panic":
			panic("fuzz")
		case "fail":
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Fail")
		}
		_ = req.Progress.Report(ctx, 1, nil, req.Method)
		_ = req.Notify(ctx, "notifications/message", req.Params)
		return req.Params, nil // not always an object: Serve must refuse those
	}
	rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) {
		return &oneEventSource{params: req.Params}, nil
	}
	return rt
}

type oneEventSource struct {
	params json.RawMessage
	sent   bool
}

func (s *oneEventSource) Accepted() json.RawMessage { return s.params }
func (s *oneEventSource) Close(error)               {}
func (s *oneEventSource) Next(context.Context) (string, json.RawMessage, error) {
	if s.sent {
		return "", nil, io.EOF
	}
	s.sent = true
	return "notifications/resources/updated", s.params, nil
}

// FuzzServe feeds arbitrary input to Serve: it must never panic or fail,
// and every output line must be one valid JSON-RPC response or
// notification, each written by one Write.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		reqLine(1, "echo", `{"a":[1,2,{"b":null}]}`) + "\n",
		reqLine("x", "echo", `{"_meta":{"progressToken":"t"}}`) + "\r\n" + reqLine("x", "echo", `{}`),
		reqLine(2, "subscriptions/listen", `{"notifications":{"toolsListChanged":true},"_meta":{"k":1}}`) + "\n",
		reqLine(3, "panic", "") + "\n" + reqLine(4, "fail", "") + "\n" + reqLine(5, "echo", `[1]`) + "\n",
		`{not-json}` + "\n" + `[]` + "\n" + `{"jsonrpc":"1.0","id":3,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","id":1e3,"method":"x"}`,
		cancelLine(1, "r") + "\n" + notifLine("notifications/initialized", `{}`) + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`,
		"\xEF\xBB\xBF" + reqLine(6, "echo", "{\"s\":\"caf\xff \u2028\"}") + "\n\n \t\n",
		`{"jsonrpc":"2.0","id":7,"method":"echo","params":{"n":` + strings.Repeat("9", 70) + `}}` + "\n",
		strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n" + strings.Repeat("x", 5000) + "\n",
		reqLine(8, "echo", `{"_meta":{"progressToken":1.5}}`) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		cw := &frameWriter{w: &out}
		err := Serve(context.Background(), fuzzRuntime(), bytes.NewReader(in), cw, Config{MaxLineBytes: 4096, Logger: quietLogger})
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
		cw.check(t)
		if out.Len() == 0 {
			return
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			parseOut(t, line)
		}
	})
}
