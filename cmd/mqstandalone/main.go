// Command mqstandalone runs a name server and a broker in one process with
// an embedded default configuration: the name server on 9876, the broker on
// 10911 (fast port 10909) storing under ~/store, registered with the
// embedded name server, and RocketMQ 5 gRPC clients on 8081 (a local-mode
// proxy; -proxy=false turns it off, -pc names an rmq-proxy.json; with
// listenPort=0 it takes a free port too). -c applies a broker.conf over the
// defaults; -nsport moves the name server (0: any free port); -console
// serves the web console.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/logging"
	"github.com/rocketmq-go/rmq/internal/procs"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/tlsconfig"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/proxy"
	"github.com/rocketmq-go/rmq/remoting"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("mqstandalone", flag.ContinueOnError)
	fs.SetOutput(stderr)
	confFile := fs.String("c", "", "Broker config properties file applied over the embedded defaults")
	nsPort := fs.Int("nsport", namesrv.DefaultListenPort, "Name server listen port (0: any free port)")
	consoleAddr := fs.String("console", "", "Serve the read-only web console on this address, eg: 127.0.0.1:8080")
	withProxy := fs.Bool("proxy", true, "Serve RocketMQ 5 gRPC clients (local-mode proxy on grpcServerPort, 8081)")
	proxyConf := fs.String("pc", "", "Proxy config file (rmq-proxy.json)")
	args, defines := props.SplitDefines(args)
	logOpts := logging.Options{Role: logging.RoleBroker, Stderr: stderr}
	logOpts.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	cfgs := broker.NewStartupConfigs()
	tc := remoting.NewTLSConfig()
	fileLogs := logOpts.FileOptions()
	fileProps, err := props.LoadFile(*confFile, stderr, append(cfgs.Targets(), tc, fileLogs, &cfgs.Broker.Metrics)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 255
	}
	tlsconfig.Apply(tc, defines, stderr)
	if _, set := fileProps["useTLS"]; !set {
		cfgs.Client.UseTLS = tlsconfig.BrokerUseTLS(tc, fileProps, defines)
	}
	cfgs.Server.TLS, cfgs.Client.TLS = tc, tc
	logOpts.ApplyFile(fileLogs, fs)
	if err := cfgs.ApplyOverrides(); err != nil {
		fmt.Fprintln(stderr, err)
		return 253
	}
	logOpts.SubDir = logging.BrokerLogDir(cfgs.Broker.IsolateLogEnable, cfgs.Store.EnableDLegerCommitLog,
		cfgs.Broker.BrokerName, cfgs.Broker.BrokerID, cfgs.Store.DLegerSelfID)
	lg, closeLogs, err := logging.New(logOpts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer func() { _ = lg.Sync(); _ = closeLogs() }()
	// One P more per gnet event loop of both servers (internal/procs: not
	// under a CPU quota or an explicit GOMAXPROCS).
	procs.Raise(lg, broker.EventLoops(cfgs.Server)+namesrv.NewNettyServerConfig().EventLoops())
	ns, err := startNamesrv(*nsPort, *consoleAddr, cfgs.Store.StorePathRootDir, tc, lg.Named("namesrv"))
	if err != nil {
		lg.Error("start name server failed", zap.Error(err))
		return 255
	}
	defer shutdown("name server", ns.Shutdown, lg)
	nsAddr := "127.0.0.1:" + strconv.Itoa(ns.Addr().(*net.TCPAddr).Port)
	fmt.Fprintf(stdout, "The Name Server boot success. serializeType=JSON, listening on %s\n", nsAddr)
	if a := ns.ConsoleAddr(); a != nil {
		fmt.Fprintf(stdout, "Console on http://%s/\n", a)
	}
	if cfgs.Broker.NamesrvAddr == "" {
		cfgs.Broker.NamesrvAddr = nsAddr
	}
	b, err := broker.New(cfgs.Broker, cfgs.Store, broker.Options{ServerConfig: cfgs.Server, ClientConfig: cfgs.Client, Logger: lg.Named("broker")})
	if err != nil {
		lg.Error("create broker failed", zap.Error(err))
		return 253
	}
	defer shutdown("broker", b.Shutdown, lg)
	if err := b.Start(); err != nil {
		lg.Error("start broker failed", zap.Error(err))
		return 255
	}
	fmt.Fprintf(stdout, "The broker[%s, %s] boot success. serializeType=JSON and name server is %s (store %s, fast port %s)\n",
		cfgs.Broker.BrokerName, b.BrokerAddr(), cfgs.Broker.NamesrvAddr, cfgs.Store.StorePathRootDir, b.FastAddr())
	if *withProxy {
		px, err := startProxy(b, *proxyConf, cfgs, tc, lg)
		if err != nil {
			lg.Error("start proxy failed", zap.Error(err))
			return 255
		}
		defer shutdown("proxy", px.Shutdown, lg)
		fmt.Fprintf(stdout, "The proxy boot success. grpc %s, proxyMode=local\n", px.Server.Addr())
	} else if *proxyConf != "" {
		lg.Warn("-pc ignored: the proxy is off (-proxy=false)", zap.String("pc", *proxyConf))
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-stop:
	}
	return 0
}

// startProxy starts the local-mode gRPC proxy in front of b. A broker on an
// ephemeral port (listenPort=0) gets an ephemeral gRPC port unless -pc sets
// one.
func startProxy(b *broker.Broker, confFile string, cfgs *broker.StartupConfigs, tc *remoting.TLSConfig, lg *zap.Logger) (*proxy.Running, error) {
	pcfg, err := proxy.LoadConfigFile(confFile)
	if err != nil {
		return nil, err
	}
	pcfg.ProxyMode = proxy.ModeLocal
	if confFile == "" && cfgs.Server.ListenPort == 0 {
		pcfg.GRPCServerPort = 0
	}
	return proxy.StartLocal(b, pcfg, tc, lg.Named("proxy"))
}

// startNamesrv starts the embedded name server, its KV config beside the store.
func startNamesrv(port int, consoleAddr, storeRoot string, tc *remoting.TLSConfig, lg *zap.Logger) (*namesrv.Namesrv, error) {
	cfg := namesrv.NewNamesrvConfig()
	cfg.ConsoleListenAddr = consoleAddr
	cfg.KVConfigPath = filepath.Join(storeRoot, "namesrv", "kvConfig.json")
	srv := namesrv.NewNettyServerConfig()
	srv.ListenPort = port
	srv.ListenAddr = ":" + strconv.Itoa(port)
	srv.TLS = tc
	ns, err := namesrv.New(cfg, srv, lg)
	if err != nil {
		return nil, err
	}
	return ns, ns.Start()
}

func shutdown(what string, f func(context.Context) error, lg *zap.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f(ctx); err != nil {
		lg.Error("shutdown failed", zap.String("component", what), zap.Error(err))
	}
}
