package broker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// BenchmarkBrokerSendV2 measures SEND_MESSAGE_V2 round trips (128-byte
// body, ASYNC_FLUSH) over loopback with 16 concurrent senders.
func BenchmarkBrokerSendV2(b *testing.B) {
	benchSend(b, testutil.StartBroker(b, ""), "BenchSend")
}

// benchSend runs b.N SEND_MESSAGE_V2 round trips (128-byte body) to topic
// from 16 concurrent senders.
func benchSend(b *testing.B, br *broker.Broker, topic string) {
	c := newClientTB(b)
	addr := br.Addr().String()
	h := sendHeader(topic, 0, map[string]string{"TAGS": "t"})
	body := make([]byte, 128)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N/16 + 1
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				resp, err := c.InvokeSync(ctx, addr, sendRequest(code.SendMessageV2, h, body))
				cancel()
				if err != nil || resp.Code != code.Success {
					b.Errorf("send: %v %+v", err, resp)
					return
				}
			}
		}()
	}
	wg.Wait()
}
