package main

import (
	"context"
	"io"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/namesrv"
)

// startedController, when set (tests), is told the embedded controller.
var startedController func(*controller.Controller)

// printController prints the controller settings after the name server's,
// as Java's NamesrvStartup does with enableControllerInNamesrv.
func printController(w io.Writer, importantOnly bool, cfg *namesrv.NamesrvConfig, ccfg *controller.Config) {
	if cfg.EnableControllerInNamesrv {
		props.Print(w, importantOnly, ccfg)
	}
}

// startController runs the controller in this process when
// enableControllerInNamesrv=true (5.x NamesrvStartup.controllerManagerMain);
// the returned stop is a no-op otherwise.
func startController(cfg *namesrv.NamesrvConfig, ccfg *controller.Config, lg *zap.Logger) (func(context.Context) error, error) {
	if !cfg.EnableControllerInNamesrv {
		return func(context.Context) error { return nil }, nil
	}
	c, err := controller.New(ccfg, lg.Named("controller"))
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	if startedController != nil {
		startedController(c)
	}
	return c.Shutdown, nil
}
