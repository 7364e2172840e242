package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

var proxyLine = regexp.MustCompile(`The proxy boot success\. grpc (\S+), proxyMode=local`)

// TestStandaloneServesGRPC: mqstandalone serves RocketMQ 5 clients by
// default: a topic a remoting producer auto-creates is routed and written
// over gRPC.
func TestStandaloneServesGRPC(t *testing.T) {
	dir := t.TempDir()
	conf := fmt.Sprintf("listenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=%s\nmappedFileSizeCommitLog=67108864\n", dir)
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int, 1)
	var out, errOut testutil.SyncBuffer
	go func() { done <- run([]string{"-nsport", "0", "-c", f}, &out, &errOut, stop) }()
	var nsAddr, grpcAddr string
	testutil.Eventually(t, 20*time.Second, func() error {
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		m, p := nsLine.FindStringSubmatch(out.String()), proxyLine.FindStringSubmatch(out.String())
		if m == nil || p == nil {
			return fmt.Errorf("not started: %q", out.String())
		}
		nsAddr, grpcAddr = m[1], strings.Replace(p[1], "[::]", "127.0.0.1", 1)
		return nil
	})
	p, err := producer.NewDefaultProducer(producer.WithNsResolver(primitive.NewPassthroughResolver([]string{nsAddr})), producer.WithGroupName("standalone_grpc_pg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Shutdown() }()
	if _, err := p.SendSync(t.Context(), primitive.NewMessage("GrpcTopic", []byte("remoting"))); err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	cli := apiv2.NewMessagingServiceClient(conn)
	testutil.Eventually(t, 10*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ctx = metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, "standalone-test")
		resp, err := cli.SendMessage(ctx, &apiv2.SendMessageRequest{Messages: []*apiv2.Message{{
			Topic: &apiv2.Resource{Name: "GrpcTopic"}, Body: []byte("grpc"),
			SystemProperties: &apiv2.SystemProperties{MessageId: "01AB", MessageType: apiv2.MessageType_NORMAL},
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
