package client

import (
	"fmt"
	"sync"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// TestConsumerManagerConcurrent hammers the tables from many goroutines (run
// with -race): heartbeats, closes, scans, lookups and lock calls interleave.
func TestConsumerManagerConcurrent(t *testing.T) {
	clk := newFakeClock()
	rec := &recorder{}
	cm := NewConsumerManager(rec, Options{Now: clk.Now})
	pm := NewProducerManager(Options{Now: clk.Now})
	lm := NewRebalanceLockManager(0, Options{Now: clk.Now})
	subs := []body.SubscriptionData{sub("T", "*", 1)}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				ch := newFakeChannel()
				id := fmt.Sprintf("c-%d-%d", w, i)
				group := fmt.Sprintf("g%d", i%3)
				cm.RegisterConsumer(group, info(ch, id, clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
				pm.RegisterProducer(group, info(ch, id, clk))
				lm.TryLockBatch(group, mqs(int32(i%4)), id)
				_ = cm.FindChannel(group, id)
				_ = cm.QueryTopicConsumeByWho("T")
				if g := cm.GetConsumerGroupInfo(group); g != nil {
					_ = g.ConsumerConnection().Encode()
				}
				if i%2 == 0 {
					cm.DoChannelCloseEvent(ch.RemoteAddr(), ch)
					pm.DoChannelCloseEvent(ch.RemoteAddr(), ch)
					lm.UnlockBatch(group, mqs(int32(i%4)), id)
				}
				if i%20 == 0 {
					cm.ScanNotActiveChannel()
					pm.ScanNotActiveChannel()
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, g := range cm.Groups() {
		total += len(cm.GetConsumerGroupInfo(g).AllClientIDs())
	}
	if total != 8*30 {
		t.Fatalf("%d consumers registered, want %d", total, 8*30)
	}
}
