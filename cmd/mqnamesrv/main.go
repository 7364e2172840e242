// Command mqnamesrv runs the name server, like Apache RocketMQ's
// NamesrvStartup: -c config file, -p print all settings, -m print the
// important ones, -n accepted for compatibility, -h help.
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

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/internal/logging"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/tlsconfig"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

// started, when set (tests), is told the running name server.
var started func(*namesrv.Namesrv)

// run parses args, loads the configuration and serves until SIGINT/SIGTERM
// or until stop is closed (tests).
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("mqnamesrv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	confFile := fs.String("c", "", "Name server config properties file")
	printAll := fs.Bool("p", false, "Print all config items")
	printImportant := fs.Bool("m", false, "Print important config items")
	nsAddr := fs.String("n", "", "Name server address list, eg: 192.168.0.1:9876;192.168.0.2:9876")
	consoleAddr := fs.String("console", "", "Serve the read-only web console on this address, eg: 127.0.0.1:8080 (consoleListenAddr)")
	args, defines := props.SplitDefines(args)
	logOpts := logging.Options{Role: logging.RoleNamesrv, Stderr: stderr}
	logOpts.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	cfg, netty, ccfg := namesrv.NewNamesrvConfig(), namesrv.NewNettyServerConfig(), controller.NewConfig()
	netty.TLS = remoting.NewTLSConfig()
	fileLogs := logOpts.FileOptions()
	fileProps, err := loadFile(*confFile, stdout, stderr, cfg, netty, ccfg, fileLogs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 255
	}
	tlsconfig.Apply(netty.TLS, defines, stderr)
	logOpts.ApplyFile(fileLogs, fs)
	if *consoleAddr != "" {
		cfg.ConsoleListenAddr = *consoleAddr
	}
	if *printAll || *printImportant {
		props.Print(stdout, *printImportant && !*printAll, cfg, netty)
		printController(stdout, *printImportant && !*printAll, cfg, ccfg)
		return 0
	}
	if *nsAddr != "" {
		// Java binds -n onto NamesrvConfig, which has no such field: no effect.
		props.Bind(map[string]string{"namesrvAddr": *nsAddr}, cfg)
	}
	lg, closeLogs, err := logging.New(logOpts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer func() { _ = lg.Sync(); _ = closeLogs() }()
	if cfg.RocketmqHome == "" {
		lg.Warn("rocketmqHome not set; set ROCKETMQ_HOME to match the java name server")
	}
	return serve(cfg, netty, ccfg, fileProps, lg, stdout, stop)
}

// loadFile binds the -c properties file onto the configs, as Java does,
// its tls.* keys onto netty.TLS (which Java reads as -D options only) and
// our logging keys.
func loadFile(path string, stdout, stderr io.Writer, cfg *namesrv.NamesrvConfig, netty *remoting.NettyServerConfig, ccfg *controller.Config, logs *logging.FileOptions) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	m, err := props.LoadFile(path, stderr, cfg, netty, netty.TLS, ccfg, logs, &cfg.Metrics)
	if err != nil {
		return nil, err
	}
	cfg.ConfigStorePath = path
	fmt.Fprintf(stdout, "load config properties file OK, %s\n", path)
	return m, nil
}

func serve(cfg *namesrv.NamesrvConfig, netty *remoting.NettyServerConfig, ccfg *controller.Config, fileProps map[string]string, lg *zap.Logger, stdout io.Writer, stop <-chan struct{}) int {
	ns, err := namesrv.New(cfg, netty, lg)
	if err != nil {
		lg.Error("create name server failed", zap.Error(err))
		return 255
	}
	ns.RegisterConfig(fileProps)
	if err := ns.Start(); err != nil {
		lg.Error("start name server failed", zap.Error(err))
		return 255
	}
	stopController, err := startController(cfg, ccfg, lg)
	if err != nil {
		lg.Error("start controller failed", zap.Error(err))
		_ = ns.Shutdown(context.Background())
		return 255
	}
	fmt.Fprintln(stdout, "The Name Server boot success. serializeType=JSON")
	if a := ns.ConsoleAddr(); a != nil {
		fmt.Fprintf(stdout, "Console on http://%s/\n", a)
	}
	if started != nil {
		started(ns)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-stop:
	}
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	if err := errors.Join(stopController(sctx), ns.Shutdown(sctx)); err != nil {
		lg.Error("shutdown failed", zap.Error(err))
		return 1
	}
	return 0
}
