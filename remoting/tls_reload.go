package remoting

import (
	"crypto/sha256"
	"os"
	"time"

	"go.uber.org/zap"
)

// certWatchInterval is how often the certificate files are checked, as
// Java's FileWatchService (500 ms).
const certWatchInterval = 500 * time.Millisecond

// certWatch remembers the content hashes of the server's certificate, key
// and trust files, like the FileWatchService that NamesrvController and
// BrokerController register when TLS is not disabled.
type certWatch struct {
	paths                   []string // cert, key, trust: those that existed at start
	hashes                  [][32]byte
	certChanged, keyChanged bool // Java reloads once both changed
}

// newCertWatch returns nil when there is nothing to watch (TLS disabled,
// test mode, or no file configured that exists).
func (s *Server) newCertWatch() *certWatch {
	tc := s.cfg.TLS
	if s.tlsMode == TLSDisabled || tc.TestModeEnable {
		return nil
	}
	w := &certWatch{}
	for _, p := range []string{tc.ServerCertPath, tc.ServerKeyPath, tc.ServerTrustCertPath} {
		if h, err := hashFile(p); err == nil && p != "" {
			w.paths = append(w.paths, p)
			w.hashes = append(w.hashes, h)
		}
	}
	if len(w.paths) == 0 {
		return nil
	}
	return w
}

func hashFile(path string) ([32]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}

// watchCerts polls the files until Shutdown. A changed trust file reloads
// the TLS configuration at once; a changed certificate reloads once the
// key has changed as well (and the reverse), so that a rotation writing
// the two files one after the other never pairs a new certificate with
// the old key. New connections get the new configuration; open ones keep
// theirs. A configuration that fails to load is logged and the old one
// kept.
func (s *Server) watchCerts(w *certWatch) {
	t := time.NewTicker(certWatchInterval)
	defer t.Stop()
	for {
		select {
		case <-s.acceptStop:
			return
		case <-t.C:
		}
		if w.poll(s.cfg.TLS) {
			s.reloadTLS()
		}
	}
}

// poll reports whether the configuration should be reloaded now.
func (w *certWatch) poll(tc *TLSConfig) bool {
	reload := false
	for i, p := range w.paths {
		h, err := hashFile(p)
		if err != nil || h == w.hashes[i] {
			continue
		}
		w.hashes[i] = h
		if p == tc.ServerTrustCertPath {
			reload = true
		}
		if p == tc.ServerCertPath {
			w.certChanged = true
		}
		if p == tc.ServerKeyPath {
			w.keyChanged = true
		}
		if w.certChanged && w.keyChanged {
			w.certChanged, w.keyChanged = false, false
			reload = true
		}
	}
	return reload
}

func (s *Server) reloadTLS() {
	tc, err := s.cfg.TLS.ServerTLS()
	if err != nil {
		s.lg.Error("reload tls certificates failed, keep the previous ones", zap.Error(err))
		return
	}
	s.tlsCfg.Store(tc)
	s.lg.Info("tls certificates reloaded", zap.String("addr", s.addr.String()))
}
