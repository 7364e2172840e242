package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

var bootLine = regexp.MustCompile(`The proxy boot success\. grpc (\S+), proxyMode=cluster`)

// TestMQProxyClusterMode: `mqproxy -pm cluster -n <ns> -pc <json>` routes and
// stores messages on a broker it finds through the name server.
func TestMQProxyClusterMode(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	tc := body.NewTopicConfig("MQProxyTopic")
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 2, 2, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterBrokerAll(false)

	pc := filepath.Join(t.TempDir(), "rmq-proxy.json")
	if err := os.WriteFile(pc, []byte(`{"grpcServerPort": 0, "grpcServerHost": "127.0.0.1", "proxyMode": "LOCAL"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-pc", pc, "-pm", "cluster", "-n", ns.Addr().String(), "-logDir", t.TempDir()}, &out, &errOut, stop)
	}()
	var addr string
	testutil.Eventually(t, 20*time.Second, func() error {
		if m := bootLine.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
			return nil
		}
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		return fmt.Errorf("not started: %q", out.String())
	})
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	cli := apiv2.NewMessagingServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, "mqproxy-test")
	testutil.Eventually(t, 10*time.Second, func() error {
		resp, err := cli.SendMessage(ctx, &apiv2.SendMessageRequest{Messages: []*apiv2.Message{{
			Topic: &apiv2.Resource{Name: "MQProxyTopic"}, Body: []byte("via mqproxy"),
			SystemProperties: &apiv2.SystemProperties{MessageId: "01ABCDEF", MessageType: apiv2.MessageType_NORMAL},
		}}})
		if err != nil {
			return err
		}
		if resp.GetStatus().GetCode() != apiv2.Code_OK {
			return fmt.Errorf("send %v", resp)
		}
		return nil
	})
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d: %s", rc, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after stop")
	}
}

func TestMQProxyBadMode(t *testing.T) {
	var out, errOut testutil.SyncBuffer
	if rc := run([]string{"-pm", "sideways"}, &out, &errOut, nil); rc != 255 || !regexp.MustCompile(`proxyMode "sideways"`).MatchString(errOut.String()) {
		t.Fatalf("rc %d, stderr %q", rc, errOut.String())
	}
}
