package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
)

// ReloadDrain bounds how long a removed or replaced server's children may
// finish the calls and streams they were serving before they are stopped.
const ReloadDrain = 30 * time.Second

// Reload applies a new configuration without a restart. Its
// authentication and rules apply to every call from now on (children
// started before keep routing their server requests as they did: by
// principal if authentication was on when they started). Servers that are
// new start, servers that are gone are drained and stopped, servers whose
// configuration changed are replaced (new calls go to the new children at
// once; the old ones finish what they serve, at most ReloadDrain, and
// stop), and calls to unchanged servers go on untouched. A configuration
// that fails validation is refused and the old one stays. The service-wide
// MaxMessageBytes is part of the gRPC server and cannot change here.
func (s *Service) Reload(cfg Config) error {
	if err := cfg.normalize(); err != nil {
		return err
	}
	if cfg.MaxMessageBytes != s.cfg.MaxMessageBytes {
		return errors.New("bridge: max_message_bytes cannot change without a restart")
	}
	s.reload.Lock()
	defer s.reload.Unlock()
	if s.draining.Err() != nil {
		return errors.New("bridge: shutting down")
	}
	old := s.serverSet()
	next := make(map[string]*pool.Server, len(cfg.Servers))
	var added, changed, kept []string
	var retire []*pool.Server
	s.healthMu.Lock()
	for i := range cfg.Servers {
		sc := &cfg.Servers[i]
		if srv, ok := old[sc.Name]; ok && reflect.DeepEqual(*srv.Config(), *sc) {
			next[sc.Name] = srv
			kept = append(kept, sc.Name)
			continue
		}
		if srv, ok := old[sc.Name]; ok {
			retire = append(retire, srv)
			changed = append(changed, sc.Name)
		} else {
			added = append(added, sc.Name)
		}
		s.ready[sc.Name] = false
		s.setStatus(HealthService+"/"+sc.Name, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	var removed []string
	for name, srv := range old {
		if _, ok := next[name]; ok {
			continue
		}
		if !containsName(cfg.Servers, name) {
			removed = append(removed, name)
			retire = append(retire, srv)
			delete(s.ready, name)
			s.setStatus(HealthService+"/"+name, healthpb.HealthCheckResponse_SERVICE_UNKNOWN)
		}
	}
	s.overallHealth()
	s.healthMu.Unlock()
	// New servers are made after the health entries exist, so that their
	// first report lands.
	for i := range cfg.Servers {
		sc := &cfg.Servers[i]
		if next[sc.Name] == nil {
			s.door.Obs.Remember(sc.Name) // removed by an earlier reload, perhaps: its series record again
			next[sc.Name] = s.newServer(sc)
		}
	}
	s.cfg.Servers = cfg.Servers
	settings := s.settingsChanged(cfg)
	s.door.SetAccess(cfg.Auth, cfg.Rules) // new calls see the new rules at once, open ones check their credentials
	if cfg.Limits != s.cfg.Limits {
		s.cfg.Limits = cfg.Limits
		s.door.SetLimits(cfg.Limits) // every caller's bucket starts afresh
	}
	s.servers.Store(&next)
	s.setAggregates(cfg.Aggregates)
	for _, srv := range retire {
		s.retiring.Go(func() { srv.Retire(s.draining, ReloadDrain) }) // Close waits for it
	}
	for _, name := range removed {
		s.door.Obs.Forget(name) // its label values and series; a server added again starts afresh
		s.metrics.forget(name)
	}
	s.cfg.Logger.Info("mcpbridge: configuration reloaded", "added", added, "changed", changed, "removed", removed, "unchanged", kept,
		"settings_changed", settings, "rules", len(cfg.Rules), "limits", limitsText(cfg.Limits))
	return nil
}

// settingsChanged names the service-wide settings that cfg changes from
// those in force: auth (another authenticator: a program that reloads an
// unchanged auth section keeps the one it made), rules and limits.
func (s *Service) settingsChanged(cfg Config) []string {
	out := []string{}
	acc := s.door.Access()
	if acc.Auth != cfg.Auth {
		out = append(out, "auth")
	}
	if (len(acc.Rules) != 0 || len(cfg.Rules) != 0) && !reflect.DeepEqual(acc.Rules, cfg.Rules) {
		out = append(out, "rules")
	}
	if cfg.Limits != s.cfg.Limits {
		out = append(out, "limits")
	}
	return out
}

// limitsText is the limits for the log: "none", or each one set.
func limitsText(l Limits) string {
	var parts []string
	if l.Rate > 0 {
		parts = append(parts, fmt.Sprintf("rate=%g/s burst=%d", l.Rate, l.Burst))
	}
	if l.Concurrent > 0 {
		parts = append(parts, fmt.Sprintf("concurrent=%d", l.Concurrent))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

func containsName(servers []ServerConfig, name string) bool {
	for _, sc := range servers {
		if sc.Name == name {
			return true
		}
	}
	return false
}

// Audit returns Config.Audit: a reload keeps the audit sink.
func (s *Service) Audit() *slog.Logger { return s.cfg.Audit }
