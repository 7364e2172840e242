package remoting

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func echoReq(t *testing.T, c *Client, addr, k string) {
	t.Helper()
	resp, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, map[string]string{"k": k}, []byte("b-"+k)))
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	if resp.Code != code.Success || resp.Ext("k") != k || string(resp.Body) != "b-"+k {
		t.Fatalf("%s: code %d ext %v body %q", k, resp.Code, resp.ExtFields, resp.Body)
	}
}

func echoServer(t *testing.T, cfg *NettyServerConfig) *Server {
	return startServer(t, cfg, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 2, 64))
		s.RegisterProcessor(testCodeBlock, InlineProcessorFunc(echo), NewPool("inline", 1, 16))
	})
}

// assertClosed reads from r until the server closes it (EOF or reset).
func assertClosed(t *testing.T, r net.Conn) {
	t.Helper()
	_ = r.SetReadDeadline(time.Now().Add(wait.Scale(5 * time.Second)))
	_, err := io.ReadAll(r)
	var ne net.Error
	if err != nil && (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("connection still open: %v", err)
	}
}

func TestRemotingTLSPermissiveServesPlainAndTLS(t *testing.T) {
	s := echoServer(t, tlsServerConfig("permissive"))
	addr := s.Addr().String()
	plain, secure := newTestClient(t), newTLSTestClient(t, nil)
	for i := range 3 {
		echoReq(t, plain, addr, fmt.Sprint("plain-", i))
		echoReq(t, secure, addr, fmt.Sprint("tls-", i))
	}
	// An inline processor answers on the TLS path too.
	resp, err := secure.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeBlock, map[string]string{"k": "in"}, nil))
	if err != nil || resp.Ext("k") != "in" {
		t.Fatalf("inline over tls: %v %v", resp, err)
	}
	if n := len(s.Channels()); n != 2 {
		t.Fatalf("server has %d channels, want 2 (one plain, one tls)", n)
	}
	// The TLS client really speaks TLS: a raw TLS dial succeeds too.
	r := dialTLSRaw(t, s.Addr())
	r.send(codec.NewRequest(testCodeEcho, map[string]string{"k": "raw"}, nil))
	if got, err := r.recv(); err != nil || got.Ext("k") != "raw" {
		t.Fatalf("raw tls: %v %v", got, err)
	}
}

func TestRemotingTLSEnforcingRefusesPlain(t *testing.T) {
	s := echoServer(t, tlsServerConfig("enforcing"))
	r := dialRaw(t, s.Addr())
	r.send(codec.NewRequest(testCodeEcho, map[string]string{"k": "plain"}, nil))
	assertClosed(t, r)
	_, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, nil, nil))
	if err == nil {
		t.Fatal("plain client was answered by an enforcing server")
	}
	echoReq(t, newTLSTestClient(t, nil), s.Addr().String(), "tls")
}

func TestRemotingTLSDisabledRefusesHandshake(t *testing.T) {
	for _, cfg := range []*NettyServerConfig{testServerConfig(), tlsServerConfig("disabled")} {
		s := echoServer(t, cfg)
		_, err := newTLSTestClient(t, nil).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, nil, nil))
		if !errors.Is(err, ErrConnect) {
			t.Fatalf("tls client against a disabled server: %v, want a connect error", err)
		}
		echoReq(t, newTestClient(t), s.Addr().String(), "plain")
	}
}

func TestRemotingTLSMalformedHandshakeClosesOnlyItsConnection(t *testing.T) {
	s := echoServer(t, tlsServerConfig("permissive"))
	addr := s.Addr().String()
	plain, secure := newTestClient(t), newTLSTestClient(t, nil)
	echoReq(t, plain, addr, "before-plain")
	echoReq(t, secure, addr, "before-tls")
	for _, junk := range [][]byte{
		{0x16}, // a handshake record header cut short
		{0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5}, // a record that is no ClientHello
		append([]byte{0x16, 0x03, 0x03, 0xff, 0xff}, make([]byte, 64)...),
	} {
		r := dialRaw(t, s.Addr())
		if _, err := r.Write(junk); err != nil {
			t.Fatal(err)
		}
		if len(junk) > 1 {
			assertClosed(t, r)
		} else {
			_ = r.Close()
		}
	}
	echoReq(t, plain, addr, "after-plain")
	echoReq(t, secure, addr, "after-tls")
}

// A client that connects and stays silent must not hold up others: the
// first byte is awaited on the connection's own goroutine.
func TestRemotingTLSSilentClientDoesNotBlockAccept(t *testing.T) {
	s := echoServer(t, tlsServerConfig("permissive"))
	for range 3 {
		_ = dialRaw(t, s.Addr()) // says nothing
	}
	echoReq(t, newTestClient(t), s.Addr().String(), "plain")
	echoReq(t, newTLSTestClient(t, nil), s.Addr().String(), "tls")
}

