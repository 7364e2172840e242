package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

var (
	proxyBootLine  = regexp.MustCompile(`The proxy boot success\. grpc (\S+), proxyMode=local`)
	brokerBootLine = regexp.MustCompile(`The broker\[broker-a, (\S+)\]`)
)

// TestMQBrokerEnableProxy: --enable-proxy with -pc serves gRPC clients
// (local mode) on the rmq-proxy.json port, routing the broker's topics.
func TestMQBrokerEnableProxy(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	dir := t.TempDir()
	conf := fmt.Sprintf("brokerName=broker-a\nstorePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n", dir)
	f := filepath.Join(dir, "broker.conf")
	pc := filepath.Join(dir, "rmq-proxy.json")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pc, []byte(`{"grpcServerPort": 0, "grpcServerHost": "127.0.0.1", "proxyMode": "cluster", "unknownKey": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-c", f, "-n", ns.Addr().String(), "--enable-proxy", "-pc", pc}, &out, &errOut, stop)
	}()
	var addr string
	testutil.Eventually(t, 20*time.Second, func() error {
		if m := proxyBootLine.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
			return nil
		}
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		return fmt.Errorf("proxy not started: %q", out.String())
	})
	createTopic(t, brokerBootLine.FindStringSubmatch(out.String())[1], "ProxyCmdTopic")
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	cli := apiv2.NewMessagingServiceClient(conn)
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	testutil.Eventually(t, 10*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ctx = metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, "cmd-test")
		resp, err := cli.QueryRoute(ctx, &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "ProxyCmdTopic"},
			Endpoints: &apiv2.Endpoints{Addresses: []*apiv2.Address{{Host: host, Port: int32(p)}}}})
		if err != nil {
			return err
		}
		if resp.GetStatus().GetCode() != apiv2.Code_OK || len(resp.GetMessageQueues()) == 0 {
			return fmt.Errorf("route %v", resp)
		}
		if got := resp.GetMessageQueues()[0].GetBroker(); got.GetName() != "broker-a" || got.GetEndpoints().GetAddresses()[0].GetPort() != int32(p) {
			return fmt.Errorf("broker %v", got)
		}
		return nil
	})
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 || strings.Contains(errOut.String(), "panic") {
			t.Fatalf("exit %d: %s", rc, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after stop")
	}
}

// createTopic creates topic on the broker at addr with UPDATE_AND_CREATE_TOPIC.
func createTopic(t *testing.T, addr, topic string) {
	t.Helper()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	defer func() { _ = c.Shutdown(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := &header.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"}
	resp, err := c.InvokeSync(ctx, addr, codec.NewRequest(code.UpdateAndCreateTopic, h.ToExtFields(), nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("create topic: %v %+v", err, resp)
	}
}
