package tlsconfig

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"strings"

	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/remoting"
)

// Keys that tls.config.file cannot set (TlsHelper.extractTlsConfigFromFile
// skips them).
var notInFile = []string{"tls.server.mode", "tls.enable", "tls.config.file"}

// Apply binds the tls.* entries of sys (the -D options) onto cfg, then the
// tls.config.file it names. Problems (bad values, unknown tls.* keys, an
// unparsable file) are written to warn as "warning: …" lines: Java ignores
// them silently and starts.
func Apply(cfg *remoting.TLSConfig, sys map[string]string, warn io.Writer) {
	own := make(map[string]string)
	for k, v := range sys {
		if strings.HasPrefix(k, "tls.") {
			own[k] = v
		} else {
			fmt.Fprintf(warn, "warning: -D%s ignored: only tls.* system properties are read\n", k)
		}
	}
	warnAll(warn, props.Bind(own, cfg))
	m, err := readFile(cfg.ConfigFile)
	if err != nil {
		fmt.Fprintf(warn, "warning: tls.config.file %s: %v\n", cfg.ConfigFile, err)
		return
	}
	for _, k := range notInFile {
		if v, ok := m[k]; ok {
			fmt.Fprintf(warn, "warning: %s=%s in tls.config.file ignored, as Java does\n", k, v)
			delete(m, k)
		}
	}
	warnAll(warn, props.Bind(m, cfg))
}

// readFile parses the tls.config.file; a missing one is no error and
// yields nothing.
func readFile(path string) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return nil, err
	}
	return props.Parse(f)
}

func warnAll(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

// BrokerUseTLS is NettyClientConfig.useTLS as BrokerStartup sets it before
// the -c file is bound: tls.enable when given (in any of given, e.g. the
// -D options and the -c file's keys), otherwise whether the server mode is
// enforcing. A useTLS key in the -c file still wins afterwards.
func BrokerUseTLS(cfg *remoting.TLSConfig, given ...map[string]string) bool {
	merged := make(map[string]string)
	for _, m := range given {
		maps.Copy(merged, m)
	}
	if v, ok := merged["tls.enable"]; ok {
		return strings.EqualFold(v, "true") // Boolean.parseBoolean
	}
	return cfg.Mode() == remoting.TLSEnforcing
}
