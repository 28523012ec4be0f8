package testkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ModuleRoot returns the absolute path of the module root: the nearest
// directory at or above the working directory that holds a go.mod file.
// go test runs a package's tests in the package's directory, so this is the
// root of the module under test. It fails the test if there is no such
// directory.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("finding the module root: %v", err)
	}
	return root
}

// moduleRoot walks up from the working directory to the first directory
// that holds a go.mod file.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		_, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or any parent directory", wd)
		}
		dir = parent
	}
}
