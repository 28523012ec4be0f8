//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// What the web example needs, run from the module root: its packages
// (package-lock.json), its stubs (buf generate with the local protoc-gen-es,
// into src/gen) and its bundle (esbuild, into dist).
const (
	installWebExample = "npm ci --prefix examples/web && npm --prefix examples/web run generate && npm --prefix examples/web run build"
	installChromium   = "apt-get install chromium"
)

// The web example (examples/web) runs in headless Chromium as its README
// tells a user to run it: the built page served on one origin, the bridge
// on another with --http-cors-origin naming the page's. The page lists the
// servers, calls echo and streams progress over the Connect protocol, then
// sets <body data-state="done">, or "error" with the error shown.
//
// Chromium is driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe), which needs no library: --dump-dom and
// --screenshot with --virtual-time-budget do not wait for a streaming
// response's body, so they catch the page halfway through its
// CallToolStream. Here the test waits, in real time and bounded, for the
// page's own data-state to change.
func TestWebExample(t *testing.T) {
	dist := filepath.Join(testkit.ModuleRoot(t), "examples", "web", "dist")
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		testkit.MissingPeer(t, "chromium (Debian's package)", installChromium)
		return
	}
	for _, f := range []string{"index.html", "main.js"} {
		if _, err := os.Stat(filepath.Join(dist, f)); err != nil {
			testkit.MissingPeer(t, "the web example's build (examples/web/dist/"+f+")", installWebExample)
			return
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()

	page := httptest.NewServer(http.FileServer(http.Dir(dist))) // on 127.0.0.1
	t.Cleanup(page.Close)
	b := startBridge(t, nil, "--http-listen", "127.0.0.1:0", "--http-cors-origin", page.URL,
		"--", mcpbridgeBin, "demo", "-tick", "0")
	// ListServers never waits for a child: load the page once the demo is
	// ready, so that the list shows what it negotiated.
	b.log.WaitFor(ctx, t, `msg="mcpbridge: server ready"`)
	pageURL := page.URL + "/?bridge=" + url.QueryEscape("http://"+httpAddr(t, b))

	br := startChromium(ctx, t, chromium)
	tab := br.newTab(ctx, t, 1000, 800)
	var nav struct{ ErrorText string }
	tab.call(ctx, t, "Page.navigate", map[string]any{"url": pageURL}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigating to %s: %s", pageURL, nav.ErrorText)
	}
	state := tab.waitState(ctx, t, page.URL)

	var dom struct {
		State, Error, Echo, Result, HTML string
		Servers, Progress                []string
	}
	tab.eval(ctx, t, `({
  state: document.body.dataset.state,
  error: document.getElementById("error").textContent,
  servers: Array.from(document.querySelectorAll("#servers li"), (e) => e.textContent),
  echo: document.getElementById("echo").textContent,
  progress: Array.from(document.querySelectorAll("#progress li"), (e) => e.textContent),
  result: document.getElementById("result").textContent,
  html: document.documentElement.outerHTML,
})`, false, &dom)
	var shot struct{ Data []byte } // base64 in JSON
	tab.call(ctx, t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	br.close(ctx, t)

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dom.html"), []byte(dom.HTML), 0o644); err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(dir, "web-example.png")
	if err := os.WriteFile(shotPath, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the page's screenshot: %s (set MCPBRIDGE_WEB_SCREENSHOT to a path to keep a copy)", shotPath)
	if p := os.Getenv("MCPBRIDGE_WEB_SCREENSHOT"); p != "" {
		if err := os.WriteFile(p, shot.Data, 0o644); err != nil {
			t.Errorf("MCPBRIDGE_WEB_SCREENSHOT: %v", err)
		} else {
			t.Logf("copied to %s (MCPBRIDGE_WEB_SCREENSHOT)", p)
		}
	}

	if state != "done" || dom.State != "done" {
		t.Fatalf("the page ended in state %q, want done; its error: %q\nits DOM:\n%s", state, dom.Error, dom.HTML)
	}
	if len(dom.Servers) != 1 || !strings.Contains(dom.Servers[0], "mcpbridge-demo") || !strings.Contains(dom.Servers[0], "READY") {
		t.Errorf("the server list = %q, want one entry: the demo (mcpbridge-demo), READY", dom.Servers)
	}
	if dom.Echo != "hello from the browser" {
		t.Errorf("the echo result = %q, want %q", dom.Echo, "hello from the browser")
	}
	if len(dom.Progress) < 2 || dom.Progress[0] != "progress 1/5: step 1 of 5" || dom.Progress[len(dom.Progress)-1] != "progress 5/5: step 5 of 5" {
		t.Errorf("the progress lines = %q, want at least 2, from progress 1/5 to progress 5/5", dom.Progress)
	}
	if !strings.HasPrefix(dom.Result, "result: done: 5 steps in ") {
		t.Errorf("the stream's result = %q, want result: done: 5 steps in …", dom.Result)
	}
	checkScreenshot(t, shot.Data)
	if t.Failed() {
		t.Logf("the page's DOM:\n%s", dom.HTML)
	}
}

// checkScreenshot fails t unless data is a PNG of at least 500x400 pixels
// that is not all one colour.
func checkScreenshot(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Errorf("the screenshot (%d bytes) is not a PNG: %v", len(data), err)
		return
	}
	bounds := img.Bounds()
	if bounds.Dx() < 500 || bounds.Dy() < 400 {
		t.Errorf("the screenshot is %v, want at least 500x400", bounds.Size())
	}
	first, uniform := img.At(bounds.Min.X, bounds.Min.Y), true
	for y := bounds.Min.Y; y < bounds.Max.Y && uniform; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if !sameColor(img.At(x, y), first) {
				uniform = false
				break
			}
		}
	}
	if uniform {
		t.Errorf("the screenshot (%v) is one colour: the page did not render", bounds.Size())
	}
}

