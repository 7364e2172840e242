package broker

// AdminBrokerProcessor (4.9.8) maintenance codes and the ACL codes as a
// broker with aclEnable=false answers them: CLEAN_EXPIRED_CONSUMEQUEUE
// (306), DELETE_EXPIRED_COMMITLOG (329), CLEAN_UNUSED_TOPIC (316),
// UPDATE_AND_CREATE_ACL_CONFIG (50),
// DELETE_ACL_CONFIG (51), GET_BROKER_CLUSTER_ACL_INFO (52) and
// UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53).
//
// ACL disabled: Java looks the PlainAccessValidator up in an empty map and
// calls it; the NullPointerException is caught and its (null, on the JDK 8
// that 4.9.8 targets) message becomes the remark of the *_FAILED code.
// GET_BROKER_CLUSTER_ACL_INFO swallows the exception and returns null, so
// no answer is ever written: the caller times out, exactly as with Java.

import (
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (p *adminProcessor) addMiscHandlers(h map[int32]remoting.ProcessorFunc) {
	h[code.CleanExpiredConsumequeue] = p.cleanExpiredConsumeQueue
	h[code.DeleteExpiredCommitlog] = p.deleteExpiredCommitLog
	h[code.CleanUnusedTopic] = p.cleanUnusedTopic
	h[code.UpdateAndCreateAclConfig] = p.aclFailed(code.UpdateAndCreateAclConfigFailed, func() header.CommandCustomHeader { return &header.CreateAccessConfigRequestHeader{} })
	h[code.DeleteAclConfig] = p.aclFailed(code.DeleteAclConfigFailed, func() header.CommandCustomHeader { return &header.DeleteAccessConfigRequestHeader{} })
	h[code.UpdateGlobalWhiteAddrsConfig] = p.aclFailed(code.UpdateGlobalWhiteAddrsConfigFailed, func() header.CommandCustomHeader {
		return &header.UpdateGlobalWhiteAddrsConfigRequestHeader{}
	})
	h[code.GetBrokerClusterAclInfo] = p.getBrokerAclConfigVersion
	p.addACLHandlers(h) // aclEnable=true: acl_admin.go
}

func (p *adminProcessor) cleanExpiredConsumeQueue(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	p.b.store.CleanExpiredConsumerQueue()
	return success(), nil
}

func (p *adminProcessor) deleteExpiredCommitLog(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	p.b.store.ExecuteDeleteFilesManually()
	return success(), nil
}

func (p *adminProcessor) cleanUnusedTopic(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	p.b.store.CleanUnusedTopic(p.topicNames())
	return success(), nil
}

// aclFailed answers an ACL update code with its *_FAILED code (header
// decoded first, as Java does, so a missing field is reported instead).
func (p *adminProcessor) aclFailed(failed int32, newHeader func() header.CommandCustomHeader) remoting.ProcessorFunc {
	return func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		if err := newHeader().FromExtFields(req.ExtFields); err != nil {
			return nil, err
		}
		return codec.NewResponse(failed, ""), nil
	}
}

// getBrokerAclConfigVersion never answers with ACL disabled (see above).
func (p *adminProcessor) getBrokerAclConfigVersion(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return nil, nil
}