// Over TLS, the server calls the client (sync and oneway), sees connect,
// close and idle events, and shuts down with a TLS connection open.
func TestRemotingTLSServerToClientAndEvents(t *testing.T) {
	cfg := tlsServerConfig("enforcing")
	cfg.ServerChannelMaxIdleTimeSeconds = 1
	ev := &eventRecorder{}
	s := echoServer(t, cfg)
	s.SetChannelEventListener(ev)
	var oneways atomic.Int32
	c := newTLSTestClient(t, nil)
	c.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		if req.IsOneway() {
			oneways.Add(1)
			return nil, nil
		}
		return echo(ctx, req)
	}), NewPool("client-echo", 1, 16))
	echoReq(t, c, s.Addr().String(), "hello")
	chs := s.Channels()
	if len(chs) != 1 {
		t.Fatalf("%d channels", len(chs))
	}
	resp, err := chs[0].InvokeSync(ctxT(t, 5*time.Second), codec.NewRequest(testCodeEcho, map[string]string{"k": "s2c"}, nil))
	if err != nil || resp.Ext("k") != "s2c" {
		t.Fatalf("server to client call: %v %v", resp, err)
	}
	if err := chs[0].InvokeOneway(codec.NewRequest(testCodeEcho, nil, nil)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if oneways.Load() != 1 {
			return errors.New("oneway not received")
		}
		return nil
	})
	// Idle for a second: the server closes the channel, with idle then close events.
	wait.Eventually(t, wait.Scale(10*time.Second), func() error {
		got, _ := ev.snapshot()
		if !slices.Equal(got, []string{"connect", "idle", "close"}) {
			return fmt.Errorf("events %v", got)
		}
		return nil
	})
	echoReq(t, c, s.Addr().String(), "redial")
	_ = dialRaw(t, s.Addr()) // a connection still being sniffed
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with tls connections open: %v", err)
	}
}

func TestRemotingTLSClassify(t *testing.T) {
	for _, tc := range []struct {
		mode  TLSMode
		first byte
		want  connKind
	}{
		{TLSPermissive, 0x16, connTLS}, {TLSPermissive, 0x00, connPlain}, {TLSPermissive, 0x17, connPlain},
		{TLSEnforcing, 0x16, connTLS}, {TLSEnforcing, 0x00, connRefuse}, {TLSEnforcing, 0x15, connRefuse},
		{TLSDisabled, 0x16, connRefuse}, {TLSDisabled, 0x00, connPlain},
	} {
		if got := classify(tc.mode, tc.first); got != tc.want {
			t.Errorf("classify(%v, %#x) = %v, want %v", tc.mode, tc.first, got, tc.want)
		}
	}
	for in, want := range map[string]TLSMode{"disabled": TLSDisabled, "enforcing": TLSEnforcing, "permissive": TLSPermissive,
		"Enforcing": TLSPermissive, "": TLSPermissive, "enforcing ": TLSPermissive} {
		if got := ParseTLSMode(in); got != want {
			t.Errorf("ParseTLSMode(%q) = %v, want %v (Java's exact-match TlsMode.parse)", in, got, want)
		}
	}
}

// With test mode off the server presents the configured certificate (its
// key encrypted, opened with keyPassword) and, with need.client.auth
// require and authClient, only clients whose certificate the trusted CA
// signed get in; the client verifies the server with authServer.
func TestRemotingTLSCertificatesAndClientAuth(t *testing.T) {
	ca := newTestCA(t)
	srvCert, srvKey := ca.issue(t, "server", "s3cret")
	cliCert, cliKey := ca.issue(t, "client", "")
	cfg := tlsServerConfig("enforcing")
	cfg.TLS.TestModeEnable = false
	cfg.TLS.ServerCertPath, cfg.TLS.ServerKeyPath, cfg.TLS.ServerKeyPassword = srvCert, srvKey, "s3cret"
	cfg.TLS.ServerNeedClientAuth, cfg.TLS.ServerAuthClient, cfg.TLS.ServerTrustCertPath = "require", true, ca.path("ca.pem")
	s := echoServer(t, cfg)
	addr := s.Addr().String()

	good := &TLSConfig{ClientAuthServer: true, ClientTrustCertPath: ca.path("ca.pem"), ClientCertPath: cliCert, ClientKeyPath: cliKey}
	echoReq(t, newTLSTestClient(t, good), addr, "verified")

	noCert := &TLSConfig{ClientAuthServer: true, ClientTrustCertPath: ca.path("ca.pem")}
	if _, err := newTLSTestClient(t, noCert).InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil)); err == nil {
		t.Fatal("a client without a certificate was served under need.client.auth=require")
	}
	other := newTestCA(t)
	wrongTrust := &TLSConfig{ClientAuthServer: true, ClientTrustCertPath: other.path("ca.pem"), ClientCertPath: cliCert, ClientKeyPath: cliKey}
	_, err := newTLSTestClient(t, wrongTrust).InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil))
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("client trusting another CA: %v, want a certificate verification error", err)
	}
	bad := *cfg.TLS
	bad.ServerKeyPassword = "wrong"
	if _, err := NewServer(&NettyServerConfig{ListenAddr: "127.0.0.1:0", TLS: &bad}, nil); err == nil {
		t.Fatal("NewServer accepted an encrypted key with the wrong password")
	}
}

