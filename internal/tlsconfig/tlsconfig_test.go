package tlsconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/remoting"
)

func TestTLSConfigDefaultsAre498s(t *testing.T) {
	c := remoting.NewTLSConfig()
	var w strings.Builder
	Apply(c, nil, &w) // /etc/rocketmq/tls.properties is absent here: skipped
	if c.Mode() != remoting.TLSPermissive || !c.TestModeEnable || c.Enable || c.ServerNeedClientAuth != "none" ||
		c.ConfigFile != "/etc/rocketmq/tls.properties" || c.ServerAuthClient || c.ClientAuthServer {
		t.Fatalf("defaults %+v", c)
	}
	if w.Len() != 0 {
		t.Fatalf("warnings %q", w.String())
	}
	if BrokerUseTLS(c) {
		t.Fatal("broker client uses TLS by default; 4.9.8 only when enforcing or tls.enable")
	}
}

// Precedence: -c file keys < -D options < tls.config.file, except that the
// file cannot set tls.server.mode, tls.enable or tls.config.file.
func TestTLSConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	tlsFile := filepath.Join(dir, "tls.properties")
	if err := os.WriteFile(tlsFile, []byte(strings.Join([]string{
		"tls.server.mode=disabled", "tls.enable=false", "tls.config.file=/nowhere",
		"tls.test.mode.enable=false", "tls.server.certPath=/from/file.pem", "tls.server.need.client.auth=require",
		"tls.client.authServer=true", "tls.bogus=1",
	}, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "broker.conf")
	if err := os.WriteFile(conf, []byte("brokerName=b\ntls.server.mode=permissive\ntls.server.keyPath=/from/conf.key\ntls.server.certPath=/from/conf.pem\ntls.config.file="+tlsFile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := remoting.NewTLSConfig()
	var w strings.Builder
	m, err := props.LoadFile(conf, &w, c, &struct {
		BrokerName string `prop:"brokerName"`
	}{})
	if err != nil {
		t.Fatal(err)
	}
	_, defs := props.SplitDefines([]string{"-Dtls.server.mode=enforcing", "-Dtls.enable=true", "-Dtls.server.keyPassword=pw", "-Drocketmq.home.dir=/x"})
	Apply(c, defs, &w)
	want := remoting.TLSConfig{
		ServerMode: "enforcing", Enable: true, ConfigFile: tlsFile, TestModeEnable: false,
		ServerNeedClientAuth: "require", ServerKeyPath: "/from/conf.key", ServerKeyPassword: "pw",
		ServerCertPath: "/from/file.pem", ClientAuthServer: true,
	}
	if *c != want {
		t.Fatalf("got  %+v\nwant %+v", *c, want)
	}
	for _, s := range []string{"tls.server.mode=disabled in tls.config.file ignored", "tls.enable=false in tls.config.file ignored",
		"unknown key tls.bogus", "-Drocketmq.home.dir ignored"} {
		if !strings.Contains(w.String(), s) {
			t.Errorf("warnings lack %q:\n%s", s, w.String())
		}
	}
	if !BrokerUseTLS(c, m, defs) {
		t.Fatal("-Dtls.enable=true: the broker's client must use TLS")
	}
}

func TestTLSConfigBrokerUseTLS(t *testing.T) {
	enforcing := remoting.NewTLSConfig()
	enforcing.ServerMode = "enforcing"
	for _, tc := range []struct {
		cfg   *remoting.TLSConfig
		given map[string]string
		want  bool
	}{
		{enforcing, nil, true}, // BrokerStartup: default tls.enable = (mode == enforcing)
		{enforcing, map[string]string{"tls.enable": "false"}, false},
		{remoting.NewTLSConfig(), map[string]string{"tls.enable": "TRUE"}, true},
		{remoting.NewTLSConfig(), map[string]string{"tls.enable": "true "}, false}, // parseBoolean does not trim
		{remoting.NewTLSConfig(), nil, false},
	} {
		if got := BrokerUseTLS(tc.cfg, tc.given); got != tc.want {
			t.Errorf("mode %s given %v: %v, want %v", tc.cfg.ServerMode, tc.given, got, tc.want)
		}
	}
}
