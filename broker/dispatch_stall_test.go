package broker_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// startBrokerWithStoreOptions is testutil.StartBroker with store options
// (here: fast dispatch retries) and a client to it.
func startBrokerWithStoreOptions(t *testing.T, opts ...store.Option) (*consumeEnv, *store.MessageStoreConfig) {
	t.Helper()
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	srv := broker.NewNettyServerConfig()
	srv.ListenPort, srv.ListenAddr = 0, "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0",
		Logger: zaptest.NewLogger(t).Named("broker"), StoreOptions: opts})
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("broker.Shutdown: %v", err)
		}
	})
	if err := b.Start(); err != nil {
		t.Fatalf("broker.Start: %v", err)
	}
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return &consumeEnv{t: t, b: b, c: c, addr: b.Addr().String()}, scfg
}

// trySend sends body to topic/0 and returns the answer.
func (e *consumeEnv) trySend(topic, body string) *codec.RemotingCommand {
	e.t.Helper()
	h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: 0, BornTimestamp: time.Now().UnixMilli()}
	return e.call(codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(body)))
}

// pullAll pulls topic/0 from offset 0 until the end and returns the bodies.
func (e *consumeEnv) pullAll(topic string) []string {
	e.t.Helper()
	var got []string
	for off := int64(0); ; {
		resp := e.call(pullReq("stallGroup", topic, 0, off, 0, "*", "TAG"))
		if resp.Code != code.Success {
			return got
		}
		ms := decodeBody(e.t, resp.Body)
		for _, m := range ms {
			got = append(got, string(m.Body))
		}
		off = pullHeader(e.t, resp).NextBeginOffset
	}
}

const serviceNotAvailablePrefix = "service not available now. It may be caused by one of the following reasons: the broker's disk is full ["

// TestBrokerDispatchStallRefusesSendsThenRecovers: when the consume queue
// cannot create its file, sends are acknowledged until the dispatcher has
// failed 30 times, then refused with Java's SERVICE_NOT_AVAILABLE; the
// runtime info says how far dispatch is behind and why. Once the file can
// be created, dispatch resumes where it stopped, sends are accepted again
// and every acknowledged message is consumable, in order.
func TestBrokerDispatchStallRefusesSendsThenRecovers(t *testing.T) {
	t.Parallel()
	e, scfg := startBrokerWithStoreOptions(t, store.WithDispatchRetry(2*time.Millisecond, 20*time.Millisecond))
	const topic = "StallTopic"
	// A regular file where the queue's directory must go: no consume-queue
	// file can be created, even by root.
	block := filepath.Join(scfg.ConsumeQueueDir(), topic)
	if err := os.MkdirAll(filepath.Dir(block), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var acked []string
	var refused *codec.RemotingCommand
	testutil.Eventually(t, 20*time.Second, func() error {
		msg := "m" + strconv.Itoa(len(acked))
		resp := e.trySend(topic, msg)
		switch resp.Code {
		case code.Success:
			acked = append(acked, msg)
			return errors.New("send still acknowledged")
		case code.ServiceNotAvailable:
			refused = resp
			return nil
		}
		t.Fatalf("send answered %s %q", code.ResponseName(resp.Code), resp.Remark)
		return nil
	})
	if len(acked) == 0 || !strings.HasPrefix(refused.Remark, serviceNotAvailablePrefix) ||
		!strings.HasSuffix(refused.Remark, "], messages are put to the slave, message store has been shut down, etc.") {
		t.Fatalf("acked %d, refusal remark %q", len(acked), refused.Remark)
	}
	info := e.runtimeInfo()
	if behind, _ := strconv.ParseInt(info["dispatchBehindBytes"], 10, 64); behind <= 0 {
		t.Fatalf("dispatchBehindBytes %q while stalled", info["dispatchBehindBytes"])
	}
	if de := info["dispatchError"]; !strings.Contains(de, "consume queue "+topic+"-0 cannot be written") ||
		!strings.Contains(de, "sends refused") {
		t.Fatalf("dispatchError %q", de)
	}
	if got := e.pullAll(topic); len(got) != 0 {
		t.Fatalf("consumed %v before the queue could be written", got)
	}

	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, func() error {
		msg := "m" + strconv.Itoa(len(acked))
		resp := e.trySend(topic, msg)
		if resp.Code != code.Success {
			return fmt.Errorf("send answered %s %q", code.ResponseName(resp.Code), resp.Remark)
		}
		acked = append(acked, msg)
		return nil
	})
	e.waitDispatched(topic, 0, int64(len(acked)))
	if got := e.pullAll(topic); strings.Join(got, ",") != strings.Join(acked, ",") {
		t.Fatalf("consumed %v, acknowledged %v", got, acked)
	}
	info = e.runtimeInfo()
	if info["dispatchBehindBytes"] != "0" || info["dispatchError"] != "" {
		t.Fatalf("after recovery dispatchBehindBytes %q dispatchError %q", info["dispatchBehindBytes"], info["dispatchError"])
	}
}
