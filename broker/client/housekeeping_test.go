package client

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestConsumerManagerOverRealConnections registers two consumers by real
// HEART_BEAT requests; when one connection closes (as the Go client does on
// shutdown, without UNREGISTER_CLIENT) the broker forgets it and notifies
// the other over its own connection.
func TestConsumerManagerOverRealConnections(t *testing.T) {
	lg := zaptest.NewLogger(t)
	pm := NewProducerManager(Options{Logger: lg})
	listener := &DefaultConsumerIdsChangeListener{Logger: lg}
	cm := NewConsumerManager(listener, Options{Logger: lg})
	hk := NewHousekeeping(pm, cm, time.Hour)

	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, lg)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetChannelEventListener(hk)
	srv.RegisterProcessor(code.HeartBeat, remoting.ProcessorFunc(func(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		hb, err := body.DecodeHeartbeatData(req.Body)
		if err != nil {
			return nil, err
		}
		for _, c := range hb.ConsumerDataSet {
			ci := NewClientChannelInfo(ctx.Channel, hb.ClientID, req.Language, req.Version, time.Now())
			cm.RegisterConsumer(c.GroupName, ci, c.ConsumeType, c.MessageModel, c.ConsumeFromWhere, c.SubscriptionDataSet, true)
		}
		for _, p := range hb.ProducerDataSet {
			pm.RegisterProducer(p.GroupName, NewClientChannelInfo(ctx.Channel, hb.ClientID, req.Language, req.Version, time.Now()))
		}
		return codec.NewResponse(code.Success, ""), nil
	}), remoting.NewPool("heartbeat", 1, 16))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	hk.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hk.Stop(ctx)
		_ = srv.Shutdown(ctx)
	})
	addr := srv.Addr().String()

	var notified atomic.Int32
	newClient := func(id string) *remoting.Client {
		c := remoting.NewClient(remoting.NewNettyClientConfig(), lg)
		c.RegisterProcessor(code.NotifyConsumerIdsChanged, remoting.ProcessorFunc(func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			if req.Ext("consumerGroup") == "cg" {
				notified.Add(1)
			}
			return nil, nil
		}), remoting.NewPool("notify-"+id, 1, 16))
		hb := &body.HeartbeatData{ClientID: id, ProducerDataSet: []body.ProducerData{{GroupName: "CLIENT_INNER_PRODUCER"}},
			ConsumerDataSet: []body.ConsumerData{{GroupName: "cg", ConsumeType: body.ConsumePassively, MessageModel: body.Clustering,
				ConsumeFromWhere: body.ConsumeFromLastOffset, SubscriptionDataSet: []body.SubscriptionData{{Topic: "T", SubString: "*", ExpressionType: "TAG"}}}}}
		resp, err := c.InvokeSync(t.Context(), addr, codec.NewRequest(code.HeartBeat, nil, hb.Encode()))
		if err != nil || resp.Code != code.Success {
			t.Fatalf("heartbeat: %v %+v", err, resp)
		}
		return c
	}
	c1 := newClient("client-1")
	defer func() { _ = c1.Shutdown(context.Background()) }()
	c2 := newClient("client-2")

	g := cm.GetConsumerGroupInfo("cg")
	if g == nil || len(g.AllClientIDs()) != 2 || pm.FindChannel("client-2") == nil {
		t.Fatalf("registration failed: %v", g)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		// client-1 on its own join, then client-1 and client-2 on client-2's join.
		if n := notified.Load(); n != 3 {
			return fmt.Errorf("%d NOTIFY_CONSUMER_IDS_CHANGED so far, want 3", n)
		}
		return nil
	})
	before := notified.Load()

	if err := c2.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		ids := cm.GetConsumerGroupInfo("cg").AllClientIDs()
		if len(ids) != 1 || ids[0] != "client-1" {
			return fmt.Errorf("client ids %v", ids)
		}
		if pm.FindChannel("client-2") != nil {
			return errors.New("producer channel still registered")
		}
		if notified.Load() != before+1 {
			return errors.New("client-1 not notified of the departure")
		}
		return nil
	})
}
