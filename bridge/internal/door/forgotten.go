package door

import "sync"

// Forgotten is the set of servers a reload removed, for the metrics that
// carry a server label. Forget drops a server's series under the write
// lock and keeps them dropped: a recording holds the read lock between
// Begin and End and writes nothing for a forgotten server, so that a call
// still draining on a removed server cannot bring its series back.
// Remember undoes Forget for a server added again. The zero value is
// ready.
type Forgotten struct {
	mu   sync.RWMutex
	gone map[string]bool
}

// Forget marks server forgotten and runs drop, which deletes its series.
func (f *Forgotten) Forget(server string, drop func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone == nil {
		f.gone = map[string]bool{}
	}
	f.gone[server] = true
	drop()
}

// Remember undoes Forget.
func (f *Forgotten) Remember(server string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.gone, server)
}

// Begin starts a recording for server and reports whether it may write
// its series; End ends it, whatever Begin reported.
func (f *Forgotten) Begin(server string) bool {
	f.mu.RLock()
	return !f.gone[server]
}

// End ends the recording Begin started.
func (f *Forgotten) End() { f.mu.RUnlock() }
