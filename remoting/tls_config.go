package remoting

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
)

// TLSMode is the server side's TLS mode (Java's TlsMode).
type TLSMode int

// Server TLS modes, as tls.server.mode names them.
const (
	// TLSDisabled serves plain connections only; a TLS handshake is refused.
	TLSDisabled TLSMode = iota
	// TLSPermissive serves plain and TLS connections on the same port, told
	// apart by the first byte the client sends.
	TLSPermissive
	// TLSEnforcing serves TLS connections only; a plain one is closed.
	TLSEnforcing
)

func (m TLSMode) String() string {
	switch m {
	case TLSDisabled:
		return "disabled"
	case TLSEnforcing:
		return "enforcing"
	default:
		return "permissive"
	}
}

// ParseTLSMode reads a tls.server.mode value like 4.9.8's TlsMode.parse:
// exact lower-case names, anything else is permissive.
func ParseTLSMode(s string) TLSMode {
	switch s {
	case "disabled":
		return TLSDisabled
	case "enforcing":
		return TLSEnforcing
	default:
		return TLSPermissive
	}
}

// DefaultTLSConfigFile is tls.config.file's default in 4.9.8.
const DefaultTLSConfigFile = "/etc/rocketmq/tls.properties"

// TLSConfig mirrors Java's TlsSystemConfig (4.9.8): the tls.* system
// properties, each tagged with its Java key. Java reads them once per JVM
// from -D options and, for every key except tls.server.mode and tls.enable,
// again from the tls.config.file properties file (internal/tlsconfig does
// both for our binaries).
type TLSConfig struct {
	ServerMode     string `prop:"tls.server.mode"`      // disabled, permissive (default) or enforcing
	Enable         bool   `prop:"tls.enable"`           // client side: dial with TLS
	ConfigFile     string `prop:"tls.config.file"`      // properties file overriding the keys below
	TestModeEnable bool   `prop:"tls.test.mode.enable"` // server: self-signed cert; client: trust anything

	ServerNeedClientAuth string `prop:"tls.server.need.client.auth"` // none, optional or require
	ServerKeyPath        string `prop:"tls.server.keyPath"`          // PEM private key
	ServerKeyPassword    string `prop:"tls.server.keyPassword"`      // decrypts an encrypted PEM key
	ServerCertPath       string `prop:"tls.server.certPath"`         // PEM certificate chain
	ServerAuthClient     bool   `prop:"tls.server.authClient"`       // verify client certificates
	ServerTrustCertPath  string `prop:"tls.server.trustCertPath"`    // PEM CAs for client certificates

	ClientKeyPath       string `prop:"tls.client.keyPath"`
	ClientKeyPassword   string `prop:"tls.client.keyPassword"`
	ClientCertPath      string `prop:"tls.client.certPath"`
	ClientAuthServer    bool   `prop:"tls.client.authServer"`    // verify the server's certificate
	ClientTrustCertPath string `prop:"tls.client.trustCertPath"` // PEM CAs for server certificates
}

// NewTLSConfig returns TlsSystemConfig's 4.9.8 defaults: permissive mode,
// test mode on (a self-signed server certificate, clients trust anything),
// no client authentication, client side off.
func NewTLSConfig() *TLSConfig {
	return &TLSConfig{
		ServerMode:           "permissive",
		ConfigFile:           DefaultTLSConfigFile,
		TestModeEnable:       true,
		ServerNeedClientAuth: "none",
	}
}

// Mode is the parsed server mode; a nil config is disabled.
func (c *TLSConfig) Mode() TLSMode {
	if c == nil {
		return TLSDisabled
	}
	return ParseTLSMode(c.ServerMode)
}

// ServerTLS builds the server side's crypto/tls configuration, as
// TlsHelper.buildSslContext(false) does: in test mode a fresh self-signed
// certificate and optional client certificates; otherwise the configured
// certificate and key, and client authentication per
// tls.server.need.client.auth, verified against tls.server.trustCertPath
// (system roots when empty) only when tls.server.authClient is true.
// Java starts with a null SSL context when the files are unusable and then
// closes every TLS connection; we refuse to start instead.
func (c *TLSConfig) ServerTLS() (*tls.Config, error) {
	if c.TestModeEnable {
		cert, err := SelfSignedCertificate()
		if err != nil {
			return nil, err
		}
		return &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequestClientCert}, nil
	}
	cert, err := LoadKeyPair(c.ServerCertPath, c.ServerKeyPath, c.ServerKeyPassword)
	if err != nil {
		return nil, fmt.Errorf("remoting: tls server certificate: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if c.ServerAuthClient && c.ServerTrustCertPath != "" {
		if cfg.ClientCAs, err = loadCertPool(c.ServerTrustCertPath); err != nil {
			return nil, fmt.Errorf("remoting: tls.server.trustCertPath: %w", err)
		}
	}
	cfg.ClientAuth = clientAuthType(c.ServerNeedClientAuth, c.ServerAuthClient)
	return cfg, nil
}

// clientAuthType maps need.client.auth (Netty's ClientAuth, matched
// case-insensitively, anything else none) and authClient (verify, or accept
// any certificate like Netty's InsecureTrustManagerFactory) to Go's.
func clientAuthType(need string, verify bool) tls.ClientAuthType {
	switch strings.ToUpper(need) {
	case "OPTIONAL":
		if verify {
			return tls.VerifyClientCertIfGiven
		}
		return tls.RequestClientCert
	case "REQUIRE":
		if verify {
			return tls.RequireAndVerifyClientCert
		}
		return tls.RequireAnyClientCert
	default:
		return tls.NoClientCert
	}
}

// ClientTLS builds the client side's configuration (TlsHelper's
// forClient): in test mode, or without tls.client.authServer, any server
// certificate is accepted; otherwise it is verified against
// tls.client.trustCertPath (system roots when empty). A client certificate
// is presented when tls.client.certPath and keyPath are set.
func (c *TLSConfig) ClientTLS() (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // Java's InsecureTrustManagerFactory, by configuration
	if c == nil || c.TestModeEnable {
		return cfg, nil
	}
	if c.ClientAuthServer {
		var roots *x509.CertPool // nil: the system's, as Java's default trust manager
		if c.ClientTrustCertPath != "" {
			pool, err := loadCertPool(c.ClientTrustCertPath)
			if err != nil {
				return nil, fmt.Errorf("remoting: tls.client.trustCertPath: %w", err)
			}
			roots = pool
		}
		// 4.9.8's NettyRemotingClient builds its SslHandler without a peer
		// host (sslContext.newHandler(ch.alloc())), so Netty checks the
		// chain and never the host name: a broker dialling a name server
		// by an address its certificate does not name connects there, and
		// so it does here.
		cfg.VerifyConnection = func(cs tls.ConnectionState) error { return verifyChain(cs, roots) }
	}
	if c.ClientCertPath != "" && c.ClientKeyPath != "" {
		cert, err := LoadKeyPair(c.ClientCertPath, c.ClientKeyPath, c.ClientKeyPassword)
		if err != nil {
			return nil, fmt.Errorf("remoting: tls client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// verifyChain checks the server's certificate chain against roots, with no
// host name.
func verifyChain(cs tls.ConnectionState, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("remoting: tls: server sent no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}

// loadCertPool reads every PEM certificate in path.
func loadCertPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no PEM certificate in " + path)
	}
	return pool, nil
}
