package remoting

import (
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestRemotingChannelCoalescesWrites: frames queued while a flush is pending
// leave in one batch, and the flusher is kicked once per batch.
func TestRemotingChannelCoalescesWrites(t *testing.T) {
	ep := newEndpoint(zaptest.NewLogger(t), 0, 0)
	ch := newChannel(ep, "127.0.0.1:1", "127.0.0.1:2")
	kicks := 0
	ch.kick = func() { kicks++ }
	ch.closeFn = func() error { return nil }
	var want []byte
	for i := range 10 {
		resp := codec.NewResponse(code.Success, "")
		resp.Opaque = int32(i)
		if err := ch.WriteCommand(resp); err != nil {
			t.Fatal(err)
		}
		var err error
		if want, err = codec.AppendFrame(want, resp); err != nil {
			t.Fatal(err)
		}
	}
	if kicks != 1 {
		t.Fatalf("%d kicks for 10 frames queued before a flush, want 1", kicks)
	}
	batch := ch.takeBatch()
	if string(batch) != string(want) {
		t.Fatalf("batch of %d bytes, want the 10 frames (%d bytes)", len(batch), len(want))
	}
	ch.recycle(batch)
	if ch.takeBatch() != nil {
		t.Fatal("second batch not empty")
	}
	if err := ch.WriteCommand(codec.NewResponse(code.Success, "")); err != nil {
		t.Fatal(err)
	}
	if kicks != 2 {
		t.Fatalf("write after the flush ended: kicks %d, want 2", kicks)
	}
	_ = ch.Close()
	if err := ch.WriteCommand(codec.NewResponse(code.Success, "")); err == nil {
		t.Fatal("write on a closed channel succeeded")
	}
}

func TestRemotingPoolBounded(t *testing.T) {
	p := NewPool("bounded", 1, 2)
	release := make(chan struct{})
	started := make(chan struct{})
	if !p.Submit(func() { close(started); <-release }) {
		t.Fatal("first submit refused")
	}
	<-started
	for i := range 2 {
		if !p.Submit(func() {}) {
			t.Fatalf("queued submit %d refused", i)
		}
	}
	if p.Submit(func() {}) {
		t.Fatal("submit beyond workers+queue accepted")
	}
	close(release)
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if p.Submit(func() {}) {
		t.Fatal("submit after Stop accepted")
	}
}

// TestRemotingChannelRemoteAddrPort: the peer's address is parsed once when
// the channel is made (IPv4 and IPv6 as gnet names them); a name that is
// not ip:port (an in-process connection) gives an invalid AddrPort.
func TestRemotingChannelRemoteAddrPort(t *testing.T) {
	ep := newEndpoint(zaptest.NewLogger(t), 0, 0)
	for remote, want := range map[string]string{"127.0.0.1:40001": "127.0.0.1:40001", "[::1]:9": "[::1]:9", "inproc-7": ""} {
		ap := newChannel(ep, remote, "x").RemoteAddrPort()
		if got := ap.String(); ap.IsValid() != (want != "") || (want != "" && got != want) {
			t.Errorf("%q: RemoteAddrPort %v (valid %v), want %q", remote, got, ap.IsValid(), want)
		}
	}
}