func sameColor(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// browser is a headless Chromium driven over the Chrome DevTools Protocol
// on a pipe: JSON messages, each ended by a NUL byte, written to its fd 3
// and read from its fd 4.
type browser struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer  // guarded by mu
	w      *os.File      // commands, to its fd 3
	r      *os.File      // replies and events, from its fd 4
	done   chan struct{} // closed when read returns

	waitOnce sync.Once
	waitErr  error

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpReply
}

type cdpReply struct {
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
	}
}

// startChromium starts headless Chromium on about:blank, with a profile of
// its own; cleanup ends it if the test did not.
func startChromium(ctx context.Context, t *testing.T, chromium string) *browser {
	t.Helper()
	cmdR, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{w: w, r: r, done: make(chan struct{}), pending: map[int]chan cdpReply{}}
	cmd := exec.CommandContext(ctx, chromium,
		"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir="+t.TempDir(), "--window-size=1000,800", "--hide-scrollbars",
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, cmdW} // fds 3 and 4
	cmd.Stderr = &lockedWriter{mu: &b.mu, w: &b.stderr}
	// Chromium's helper processes share its process group: on
	// cancellation, kill them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitLimit
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	cmdW.Close()
	b.cmd = cmd
	go b.read()
	t.Cleanup(func() {
		// Whatever is left of its process group: all of it unless close
		// ran, its helpers that outlived it otherwise.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		b.wait()
		b.r.Close() // ends read, should a helper process still hold fd 4
		b.w.Close()
		<-b.done
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", b.stderrText())
		}
	})
	return b
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (b *browser) stderrText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

// read hands each reply to its caller, and drops events.
func (b *browser) read() {
	defer close(b.done)
	br := bufio.NewReader(b.r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// send sends a command to the browser, or to a tab's session when
// session is set, and returns its result.
func (b *browser) send(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := b.w.Write(append(raw, 0)); err != nil {
		return nil, fmt.Errorf("%s: writing to chromium: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		return r.Result, nil
	case <-b.done:
		return nil, fmt.Errorf("%s: chromium closed its DevTools pipe", method)
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, context.Cause(ctx))
	}
}

// call is send for a test: any error fails it, and the result is decoded
// into out unless out is nil.
func (b *browser) call(ctx context.Context, t *testing.T, session, method string, params, out any) {
	t.Helper()
	res, err := b.send(ctx, session, method, params)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", method, res, err)
		}
	}
}

