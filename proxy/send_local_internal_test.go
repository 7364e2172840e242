package proxy

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestLocalSendSkipsPipe: in local mode a send reaches the broker's send
// processor and is stored without the proxy dialling its in-process pipe;
// other requests still use the pipe.
func TestLocalSendSkipsPipe(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	be, err := NewLocalBackend(b, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	rb := be.(*remotingBackend)
	var dials atomic.Int32
	rb.rc.SetDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		dials.Add(1)
		return rb.dialLocal(ctx, addr)
	})
	t.Cleanup(func() { _ = be.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addr := b.BrokerAddr()
	h := &header.SendMessageRequestHeaderV2{ProducerGroup: "pg", Topic: "LocalDirect", DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, BornTimestamp: time.Now().UnixMilli(),
		Properties: message.MarshalProperties(map[string]string{message.PropertyUniqClientMessageIDKeyidx: "id1"})}
	for i := range 3 {
		resp, err := be.Invoke(ctx, addr, codec.NewRequest(code.SendMessageV2, h.ToExtFields(), []byte("hello")))
		if err != nil || resp.Code != code.Success {
			t.Fatalf("send %d: %v %+v", i, err, resp)
		}
		var rh header.SendMessageResponseHeader
		if err := rh.FromExtFields(resp.ExtFields); err != nil || rh.QueueOffset != int64(i) || rh.MsgID == "" {
			t.Fatalf("send %d answer: %v %+v", i, err, rh)
		}
	}
	if n := dials.Load(); n != 0 {
		t.Fatalf("sends dialled the pipe %d times", n)
	}
	if resp, err := be.Invoke(ctx, addr, codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil)); err != nil || resp.Code != code.Success {
		t.Fatalf("runtime info: %v %+v", err, resp)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("other requests dialled %d times, want 1", n)
	}
}
