package broker

// The ACL 1.0 check every request passes before its processor runs, on
// the main and the fast port (Java: BrokerController.initialAcl registers
// the PlainAccessValidator as a server RPCHook; NettyRemotingAbstract runs
// it on the processor's executor, inside the try whose catch answers
// SYSTEM_ERROR with RemotingHelper.exceptionSimpleDesc).

import (
	"errors"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// initACL builds the validator when aclEnable is true; a configuration it
// cannot enforce makes New fail instead of running unprotected.
func (b *Broker) initACL(opts Options) error {
	cfg := b.Config()
	if !cfg.ACLEnable {
		return nil
	}
	v, err := acl.New(acl.Config{Home: cfg.RocketmqHome, PlainFile: opts.ACLPlainFile, Logger: b.lg.Named("acl")})
	if err != nil {
		return err
	}
	b.acl = v
	return nil
}

// withACL puts the ACL check in front of p (unchanged when ACL is off).
func (b *Broker) withACL(p remoting.Processor) remoting.Processor {
	if b.acl == nil {
		return p
	}
	return &aclProcessor{b: b, next: p}
}

type aclProcessor struct {
	b    *Broker
	next remoting.Processor
}

// Inline keeps the wrapped processor's choice: the check itself is CPU only.
func (a *aclProcessor) Inline(c int32) bool {
	ip, ok := a.next.(remoting.InlineProcessor)
	return ok && ip.Inline(c)
}

func (a *aclProcessor) ProcessRequest(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	r, err := acl.Parse(req, ctx.Channel.RemoteAddr())
	if err == nil {
		err = a.b.acl.Validate(r)
	}
	if err == nil {
		return a.next.ProcessRequest(ctx, req)
	}
	var ae *acl.Error
	if !errors.As(err, &ae) {
		return nil, err
	}
	if ce := a.b.lg.Check(zap.DebugLevel, "acl refused request"); ce != nil {
		ce.Write(zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.Int32("code", req.Code),
			zap.String("accessKey", req.Ext(acl.KeyAccessKey)), zap.Error(err))
	}
	// Java writes this answer from the catch block, in its own serialization.
	ctx.ForceSerializeType(a.b.serializeType)
	return nil, remoting.NewError(code.SystemError, ae.Remark())
}
