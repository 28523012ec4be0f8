package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// rooms are the top-level directories that hold the module's code, in the
// order they stack (docs/contributing.md, "Layout and names"): a package
// may import its own room and the rooms below it, never one above. proto/
// is the generated API, which the rooms above it use and which uses none
// of them; deploy/validate checks the chart and sits with cmd/.
var rooms = map[string]int{"internal": 0, "proto": 0, "stdio": 1, "bridge": 2, "cmd": 3, "deploy": 3}

// TestImportsRunDown: no package imports one of a room above its own
// (the non-test imports of every package of the module, as go list reads
// them), test support included; and no package's own code imports test
// support (internal/testkit and below, and a package whose name ends in
// "test", as httptest's does).
func TestImportsRunDown(t *testing.T) {
	const module = "github.com/mcpbridge/mcpbridge/"
	roomOf := func(path string) (string, bool) {
		rel, ok := strings.CutPrefix(path, module)
		if !ok {
			return "", false
		}
		room, _, _ := strings.Cut(rel, "/")
		return rel, ok && room != ""
	}
	packages := 0
	for _, p := range goListImports(t, "./...") {
		src, ok := roomOf(p.ImportPath)
		if !ok {
			continue
		}
		packages++
		srcRoom, _, _ := strings.Cut(src, "/")
		level, known := rooms[srcRoom]
		if !known {
			t.Errorf("%s is in %s/, which is not a room of the module's code", src, srcRoom)
			continue
		}
		testSupport := isTestSupport(src)
		for _, imp := range p.Imports {
			dst, ok := roomOf(imp)
			if !ok {
				continue
			}
			dstRoom, _, _ := strings.Cut(dst, "/")
			switch {
			case isTestSupport(dst) && !testSupport:
				t.Errorf("%s imports the test support %s", src, dst)
			case rooms[dstRoom] > level:
				t.Errorf("%s (%s/) imports %s, a room above it (%s/)", src, srcRoom, dst, dstRoom)
			}
		}
	}
	if packages < 20 {
		t.Fatalf("go list found %d packages of the module; the check saw too few to mean anything", packages)
	}
}

// isTestSupport reports whether the module's package at rel is test
// support.
func isTestSupport(rel string) bool {
	return strings.HasPrefix(rel, "internal/testkit") || strings.HasSuffix(rel, "test")
}

// TestDoorsStandApart: inside bridge/, the doors are adapters over the
// core and nothing else: the gRPC API's handlers (internal/grpcdoor), the
// HTTP door (internal/httpdoor) and the in-process calls
// (internal/inproc) import none of one another, nor the session tunnel
// (a session is the core's, opened through it), and inproc, which runs any
// gRPC service, imports nothing of the module (docs/architecture.md,
// "Inside bridge").
func TestDoorsStandApart(t *testing.T) {
	const module = "github.com/mcpbridge/mcpbridge/"
	doors := map[string]bool{"bridge/internal/grpcdoor": true, "bridge/internal/httpdoor": true, "bridge/internal/inproc": true}
	seen := 0
	for _, p := range goListImports(t, "./bridge/...") {
		src := strings.TrimPrefix(p.ImportPath, module)
		if !doors[src] {
			continue
		}
		seen++
		for _, imp := range p.Imports {
			dst, ours := strings.CutPrefix(imp, module)
			switch {
			case !ours:
			case src == "bridge/internal/inproc":
				t.Errorf("inproc imports %s: it runs any gRPC service and imports nothing of the module", dst)
			case doors[dst], dst == "bridge/internal/tunnel":
				t.Errorf("%s imports %s: a door reaches sessions and the other doors only through the core", src, dst)
			}
		}
	}
	if seen != len(doors) {
		t.Fatalf("go list found %d of the %d doors", seen, len(doors))
	}
}

// goListImports returns the non-test imports of the module's packages
// that pattern matches, as go list reads them.
func goListImports(t *testing.T, pattern string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", pattern)
	cmd.Dir = testkit.ModuleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
}

// listedPackage is a package as go list -json gives it.
type listedPackage struct {
	ImportPath string
	Imports    []string
}
