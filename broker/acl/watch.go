package acl

import (
	"context"
	"os"
	"time"

	"go.uber.org/zap"
)

// fileStamp is what the watcher compares (Java compares lastModified).
type fileStamp struct {
	mod  time.Time
	size int64
}

func (p *Plain) scanStamps() map[string]fileStamp {
	out := map[string]fileStamp{}
	for _, f := range p.aclFiles() {
		if st, err := os.Stat(f); err == nil {
			out[f] = fileStamp{st.ModTime(), st.Size()}
		}
	}
	return out
}

// Start spawns the file watcher (AclFileWatchService): every
// WatchInterval it lists the files and reloads them all when one was
// added, removed or modified.
func (p *Plain) Start() {
	p.startOnce.Do(func() { go p.watch() })
}

// Shutdown stops the watcher; idempotent.
func (p *Plain) Shutdown(ctx context.Context) error {
	started := true
	p.startOnce.Do(func() { started = false; close(p.done) })
	p.stopOnce.Do(func() { close(p.stopCh) })
	if !started {
		return nil
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Plain) watch() {
	defer close(p.done)
	t := time.NewTicker(p.cfg.WatchInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stopCh:
			return
		case <-t.C:
			p.checkFiles()
		}
	}
}

// checkFiles reloads when the file set or a file's stamp changed and has
// then stayed the same for one more check: an editor or a script that
// truncates the file and writes it anew is seen half-way now and then (an
// empty file reads as "no data", which Java would load as zero accounts),
// so a change is applied only once it has settled. A file that cannot be
// enforced keeps the previous configuration in force.
func (p *Plain) checkFiles() {
	p.adminMu.Lock()
	defer p.adminMu.Unlock()
	now := p.scanStamps()
	if stampsEqual(now, p.stamps) {
		p.pending = nil
		return
	}
	if p.pending == nil || !stampsEqual(now, p.pending) {
		p.pending = now
		return
	}
	p.stamps, p.pending = now, nil
	p.reloadLocked()
}

// reloadLocked loads every file afresh. Caller holds adminMu.
func (p *Plain) reloadLocked() {
	s, err := p.load(p.snap.Load().version)
	if err != nil {
		p.lg.Error("acl files changed but cannot be loaded, previous configuration kept", zap.Error(err))
		return
	}
	p.snap.Store(s)
	p.lg.Info("acl files reloaded", zap.Int("accounts", len(s.accounts)), zap.Int("files", len(s.files)))
}

func stampsEqual(a, b map[string]fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !w.mod.Equal(v.mod) || w.size != v.size {
			return false
		}
	}
	return true
}
