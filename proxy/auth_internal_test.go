package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// signingBrokers is fakeBrokers behind the backends' signing step.
type signingBrokers struct{ *fakeBrokers }

func (s signingBrokers) callBroker(ctx context.Context, brokerName string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	signFor(ctx, req)
	return s.fakeBrokers.callBroker(ctx, brokerName, req)
}

// TestProxyACLRenewalSignedAsClient: a handle renewal or give-back the
// proxy makes on its own for a client is signed with the account the
// message was received as (and left unsigned for a receive without one),
// also once the client's session is gone.
func TestProxyACLRenewalSignedAsClient(t *testing.T) {
	f := &fakeBrokers{route: twoBrokerRoute(), answer: func(string, *codec.RemotingCommand) *codec.RemotingCommand { return success() }}
	c := newConsumer(nil, NewConsumeConfig(), signingBrokers{f})
	c.cfg.RenewAheadTimeMillis = 60_000 // every held handle is due
	alive := map[string]bool{"signed": true, "plain": true}
	c.renew = newRenewer(c, func(id string) bool { return alive[id] })
	msg := func(offset int64) *message.MessageExt {
		m := storedMsg("T", "", offset, 0)
		m.Properties[propPopCK] = ReceiptHandle{RetrieveTime: time.Now().UnixMilli(), InvisibleTime: 30000, TopicType: "0",
			BrokerName: "a", QueueID: 0, Offset: offset, CommitLogOffset: 1000 + offset}.Encode()
		return m
	}
	signed := withCredentials(context.Background(), &credentials{accessKey: "ak1", secretKey: "secret1"})
	c.renew.hold(signed, "signed", "G", "T", []*message.MessageExt{msg(1)})
	c.renew.hold(context.Background(), "plain", "G", "T", []*message.MessageExt{msg(2)})
	check := func(what string, n int) {
		t.Helper()
		waitFor(t, func() bool { return len(f.callsOf(code.ChangeMessageInvisibletime)) == n })
		c.renew.wg.Wait()
		for _, req := range f.callsOf(code.ChangeMessageInvisibletime)[n-2:] {
			sig := req.ExtFields[acl.KeySignature]
			switch req.Ext("offset") {
			case "1":
				if req.ExtFields[acl.KeyAccessKey] != "ak1" || sig == "" || sig != acl.Sign(acl.Content(req.ExtFields, nil), "secret1") {
					t.Errorf("%s for a signed-in client: ext %v", what, req.ExtFields)
				}
			default:
				if _, ok := req.ExtFields[acl.KeyAccessKey]; ok {
					t.Errorf("%s for a client without an account was signed: %v", what, req.ExtFields)
				}
			}
		}
	}
	c.renew.renewDue(nil)
	check("renewal", 2)
	alive["signed"], alive["plain"] = false, false // gone: given back
	c.renew.renewDue(nil)
	check("give-back", 4)
	if r := f.callsOf(code.ChangeMessageInvisibletime)[3]; r.Ext("invisibleTime") != "1000" {
		t.Errorf("give-back with invisible time %s, want 1000", r.Ext("invisibleTime"))
	}
}