// Like 4.9.8's client (an SslHandler built without a peer host), authServer
// verifies the server's chain and not its name: a server whose certificate
// names another host is served when its CA is trusted, and refused when not.
func TestRemotingTLSClientAuthServerChecksChainNotName(t *testing.T) {
	ca := newTestCA(t)
	srvCert, srvKey := ca.issueFor(t, "server", "", []string{"namesrv.example"}, nil)
	cfg := tlsServerConfig("enforcing")
	cfg.TLS.TestModeEnable = false
	cfg.TLS.ServerCertPath, cfg.TLS.ServerKeyPath = srvCert, srvKey
	addr := echoServer(t, cfg).Addr().String()
	echoReq(t, newTLSTestClient(t, &TLSConfig{ClientAuthServer: true, ClientTrustCertPath: ca.path("ca.pem")}), addr, "by-ip")
	other := newTestCA(t)
	c := newTLSTestClient(t, &TLSConfig{ClientAuthServer: true, ClientTrustCertPath: other.path("ca.pem")})
	_, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil))
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("client trusting another CA: %v, want a certificate verification error", err)
	}
}

// Rotating the server's certificate and key files takes effect for new
// connections without a restart.
func TestRemotingTLSReloadsRotatedCertificates(t *testing.T) {
	oldCA, newCA := newTestCA(t), newTestCA(t)
	certPath, keyPath := oldCA.issue(t, "server", "")
	cfg := tlsServerConfig("enforcing")
	cfg.TLS.TestModeEnable = false
	cfg.TLS.ServerCertPath, cfg.TLS.ServerKeyPath = certPath, keyPath
	s := echoServer(t, cfg)
	addr := s.Addr().String()
	trusting := func(ca *testCA) error {
		c := NewClient(&NettyClientConfig{UseTLS: true, ConnectTimeoutMillis: 3000,
			TLS: &TLSConfig{ClientAuthServer: true, ClientTrustCertPath: ca.path("ca.pem")}}, nil)
		defer func() { _ = c.Shutdown(context.Background()) }()
		_, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil))
		return err
	}
	if err := trusting(oldCA); err != nil {
		t.Fatal(err)
	}
	newCert, newKey := newCA.issue(t, "server", "")
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err == nil {
			err = os.WriteFile(to, b, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	copyFile(newCert, certPath)
	copyFile(newKey, keyPath)
	wait.Eventually(t, wait.Scale(10*time.Second), func() error { return trusting(newCA) })
	if err := trusting(oldCA); err == nil {
		t.Fatal("the old certificate is still served after the rotation")
	}
}

// As Java's FileWatchService listener: a new trust file reloads at once, a
// new certificate only once the key changed too (in either order).
func TestRemotingTLSCertWatchNeedsCertAndKey(t *testing.T) {
	ca := newTestCA(t)
	certPath, keyPath := ca.issue(t, "server", "")
	tc := &TLSConfig{ServerMode: "enforcing", ServerCertPath: certPath, ServerKeyPath: keyPath, ServerTrustCertPath: ca.path("ca.pem")}
	s := &Server{cfg: &NettyServerConfig{TLS: tc}, tlsMode: TLSEnforcing}
	w := s.newCertWatch()
	if w == nil || len(w.paths) != 3 {
		t.Fatalf("watch %+v", w)
	}
	touch := func(p string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("\n")
			_ = f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if w.poll(tc) {
		t.Fatal("reload with nothing changed")
	}
	touch(certPath)
	if w.poll(tc) {
		t.Fatal("reload on the certificate alone")
	}
	if w.poll(tc) {
		t.Fatal("reload with nothing changed since")
	}
	touch(keyPath)
	if !w.poll(tc) {
		t.Fatal("no reload after certificate and key changed")
	}
	touch(keyPath)
	if w.poll(tc) {
		t.Fatal("reload on the key alone")
	}
	touch(ca.path("ca.pem"))
	if !w.poll(tc) {
		t.Fatal("no reload after the trust file changed")
	}
	tc.TestModeEnable = true
	if s.newCertWatch() != nil {
		t.Fatal("test mode watches files")
	}
}

// TestRemotingTLSCloseDoesNotWaitForPeer: closing a TLS channel whose peer
// does not read (net.Pipe: every write waits for a read) returns at once;
// the close_notify is left to a spawned goroutine.
func TestRemotingTLSCloseDoesNotWaitForPeer(t *testing.T) {
	cert, err := SelfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	srv := tls.Server(a, &tls.Config{Certificates: []tls.Certificate{cert}, SessionTicketsDisabled: true})
	cli := tls.Client(b, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // test
	errc := make(chan error, 1)
	go func() { errc <- cli.Handshake() }()
	if err := srv.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	closeFn := closeFunc(srv, func(f func()) bool {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
		return true
	})
	start := time.Now()
	_ = closeFn()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Close waited %v for a peer that does not read", d)
	}
	_ = b.Close() // the spawned close_notify write then fails at once
	wg.Wait()
}
