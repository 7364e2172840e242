package controller

// UPDATE_CONTROLLER_CONFIG (1009) and GET_CONTROLLER_CONFIG (1010), as 5.x
// ControllerRequestProcessor.handleUpdateControllerConfig/GetControllerConfig
// over common Configuration.

import (
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// conf returns the current settings (read-only).
func (c *Controller) conf() *Config { return c.live.Load() }

// UpdateConfig binds m onto a copy of the current settings, swaps it in
// when it validates and persists every setting to configStorePath. Settings
// read per request (enableElectUncleanMaster, notifyBrokerRoleChanged,
// isProcessReadEvent, electMasterMaxRetryCount, controllerDLegerGroup) take
// effect at once; the others only at the next start, as in Java.
func (c *Controller) UpdateConfig(m map[string]string) error {
	c.cfgMu.Lock()
	defer c.cfgMu.Unlock()
	next := *c.conf()
	for _, w := range props.Bind(m, &next) {
		c.lg.Warn("update config", zap.String("warning", w))
	}
	if err := next.Validate(); err != nil {
		return err
	}
	c.live.Store(&next)
	if err := configfile.Persist(next.ConfigStorePath, []byte(props.Format(&next))); err != nil {
		c.lg.Error("persist controller config failed", zap.String("path", next.ConfigStorePath), zap.Error(err))
	}
	return nil
}

func (c *Controller) getConfig(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	resp := codec.NewResponse(code.Success, "")
	resp.Body = []byte(props.Format(c.conf()))
	return resp, nil
}

func (c *Controller) updateConfig(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	c.lg.Info("update config called", zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	if req.Body == nil {
		return codec.NewResponse(code.Success, ""), nil
	}
	m, err := props.ParseString(string(req.Body))
	if err != nil {
		return codec.NewResponse(code.SystemError, "string2Properties error"), nil
	}
	black := strings.Split(c.conf().ConfigBlackList, ";")
	for k := range m {
		if slices.Contains(black, k) {
			return codec.NewResponse(code.NoPermission, "Can not update config in black list."), nil
		}
	}
	if err := c.UpdateConfig(m); err != nil {
		return codec.NewResponse(code.SystemError, err.Error()), nil
	}
	return codec.NewResponse(code.Success, ""), nil
}

// ConfigStorePath is where UpdateConfig persists the settings.
func (c *Controller) ConfigStorePath() string { return c.conf().ConfigStorePath }
