package namesrv

// The web console (namesrv/console) is our extension: with
// consoleListenAddr set, the name server serves it and the console asks
// this name server itself, over the wire, like any admin tool.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/namesrv/console"
	"github.com/rocketmq-go/rmq/remoting"
)

// newConsole allocates the console when consoleListenAddr is set.
func (n *Namesrv) newConsole(srvCfg *remoting.NettyServerConfig) error {
	addr := n.Config().ConsoleListenAddr
	if addr == "" {
		return nil
	}
	cc := remoting.NewNettyClientConfig()
	// A name server that accepts only TLS is asked over TLS.
	cc.UseTLS = srvCfg.TLS != nil && remoting.ParseTLSMode(srvCfg.TLS.ServerMode) == remoting.TLSEnforcing
	cc.TLS = srvCfg.TLS
	c, err := console.New(console.Config{ListenAddr: addr, Namesrv: n.selfAddr, Client: cc}, n.lg.Named("console"))
	if err != nil {
		return err
	}
	n.console = c
	return nil
}

// selfAddr is this name server's address as a local client dials it (an
// unspecified bind address, ":9876", becomes loopback); nil until the
// remoting server has bound its port.
func (n *Namesrv) selfAddr() []string {
	if p := n.self.Load(); p != nil {
		return []string{*p}
	}
	return nil
}

// rememberSelfAddr records selfAddr once the remoting server is bound (the
// console's goroutines read it; the server's own address field is not
// synchronised).
func (n *Namesrv) rememberSelfAddr() {
	a, ok := n.srv.Addr().(*net.TCPAddr)
	if !ok || a == nil {
		return
	}
	ip := a.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	s := net.JoinHostPort(ip.String(), strconv.Itoa(a.Port))
	n.self.Store(&s)
}

// ConsoleAddr is the console's bound address (nil without a console, or
// before Start).
func (n *Namesrv) ConsoleAddr() net.Addr {
	if n.console == nil {
		return nil
	}
	return n.console.Addr()
}

// startConsole starts the console (when configured).
func (n *Namesrv) startConsole() error {
	if n.console == nil {
		return nil
	}
	if err := n.console.Start(); err != nil {
		return fmt.Errorf("namesrv: console: %w", err)
	}
	return nil
}

// stopAfterFailedStart stops the console and the remoting server that a
// failed Start had already started, so that it leaves nothing running,
// and returns cause joined with their errors.
func (n *Namesrv) stopAfterFailedStart(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs := []error{cause}
	if n.console != nil {
		errs = append(errs, n.console.Shutdown(ctx))
	}
	return errors.Join(append(errs, n.srv.Shutdown(ctx))...)
}
