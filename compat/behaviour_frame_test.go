package compat

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Frame-level robustness (Java NettyDecoder over LengthFieldBasedFrameDecoder
// with a 16 MiB limit): a frame announcing more than the limit fails the
// decoder, which closes that one channel; every other connection carries on.

func TestCompatOversizeFrameClosesOnlyItsConnection(t *testing.T) {
	tg := newTarget(t)
	servers := []struct {
		name, addr string
		probe      int32
	}{
		{"Namesrv", tg.NamesrvAddr, code.GetBrokerClusterInfo},
		{"Broker", tg.BrokerAddr, code.HeartBeat},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			probe := func() {
				t.Helper()
				var data []byte
				if s.probe == code.HeartBeat {
					data = []byte(`{"clientID":"compat-frame","consumerDataSet":[],"producerDataSet":[]}`)
				}
				wantCode(t, tg.mustCall(t, s.addr, codec.NewRequest(s.probe, nil, data)), code.Success, "")
			}
			probe()
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			healthy, err := tg.client.Channel(ctx, s.addr)
			if err != nil {
				t.Fatal(err)
			}

			conn, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			frame := binary.BigEndian.AppendUint32(nil, codec.DefaultMaxFrameLength+1)
			frame = append(frame, 0, 0, 0, 2, '{', '}')
			if _, err := conn.Write(frame); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, err := conn.Read(make([]byte, 64))
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("connection still open 10 s after an oversize frame")
			}
			if n != 0 || (err != nil && !errors.Is(err, io.EOF) && !isConnReset(err)) {
				t.Fatalf("after an oversize frame: read %d bytes, err %v; want the connection closed", n, err)
			}

			if healthy.IsClosed() {
				t.Fatal("the oversize frame closed another connection too")
			}
			probe()
		})
	}
}

func isConnReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "read"
}
