package broker

// The ACL admin codes of AdminBrokerProcessor (4.9.8) with aclEnable=true:
// UPDATE_AND_CREATE_ACL_CONFIG (50), DELETE_ACL_CONFIG (51),
// GET_BROKER_CLUSTER_ACL_INFO (52) and UPDATE_GLOBAL_WHITE_ADDRS_CONFIG
// (53). Like Java, 50, 51 and 53 write their SUCCESS directly, in the
// broker's own serialization and with neither remark nor extFields; their
// *_FAILED answers and 52's answer follow the request's serialization.
// With aclEnable=false admin_misc.go answers them.

import (
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (p *adminProcessor) addACLHandlers(h map[int32]remoting.ProcessorFunc) {
	if p.b.acl == nil {
		return
	}
	h[code.UpdateAndCreateAclConfig] = p.updateAccessConfig
	h[code.DeleteAclConfig] = p.deleteAccessConfig
	h[code.UpdateGlobalWhiteAddrsConfig] = p.updateGlobalWhiteAddrs
	h[code.GetBrokerClusterAclInfo] = p.getACLVersion
}

// aclSuccess is the SUCCESS Java writes itself: the broker's serialization.
func (p *adminProcessor) aclSuccess(ctx *remoting.Context) *codec.RemotingCommand {
	ctx.ForceSerializeType(p.b.serializeType)
	return codec.NewResponse(code.Success, "")
}

func (p *adminProcessor) updateAccessConfig(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.CreateAccessConfigRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	c := &acl.AccessConfig{AccessKey: h.AccessKey, SecretKey: h.SecretKey, Admin: h.Admin,
		DefaultTopicPerm: h.DefaultTopicPerm, DefaultGroupPerm: h.DefaultGroupPerm}
	c.WhiteRemoteAddress, c.HasWhite = req.ExtFields["whiteRemoteAddress"]
	if v, ok := req.ExtFields["topicPerms"]; ok {
		c.TopicPerms = javaSplit(v, ",")
	}
	if v, ok := req.ExtFields["groupPerms"]; ok {
		c.GroupPerms = javaSplit(v, ",")
	}
	p.lg.Info("update acl config", zap.String("accessKey", h.AccessKey),
		zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	if err := p.b.acl.UpdateAccessConfig(c); err != nil {
		p.lg.Error("update acl config failed", zap.String("accessKey", h.AccessKey), zap.Error(err))
		return codec.NewResponse(code.UpdateAndCreateAclConfigFailed, aclMessage(err)), nil
	}
	return p.aclSuccess(ctx), nil
}

func (p *adminProcessor) deleteAccessConfig(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.DeleteAccessConfigRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	p.lg.Info("delete acl config", zap.String("accessKey", h.AccessKey),
		zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	ok, err := p.b.acl.DeleteAccessConfig(h.AccessKey)
	switch {
	case err != nil:
		p.lg.Error("delete acl config failed", zap.String("accessKey", h.AccessKey), zap.Error(err))
		return codec.NewResponse(code.DeleteAclConfigFailed, aclMessage(err)), nil
	case !ok:
		return codec.NewResponse(code.DeleteAclConfigFailed,
			"The accesskey["+h.AccessKey+"] corresponding to accessConfig has been deleted failed."), nil
	}
	return p.aclSuccess(ctx), nil
}

func (p *adminProcessor) updateGlobalWhiteAddrs(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.UpdateGlobalWhiteAddrsConfigRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	ok, err := p.b.acl.UpdateGlobalWhiteAddrs(javaSplit(h.GlobalWhiteAddrs, ","), h.AclFileFullPath)
	switch {
	case err != nil:
		p.lg.Error("update global white addresses failed", zap.Error(err))
		return codec.NewResponse(code.UpdateGlobalWhiteAddrsConfigFailed, aclMessage(err)), nil
	case !ok:
		return codec.NewResponse(code.UpdateGlobalWhiteAddrsConfigFailed,
			"The globalWhiteAddresses["+h.GlobalWhiteAddrs+"] has been updated failed."), nil
	}
	return p.aclSuccess(ctx), nil
}

func (p *adminProcessor) getACLVersion(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	cfg := p.b.Config()
	h := header.GetBrokerAclConfigResponseHeader{
		Version:           p.b.acl.Version().JSON(),
		AllAclFileVersion: p.b.acl.AllVersionsJSON(),
		BrokerName:        cfg.BrokerName,
		BrokerAddr:        p.b.BrokerAddr(),
		ClusterName:       cfg.BrokerClusterName,
	}
	resp := success()
	resp.ExtFields = h.ToExtFields()
	return resp, nil
}

// aclMessage is the exception message Java puts in the *_FAILED remark.
func aclMessage(err error) string {
	var ae *acl.Error
	if errors.As(err, &ae) {
		return ae.Msg
	}
	return err.Error()
}

// javaSplit is String.split with a literal separator: trailing empty
// strings are dropped, "" gives [""].
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 1 && parts[0] == "" && s != "" {
		return []string{} // only separators: an empty list
	}
	return parts
}
