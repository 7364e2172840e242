package proxy_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
)

// TestProxyTLSModes: the gRPC port follows tls.server.mode like the
// remoting port: permissive serves plain and TLS clients on one port,
// enforcing only TLS ones, disabled only plain ones.
func TestProxyTLSModes(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	for _, c := range []struct {
		mode           string
		plain, secured bool
	}{
		{"permissive", true, true},
		{"enforcing", false, true},
		{"disabled", true, false},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			lg := zaptest.NewLogger(t)
			be, err := proxy.NewClusterBackend([]string{ns.Addr().String()}, nil, lg)
			if err != nil {
				t.Fatal(err)
			}
			cfg := proxy.NewConfig()
			cfg.GRPCServerHost, cfg.GRPCServerPort = "127.0.0.1", 0
			srv, err := proxy.New(cfg, be, lg)
			if err != nil {
				t.Fatal(err)
			}
			tc := remoting.NewTLSConfig()
			tc.ServerMode = c.mode
			srv.SetTLS(tc)
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
				_ = be.Close(ctx)
			})
			if got := reachable(t, srv.Addr().String(), insecure.NewCredentials()); got != c.plain {
				t.Errorf("plain client served: %v, want %v", got, c.plain)
			}
			tlsCreds := credentials.NewTLS(&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // test-mode certificate
			if got := reachable(t, srv.Addr().String(), tlsCreds); got != c.secured {
				t.Errorf("TLS client served: %v, want %v", got, c.secured)
			}
		})
	}
}

// reachable reports whether one QueryRoute call gets a response.
func reachable(t *testing.T, addr string, creds credentials.TransportCredentials) bool {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, "tls-test")
	resp, err := apiv2.NewMessagingServiceClient(conn).QueryRoute(ctx, &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "NoSuchTopic"}})
	return err == nil && resp.GetStatus().GetCode() == apiv2.Code_TOPIC_NOT_FOUND
}

// TestProxyTLSCertFromProxyConfig: rmq-proxy.json's tlsCertPath/tlsKeyPath
// (with tlsTestModeEnable false) make the gRPC port serve that certificate,
// which a client trusting only it verifies.
func TestProxyTLSCertFromProxyConfig(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	cert, err := remoting.SelfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath := filepath.Join(dir, "proxy.crt"), filepath.Join(dir, "proxy.key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := proxy.NewConfig()
	cfg.GRPCServerHost, cfg.GRPCServerPort = "127.0.0.1", 0
	cfg.NamesrvAddr = ns.Addr().String()
	cfg.TLSCertPath, cfg.TLSKeyPath, cfg.TLSTestModeEnable = certPath, keyPath, false
	tc := remoting.NewTLSConfig()
	tc.ServerMode = "enforcing"
	px, err := proxy.StartCluster(cfg, nil, tc, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = px.Shutdown(ctx)
	})
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	creds := credentials.NewTLS(&tls.Config{RootCAs: roots, ServerName: "localhost"})
	if !reachable(t, px.Server.Addr().String(), creds) {
		t.Fatal("a client trusting the configured certificate was not served")
	}
}
