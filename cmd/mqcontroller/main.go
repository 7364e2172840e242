// Command mqcontroller runs a standalone controller, like Apache RocketMQ
// 5.x's ControllerStartup: -c config file (ControllerConfig keys, e.g.
// Apache's distribution/conf/controller/cluster-3n-independent/*.conf),
// -p print all settings, -m print the important ones, -h help. It logs
// with the name server's file layout (namesrv.log).
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
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

// started, when set (tests), is told the running controller.
var started func(*controller.Controller)

// run parses args, loads the configuration and serves until SIGINT/SIGTERM
// or until stop is closed (tests).
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("mqcontroller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	confFile := fs.String("c", "", "Controller config properties file")
	printAll := fs.Bool("p", false, "Print all config items")
	printImportant := fs.Bool("m", false, "Print important config items")
	logOpts := logging.Options{Role: logging.RoleNamesrv, Stderr: stderr}
	logOpts.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	cfg := controller.NewConfig()
	fileLogs := logOpts.FileOptions()
	if *confFile != "" {
		if _, err := props.LoadFile(*confFile, stderr, cfg, fileLogs); err != nil {
			fmt.Fprintln(stderr, err)
			return 255
		}
		fmt.Fprintf(stdout, "load config properties file OK, %s\n", *confFile)
	}
	logOpts.ApplyFile(fileLogs, fs)
	if *printAll || *printImportant {
		props.Print(stdout, *printImportant && !*printAll, cfg)
		return 0
	}
	lg, closeLogs, err := logging.New(logOpts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer func() { _ = lg.Sync(); _ = closeLogs() }()
	return serve(cfg, lg, stdout, stop)
}

func serve(cfg *controller.Config, lg *zap.Logger, stdout io.Writer, stop <-chan struct{}) int {
	c, err := controller.New(cfg, lg.Named("controller"))
	if err != nil {
		lg.Error("create controller failed", zap.Error(err))
		return 255
	}
	if err := c.Start(); err != nil {
		lg.Error("start controller failed", zap.Error(err))
		return 255
	}
	fmt.Fprintln(stdout, "The Controller boot success.")
	if started != nil {
		started(c)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-stop:
	}
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	if err := c.Shutdown(sctx); err != nil {
		lg.Error("shutdown failed", zap.Error(err))
		return 1
	}
	return 0
}
