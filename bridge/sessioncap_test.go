package bridge

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
)

// TestSessionCapPerPrincipal: with authentication on, a principal that
// has MaxPerPrincipal sessions open is refused another with
// RESOURCE_EXHAUSTED, RetryInfo and a message that names the per-principal
// limit, while another principal still gets a session and the first
// principal's open sessions go on.
func TestSessionCapPerPrincipal(t *testing.T) {
	t.Parallel()
	sc := policyServer(t, "s", PolicySession)
	sc.Session.Max = 4
	sc.Session.MaxPerPrincipal = 2
	bc, _ := startAuthBridgeWith(t, nil, sc)
	ctx := testCtx(t)
	alice, bob := as(ctx, aliceKey), as(ctx, bobKey)
	for _, s := range []string{"alice-1", "alice-2"} {
		if _, err := toolPid(withSession(alice, s), bc, "s", "pid", ""); err != nil {
			t.Fatalf("alice's session %s: %v", s, err)
		}
	}
	_, err := toolPid(withSession(alice, "alice-3"), bc, "s", "pid", "")
	st, _, _, retry := splitStatus(err)
	if st.Code() != codes.ResourceExhausted || retry == nil || !strings.Contains(st.Message(), "max_per_principal 2") {
		t.Errorf("alice's third session = %v, want RESOURCE_EXHAUSTED with RetryInfo naming max_per_principal 2", err)
	}
	if _, err := toolPid(withSession(bob, "bob-1"), bc, "s", "pid", ""); err != nil {
		t.Errorf("bob's first session while alice is at her cap: %v", err)
	}
	if _, err := toolPid(withSession(alice, "alice-1"), bc, "s", "pid", ""); err != nil {
		t.Errorf("alice's open session after the refusal: %v", err)
	}
}

// TestSessionCapDefault: MaxPerPrincipal defaults to Max/4 rounded up, at
// least 1; negative or above Max is refused.
func TestSessionCapDefault(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ max, perPrincipal, want int }{
		{0, 0, 16}, // Max defaults to 64
		{10, 0, 3},
		{2, 0, 1},
		{1, 0, 1},
		{8, 8, 8},
	} {
		cfg := Config{Servers: []ServerConfig{{Name: "s", Command: "true", Policy: PolicySession,
			Session: SessionConfig{Max: c.max, MaxPerPrincipal: c.perPrincipal}}}}
		if err := cfg.normalize(); err != nil {
			t.Errorf("max %d, max_per_principal %d: %v", c.max, c.perPrincipal, err)
			continue
		}
		if got := cfg.Servers[0].Session.MaxPerPrincipal; got != c.want {
			t.Errorf("max %d, max_per_principal %d: normalized to %d, want %d", c.max, c.perPrincipal, got, c.want)
		}
	}
	for _, per := range []int{-1, 5} {
		cfg := Config{Servers: []ServerConfig{{Name: "s", Command: "true", Policy: PolicySession, Session: SessionConfig{Max: 4, MaxPerPrincipal: per}}}}
		if err := cfg.Validate(); err == nil {
			t.Errorf("max 4, max_per_principal %d: valid, want an error", per)
		}
	}
}
