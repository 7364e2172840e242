package namesrv

// UPDATE_NAMESRV_CONFIG / GET_NAMESRV_CONFIG, mirroring the 4.9.8
// DefaultRequestProcessor.updateConfig/getConfig and common Configuration.

import (
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// blackList is the set of keys UPDATE_NAMESRV_CONFIG refuses.
func (c *NamesrvConfig) blackList() []string {
	// consoleListenAddr (ours): a remote client must not open the console.
	out := []string{"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome", "consoleListenAddr"}
	return append(out, strings.Split(c.ConfigBlackList, ";")...)
}

func (p *DefaultRequestProcessor) updateConfig(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	p.lg.Info("update config called", zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	if req.Body == nil {
		return success(false), nil
	}
	m, err := props.ParseString(string(req.Body))
	if err != nil {
		return nil, remoting.NewError(code.SystemError, "string2Properties error")
	}
	cur := p.ns.Config()
	for k := range m {
		if slices.Contains(cur.blackList(), k) {
			return nil, remoting.NewError(code.NoPermission, "Can not update config in black list.")
		}
	}
	if err := p.ns.UpdateConfig(m); err != nil {
		return nil, remoting.NewError(code.SystemError, err.Error())
	}
	return success(false), nil
}

// UpdateConfig binds m onto a copy of the live config and the recorded netty
// config, swaps the copy in when it validates, and persists every setting to
// configStorePath (Configuration.update + persist).
func (n *Namesrv) UpdateConfig(m map[string]string) error {
	next := *n.Config()
	n.nettyMu.Lock()
	netty := *n.netty
	for _, w := range props.Bind(m, &next, &netty) {
		n.lg.Warn("update config", zap.String("warning", w))
	}
	if err := next.Validate(); err != nil {
		n.nettyMu.Unlock()
		return err
	}
	n.netty = &netty
	n.cfg.Store(&next)
	content := n.formatConfigLocked()
	n.nettyMu.Unlock()
	if err := writeFileAtomic(next.ConfigStorePath, []byte(content)); err != nil {
		n.lg.Error("persist namesrv config failed", zap.String("path", next.ConfigStorePath), zap.Error(err))
	}
	return nil
}

// formatConfigLocked renders all settings as "key=value" lines (the order is
// declaration order, not Java's Hashtable order).
func (n *Namesrv) formatConfigLocked() string {
	var b strings.Builder
	b.WriteString(props.Format(n.Config(), n.netty))
	keys := make([]string, 0, len(n.extra))
	for k := range n.extra {
		if _, declared := props.Get(k, n.Config(), n.netty); !declared {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k + "=" + n.extra[k] + "\n")
	}
	return b.String()
}

func (p *DefaultRequestProcessor) getConfig(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	p.ns.nettyMu.Lock()
	content := p.ns.formatConfigLocked()
	p.ns.nettyMu.Unlock()
	r := success(false)
	if content != "" {
		r.Body = []byte(content)
	}
	return r, nil
}
