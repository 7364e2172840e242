package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting"
)

// node5Cert writes a self-signed certificate for 127.0.0.1 (the name the
// SDK checks: it dials the IP) and its key to dir, and returns their paths.
func node5Cert(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath
}

// TestNode5TLSEnforcing: with the gRPC listener in tls.server.mode
// enforcing, the SDK with sslEnabled (trusting the server's certificate
// through grpc-js's GRPC_DEFAULT_SSL_ROOTS_FILE_PATH) produces and
// consumes over TLS.
func TestNode5TLSEnforcing(t *testing.T) {
	t.Parallel()
	certPath, keyPath := node5Cert(t, t.TempDir())
	tc := remoting.NewTLSConfig()
	tc.ServerMode, tc.TestModeEnable = "enforcing", false
	tc.ServerCertPath, tc.ServerKeyPath = certPath, keyPath
	e := newNode5EnvWith(t, node5Setup{tls: tc})
	env := []string{"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=" + certPath}
	args := map[string]any{"endpoints": e.endpoint, "topic": e.topic, "mode": "normal", "count": 3, "prefix": "s",
		"sslEnabled": true, "timeoutMs": node5Timeout(40 * time.Second).Milliseconds()}
	sent := node5Filter(startNodeEnv(t, "producer.js", args, env).wait(node5Timeout(45*time.Second)), "sent")
	if len(sent) != 3 {
		t.Fatalf("sent %d of 3 over TLS", len(sent))
	}
	cargs := e.simpleArgs(uniqueName("nsl"), len(sent))
	cargs["sslEnabled"] = true
	got := byID(startNodeEnv(t, "simple_consumer.js", cargs, env).wait(node5Timeout(60 * time.Second)))
	for _, s := range sent {
		if r := got[s.MessageID]; len(r) != 1 || r[0].Body != s.Body {
			t.Errorf("%s over TLS: received %+v", s.Body, r)
		}
	}
}
