package protocol

import (
	"encoding/json"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCovers(t *testing.T) {
	for _, tt := range []struct {
		sub, uri string
		want     bool
	}{
		{"file:///a", "file:///a", true},
		{"file:///a", "file:///a/b", true},
		{"file:///a/", "file:///a/b", true},
		{"file:///a", "file:///ab", false},
		{"file:///a/b", "file:///a", false},
		{"demo://counter", "demo://counter2", false},
	} {
		if got := Covers(tt.sub, tt.uri); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.sub, tt.uri, got, tt.want)
		}
	}
}

func TestLogRank(t *testing.T) {
	if LogRank("debug") != 1 || LogRank("emergency") != 8 || LogRank("warning") <= LogRank("info") {
		t.Errorf("LogRank out of order: debug %d, info %d, warning %d, emergency %d",
			LogRank("debug"), LogRank("info"), LogRank("warning"), LogRank("emergency"))
	}
	for _, bad := range []string{"", "Debug", "warn", "fatal"} {
		if r := LogRank(bad); r != 0 {
			t.Errorf("LogRank(%q) = %d, want 0", bad, r)
		}
	}
}

func TestCapability(t *testing.T) {
	caps := json.RawMessage(`{"resources":{"subscribe":true,"listChanged":false},"tools":{"listChanged":"true"}}`)
	for _, tt := range []struct {
		kind, flag string
		want       bool
	}{
		{"resources", "subscribe", true},
		{"resources", "listChanged", false},
		{"tools", "listChanged", false}, // a string is not true
		{"prompts", "listChanged", false},
	} {
		if got := Capability(caps, tt.kind, tt.flag); got != tt.want {
			t.Errorf("Capability(%s.%s) = %v, want %v", tt.kind, tt.flag, got, tt.want)
		}
	}
}

func TestEras(t *testing.T) {
	for _, v := range Versions {
		if !Supported(v) {
			t.Errorf("Supported(%s) = false", v)
		}
	}
	if Supported("2025-03-26") || !Modern(Version20260728) || Modern(Version20251125) {
		t.Error("Supported or Modern misclassifies a version")
	}
}
