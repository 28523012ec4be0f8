//go:build !linux

package main

// notDumpable does nothing here: PR_SET_DUMPABLE is Linux's.
func notDumpable() error { return nil }
