// Command mqproxy runs the gRPC proxy for RocketMQ 5 clients, like 5.x's
// ProxyStartup: -pc rmq-proxy.json, -pm cluster|local (proxyMode), -n name
// server addresses, -bc the broker config of local mode (the broker then
// runs in this process).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/logging"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/tlsconfig"
	"github.com/rocketmq-go/rmq/proxy"
	"github.com/rocketmq-go/rmq/remoting"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("mqproxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	proxyConf := fs.String("pc", "", "Proxy config file (rmq-proxy.json)")
	mode := fs.String("pm", "", "Proxy mode: cluster or local (overrides proxyMode)")
	nsAddr := fs.String("n", "", "Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876'")
	brokerConf := fs.String("bc", "", "Broker config properties file (local mode)")
	args, defines := props.SplitDefines(args)
	logOpts := logging.Options{Role: logging.RoleBroker, Stderr: stderr}
	logOpts.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	pcfg, err := proxy.LoadConfigFile(*proxyConf)
	if err == nil && *mode != "" {
		pcfg.ProxyMode = *mode
		err = pcfg.Validate()
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 255
	}
	if *nsAddr != "" {
		pcfg.NamesrvAddr = *nsAddr
	}
	tc := remoting.NewTLSConfig()
	tlsconfig.Apply(tc, defines, stderr)
	logOpts.SubDir = "proxy"
	lg, closeLogs, err := logging.New(logOpts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer func() { _ = lg.Sync(); _ = closeLogs() }()
	if pcfg.Mode() == proxy.ModeLocal {
		return runLocal(pcfg, *brokerConf, tc, lg, stdout, stderr, stop)
	}
	px, err := proxy.StartCluster(pcfg, nil, tc, lg)
	if err != nil {
		lg.Error("start proxy failed", zap.Error(err))
		return 255
	}
	defer stopAll(lg, px.Shutdown)
	fmt.Fprintf(stdout, "The proxy boot success. grpc %s, proxyMode=cluster, name server %s\n", px.Server.Addr(), pcfg.NamesrvAddr)
	wait(stop)
	return 0
}

// runLocal starts a broker from brokerConf and a local-mode proxy in front
// of it.
func runLocal(pcfg *proxy.Config, brokerConf string, tc *remoting.TLSConfig, lg *zap.Logger, stdout, stderr io.Writer, stop <-chan struct{}) int {
	cfgs := broker.NewStartupConfigs()
	if _, err := props.LoadFile(brokerConf, stderr, cfgs.Targets()...); err != nil {
		fmt.Fprintln(stderr, err)
		return 255
	}
	if cfgs.Broker.NamesrvAddr == "" {
		cfgs.Broker.NamesrvAddr = pcfg.NamesrvAddr
	}
	cfgs.Server.TLS, cfgs.Client.TLS = tc, tc
	if err := cfgs.ApplyOverrides(); err != nil {
		fmt.Fprintln(stderr, err)
		return 253
	}
	b, err := broker.New(cfgs.Broker, cfgs.Store, broker.Options{ServerConfig: cfgs.Server, ClientConfig: cfgs.Client, Logger: lg.Named("broker")})
	if err != nil {
		lg.Error("create broker failed", zap.Error(err))
		return 253
	}
	defer stopAll(lg, b.Shutdown)
	if err := b.Start(); err != nil {
		lg.Error("start broker failed", zap.Error(err))
		return 255
	}
	px, err := proxy.StartLocal(b, pcfg, tc, lg.Named("proxy"))
	if err != nil {
		lg.Error("start proxy failed", zap.Error(err))
		return 255
	}
	defer stopAll(lg, px.Shutdown)
	fmt.Fprintf(stdout, "The proxy boot success. grpc %s, proxyMode=local, broker[%s, %s]\n", px.Server.Addr(), cfgs.Broker.BrokerName, b.BrokerAddr())
	wait(stop)
	return 0
}

func wait(stop <-chan struct{}) {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-stop:
	}
}

func stopAll(lg *zap.Logger, f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f(ctx); err != nil {
		lg.Error("shutdown failed", zap.Error(err))
	}
}
