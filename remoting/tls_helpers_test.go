package remoting

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testCA is a certificate authority generated for one test (no key is
// committed to the repository).
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	dir  string
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "rmq test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &testCA{cert: cert, key: key, dir: t.TempDir()}
	writePEM(t, ca.path("ca.pem"), "CERTIFICATE", der)
	return ca
}

func (ca *testCA) path(name string) string { return filepath.Join(ca.dir, name) }

// issue writes name.pem and name.key (PKCS#8; encrypted with password when
// it is not empty) for a leaf valid for 127.0.0.1 and localhost, and
// returns their paths.
func (ca *testCA) issue(t *testing.T, name, password string) (certPath, keyPath string) {
	t.Helper()
	return ca.issueFor(t, name, password, []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
}

// issueFor is issue for a leaf naming only dnsNames and ips.
func (ca *testCA) issueFor(t *testing.T, name, password string, dnsNames []string, ips []net.IP) (certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = ca.path(name+".pem"), ca.path(name+".key")
	writePEM(t, certPath, "CERTIFICATE", der)
	p8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if password == "" {
		writePEM(t, keyPath, "PRIVATE KEY", p8)
	} else {
		writePEM(t, keyPath, "ENCRYPTED PRIVATE KEY", encryptPKCS8(t, p8, password))
	}
	return certPath, keyPath
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// encryptPKCS8 produces what `openssl pkcs8 -topk8 -v2 aes-256-cbc
// -v2prf hmacWithSHA256` writes: PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC.
func encryptPKCS8(t *testing.T, der []byte, password string) []byte {
	t.Helper()
	salt, iv := make([]byte, 16), make([]byte, 16)
	_, _ = rand.Read(salt)
	_, _ = rand.Read(iv)
	const iter = 2048
	key, err := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	if err != nil {
		t.Fatal(err)
	}
	pad := aes.BlockSize - len(der)%aes.BlockSize
	plain := append(append([]byte{}, der...), make([]byte, pad)...)
	for i := len(der); i < len(plain); i++ {
		plain[i] = byte(pad)
	}
	block, _ := aes.NewCipher(key)
	enc := make([]byte, len(plain))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(enc, plain)
	must := func(b []byte, err error) asn1.RawValue {
		if err != nil {
			t.Fatal(err)
		}
		return asn1.RawValue{FullBytes: b}
	}
	kdf := pkix.AlgorithmIdentifier{Algorithm: oidPBKDF2, Parameters: must(asn1.Marshal(pbkdf2Params{
		Salt: salt, Iter: iter, PRF: pkix.AlgorithmIdentifier{Algorithm: oidHMACSHA256, Parameters: asn1.NullRawValue},
	}))}
	ciph := pkix.AlgorithmIdentifier{Algorithm: oidAES256CBC, Parameters: must(asn1.Marshal(iv))}
	params := must(asn1.Marshal(pbes2Params{KDF: kdf, Cipher: ciph}))
	out, err := asn1.Marshal(encryptedPKCS8{Algo: pkix.AlgorithmIdentifier{Algorithm: oidPBES2, Parameters: params}, EncryptedData: enc})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tlsServerConfig is a test server configuration in mode with test-mode
// TLS (a self-signed certificate).
func tlsServerConfig(mode string) *NettyServerConfig {
	cfg := testServerConfig()
	cfg.TLS = NewTLSConfig()
	cfg.TLS.ServerMode = mode
	return cfg
}

// newTLSTestClient is a remoting client dialling with TLS (test mode: any
// server certificate).
func newTLSTestClient(t *testing.T, tc *TLSConfig) *Client {
	t.Helper()
	cfg := NewNettyClientConfig()
	cfg.UseTLS = true
	cfg.TLS = tc
	c := NewClient(cfg, nil)
	t.Cleanup(func() { _ = c.Shutdown(ctxT(t, 5*time.Second)) })
	return c
}

// dialTLSRaw opens a TLS connection speaking frames by hand.
func dialTLSRaw(t *testing.T, addr net.Addr) *rawConn {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr.String(),
		&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // test server's self-signed certificate
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, Conn: c}
}
