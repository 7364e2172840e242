// Command mqbroker runs the broker, like Apache RocketMQ's BrokerStartup:
// -c config file, -n name server address list, -p print all settings,
// -m print the important ones, -h help. --enable-proxy also serves RocketMQ 5
// gRPC clients (local-mode proxy, 5.x's quick start), -pc names its
// rmq-proxy.json.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/logging"
	"github.com/rocketmq-go/rmq/internal/procs"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/tlsconfig"
	"github.com/rocketmq-go/rmq/proxy"
	"github.com/rocketmq-go/rmq/remoting"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

// run parses args, loads the configuration and serves until SIGINT/SIGTERM
// or until stop is closed (tests).
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("mqbroker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	confFile := fs.String("c", "", "Broker config properties file")
	printAll := fs.Bool("p", false, "Print all config item")
	printImportant := fs.Bool("m", false, "Print important config item")
	nsAddr := fs.String("n", "", "Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876'")
	cpuProfile := fs.String("cpuprofile", "", "Write a Go CPU profile of the whole run to this file (not in Java)")
	enableProxy := fs.Bool("enable-proxy", false, "Also serve RocketMQ 5 gRPC clients (local-mode proxy, grpcServerPort 8081)")
	proxyConf := fs.String("pc", "", "Proxy config file (rmq-proxy.json) used with --enable-proxy")
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
	if *nsAddr != "" {
		props.Bind(map[string]string{"namesrvAddr": *nsAddr}, cfgs.Broker)
	}
	if err := cfgs.ApplyOverrides(); err != nil {
		if errors.Is(err, broker.ErrSlaveBrokerID) {
			fmt.Fprint(stdout, "Slave's brokerId must be > 0") // Java's printf, no newline; exit(-3)
		} else {
			fmt.Fprintln(stderr, err)
		}
		return 253
	}
	if *printAll || *printImportant {
		props.Print(stdout, *printImportant && !*printAll, cfgs.Targets()...)
		return 0
	}
	logOpts.SubDir = logging.BrokerLogDir(cfgs.Broker.IsolateLogEnable, cfgs.Store.EnableDLegerCommitLog,
		cfgs.Broker.BrokerName, cfgs.Broker.BrokerID, cfgs.Store.DLegerSelfID)
	lg, closeLogs, err := logging.New(logOpts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer func() { _ = lg.Sync(); _ = closeLogs() }()
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			lg.Error("cpu profile failed", zap.Error(err))
			return 1
		}
		defer stopProfile()
	}
	if cfgs.Broker.RocketmqHome == "" {
		lg.Warn("rocketmqHome not set; set ROCKETMQ_HOME to match the java broker")
	}
	var pcfg *proxy.Config
	if *enableProxy {
		if pcfg, err = loadProxyConfig(*proxyConf); err != nil {
			lg.Error("load proxy config failed", zap.Error(err))
			return 255
		}
	} else if *proxyConf != "" {
		lg.Warn("-pc ignored: the proxy runs only with --enable-proxy", zap.String("pc", *proxyConf))
	}
	procs.Raise(lg, broker.EventLoops(cfgs.Server))
	return serve(cfgs, pcfg, lg, stdout, stop)
}

func serve(cfgs *broker.StartupConfigs, pcfg *proxy.Config, lg *zap.Logger, stdout io.Writer, stop <-chan struct{}) int {
	b, err := broker.New(cfgs.Broker, cfgs.Store, broker.Options{
		ServerConfig: cfgs.Server, ClientConfig: cfgs.Client, Logger: lg,
	})
	if err != nil {
		lg.Error("create broker failed", zap.Error(err))
		return 253
	}
	if err := b.Start(); err != nil {
		lg.Error("start broker failed", zap.Error(err))
		shutdown(b, lg)
		return 255
	}
	tip := fmt.Sprintf("The broker[%s, %s] boot success. serializeType=JSON", cfgs.Broker.BrokerName, b.BrokerAddr())
	if cfgs.Broker.NamesrvAddr != "" {
		tip += " and name server is " + cfgs.Broker.NamesrvAddr
	}
	fmt.Fprintln(stdout, tip)
	px, ok := startProxy(b, cfgs, pcfg, lg, stdout)
	if !ok {
		shutdown(b, lg)
		return 255
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-stop:
	}
	shutdownProxy(px, lg)
	return shutdown(b, lg)
}

// startCPUProfile profiles the process into path until the returned func
// is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

func shutdown(b *broker.Broker, lg *zap.Logger) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		lg.Error("shutdown failed", zap.Error(err))
		return 1
	}
	return 0
}
