package client

import (
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

func TestProducerManager(t *testing.T) {
	clk := newFakeClock()
	pm := NewProducerManager(Options{Logger: zaptest.NewLogger(t), Now: clk.Now})
	c1, c2 := newFakeChannel(), newFakeChannel()
	pm.RegisterProducer("pg", info(c1, "p1", clk))
	pm.RegisterProducer("pg", info(c2, "p2", clk))
	pm.RegisterProducer("CLIENT_INNER_PRODUCER", info(c1, "p1", clk))

	if pm.FindChannel("p2") != c2 || pm.FindChannel("nobody") != nil {
		t.Fatal("FindChannel")
	}
	if n := len(pm.ChannelInfos("pg")); n != 2 {
		t.Fatalf("pg has %d channels", n)
	}
	seen := map[Channel]bool{}
	for range 4 {
		seen[pm.GetAvailableChannel("pg")] = true
	}
	if !seen[c1] || !seen[c2] {
		t.Fatal("GetAvailableChannel must round-robin")
	}
	c1.Close()
	for range 4 {
		if pm.GetAvailableChannel("pg") != c2 {
			t.Fatal("GetAvailableChannel must skip closed channels")
		}
	}
	if pm.GetAvailableChannel("none") != nil {
		t.Fatal("unknown group")
	}

	pm.DoChannelCloseEvent(c1.RemoteAddr(), c1)
	if pm.FindChannel("p1") != nil || len(pm.ChannelInfos("pg")) != 1 {
		t.Fatal("close event must remove the channel everywhere")
	}
	if _, ok := pm.GroupChannels()["CLIENT_INNER_PRODUCER"]; !ok {
		t.Fatal("4.9.8 keeps an emptied group after a close event")
	}

	pm.UnregisterProducer("pg", info(c2, "p2", clk))
	if _, ok := pm.GroupChannels()["pg"]; ok || pm.FindChannel("p2") != nil {
		t.Fatal("unregistering the last producer removes the group")
	}
}

func TestProducerManagerExpiry(t *testing.T) {
	clk := newFakeClock()
	pm := NewProducerManager(Options{Logger: zaptest.NewLogger(t), Now: clk.Now})
	c1, c2 := newFakeChannel(), newFakeChannel()
	pm.RegisterProducer("pg", info(c1, "p1", clk))
	pm.RegisterProducer("pg", info(c2, "p2", clk))
	clk.Advance(100 * time.Second)
	pm.RegisterProducer("pg", info(c2, "p2", clk)) // heartbeat refreshes c2
	clk.Advance(20*time.Second + time.Millisecond)
	pm.ScanNotActiveChannel()
	if !c1.IsClosed() || c2.IsClosed() || pm.FindChannel("p1") != nil || pm.FindChannel("p2") != c2 {
		t.Fatal("only the silent channel expires")
	}
}
