package aggregate

import (
	"sync/atomic"
	"time"
)

// staleAfter is how old a view must be before a request for a name it does
// not know reads the members' lists again: a caller asking for names that
// do not exist does not make the aggregate list its members at every
// request.
const staleAfter = time.Second

// Server is one aggregated server of the bridge: its name, its
// configuration, and the last view of each kind its members' lists gave,
// which routes the requests whose name alone does not say the member.
type Server struct {
	name  string
	cfg   Config
	views [len(kinds)]atomic.Pointer[kept]
}

type kept struct {
	v  *View
	at time.Time
}

// NewServer returns the aggregated server of cfg, which Normalize
// accepted.
func NewServer(cfg Config) *Server { return &Server{name: cfg.Name, cfg: cfg} }

// Name is the aggregate's name.
func (s *Server) Name() string { return s.name }

// Config is the aggregate's configuration; not to be modified.
func (s *Server) Config() *Config { return &s.cfg }

// View is the last view of kind, or nil.
func (s *Server) View(kind Kind) *View {
	if k := s.views[kind].Load(); k != nil {
		return k.v
	}
	return nil
}

// Keep makes v the view of its kind.
func (s *Server) Keep(v *View) { s.views[v.Kind].Store(&kept{v: v, at: time.Now()}) }

// Stale reports whether the view of kind is missing or older than
// staleAfter.
func (s *Server) Stale(kind Kind) bool {
	k := s.views[kind].Load()
	return k == nil || time.Since(k.at) > staleAfter
}
