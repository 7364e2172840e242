package proxy

import (
	"context"
	"testing"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestProxyACLRenewalSignedAsClient: a handle renewal the proxy makes on
// its own for a client is signed with the account the client was admitted
// as (and left unsigned for a client without one).
func TestProxyACLRenewalSignedAsClient(t *testing.T) {
	be, err := NewClusterBackend([]string{"127.0.0.1:1"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close(context.Background()) })
	srv, err := New(NewConfig(), be, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.svc.clients.touch(callInfo{ClientID: "signed"}).creds.Store(&credentials{accessKey: "ak1", secretKey: "secret1"})
	srv.svc.clients.touch(callInfo{ClientID: "plain"})

	req := codec.NewRequest(code.ChangeMessageInvisibletime, map[string]string{"topic": "T", "consumerGroup": "G"}, nil)
	signFor(srv.svc.cons.renew.as("signed"), req)
	sig := req.ExtFields[acl.KeySignature]
	if req.ExtFields[acl.KeyAccessKey] != "ak1" || sig == "" || sig != acl.Sign(acl.Content(req.ExtFields, nil), "secret1") {
		t.Fatalf("renewal for a signed-in client: ext %v", req.ExtFields)
	}
	plain := codec.NewRequest(code.ChangeMessageInvisibletime, map[string]string{"topic": "T"}, nil)
	signFor(srv.svc.cons.renew.as("plain"), plain)
	if _, ok := plain.ExtFields[acl.KeyAccessKey]; ok {
		t.Fatalf("renewal for a client without an account was signed: %v", plain.ExtFields)
	}
}