// close closes the browser as a user would, and waits for it to exit.
func (b *browser) close(ctx context.Context, t *testing.T) {
	t.Helper()
	// Chromium may exit before it answers.
	if _, err := b.send(ctx, "", "Browser.close", map[string]any{}); err != nil && !strings.Contains(err.Error(), "closed its DevTools pipe") {
		t.Errorf("closing chromium: %v", err)
	}
	if err := b.wait(); err != nil {
		t.Logf("chromium exited: %v", err)
	}
}

// wait waits for the browser to exit; it may be called more than once.
func (b *browser) wait() error {
	b.waitOnce.Do(func() { b.waitErr = b.cmd.Wait() })
	return b.waitErr
}

// tab is one page target, attached to with a flat session.
type tab struct {
	b       *browser
	session string
}

// newTab opens a tab of width x height CSS pixels.
func (b *browser) newTab(ctx context.Context, t *testing.T, width, height int) *tab {
	t.Helper()
	var target struct{ TargetID string }
	b.call(ctx, t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call(ctx, t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	tb := &tab{b: b, session: attached.SessionID}
	tb.call(ctx, t, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
	}, nil)
	return tb
}

func (tb *tab) call(ctx context.Context, t *testing.T, method string, params, out any) {
	t.Helper()
	tb.b.call(ctx, t, tb.session, method, params, out)
}

// evalResult is Runtime.evaluate's answer.
type evalResult struct {
	Result struct {
		Value json.RawMessage
	}
	ExceptionDetails *struct {
		Text      string
		Exception struct{ Description string }
	}
}

// evalErr evaluates expr in the tab's page, awaiting it if it is a
// promise, and decodes its value (returned by value) into out.
func (tb *tab) evalErr(ctx context.Context, expr string, await bool, out any) error {
	raw, err := tb.b.send(ctx, tb.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "awaitPromise": await, "returnByValue": true,
	})
	if err != nil {
		return err
	}
	var r evalResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if d := r.ExceptionDetails; d != nil {
		return fmt.Errorf("evaluating in the page: %s %s", d.Text, d.Exception.Description)
	}
	return json.Unmarshal(r.Result.Value, out)
}

func (tb *tab) eval(ctx context.Context, t *testing.T, expr string, await bool, out any) {
	t.Helper()
	if err := tb.evalErr(ctx, expr, await, out); err != nil {
		t.Fatal(err)
	}
}

// pageDone resolves to the page's data-state once it is done or error, or
// at once to "" while the tab still shows a page of another origin than %s
// (about:blank).
const pageDone = `new Promise((resolve) => {
  if (location.origin !== %s) return resolve("");
  const ready = () => {
    const check = () => {
      const s = document.body.dataset.state;
      if (s === "done" || s === "error") resolve(s);
      return s === "done" || s === "error";
    };
    if (!check()) new MutationObserver((_, o) => check() && o.disconnect())
      .observe(document.body, { attributes: true, attributeFilter: ["data-state"] });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})`

// waitState waits until the page of origin has set its data-state to done
// or error, and returns it; it fails t after half of ctx's time (the other
// half is chromium's, to show the stuck page). Until the navigation
// commits, the tab shows about:blank, and an evaluation sent across the
// switch to the page's renderer may go unanswered: each attempt has
// attemptLimit, and it asks again until the page answers.
func (tb *tab) waitState(ctx context.Context, t *testing.T, origin string) string {
	t.Helper()
	const attemptLimit = 10 * time.Second // not a delay: the page answers once done, in about a second
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(testTimeout)
	}
	wctx, cancel := context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/2))
	defer cancel()
	o, err := json.Marshal(origin)
	if err != nil {
		t.Fatal(err)
	}
	expr := fmt.Sprintf(pageDone, o)
	var lastErr error
	for {
		actx, cancel := context.WithTimeout(wctx, attemptLimit)
		var state string
		err := tb.evalErr(actx, expr, true, &state)
		cancel()
		switch {
		case err == nil && state != "":
			return state
		case err != nil:
			lastErr = err
		}
		select { // about:blank, or a navigation in progress: ask again shortly
		case <-wctx.Done():
			// The page is stuck: show what it shows.
			var html string
			if err := tb.evalErr(ctx, "document.documentElement.outerHTML", false, &html); err != nil {
				html = err.Error()
			}
			t.Fatalf("the page never set data-state to done or error (last error: %v); its DOM:\n%s", lastErr, html)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
