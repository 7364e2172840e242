package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// adminCall sends req to the broker as an admin tool would.
func (e *env) adminCall(t *testing.T, req *codec.RemotingCommand) *codec.RemotingCommand {
	t.Helper()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("admin"))
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rc.Shutdown(ctx)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	resp, err := rc.InvokeSync(ctx, e.b.BrokerAddr(), req)
	if err != nil {
		t.Fatalf("admin call %d: %v", req.Code, err)
	}
	return resp
}

// onlineClientID waits until the broker lists a connection of group and
// returns its client id (the proxy's, which carries every gRPC consumer).
func (e *env) onlineClientID(t *testing.T, group string) string {
	t.Helper()
	var id string
	testutil.Eventually(t, 15*time.Second, func() error {
		resp := e.adminCall(t, codec.NewRequest(code.GetConsumerConnectionList,
			(&header.GetConsumerConnectionListRequestHeader{ConsumerGroup: group}).ToExtFields(), nil))
		if resp.Code != code.Success {
			return fmt.Errorf("group %s not online: %d %s", group, resp.Code, resp.Remark)
		}
		cc, err := body.DecodeConsumerConnection(resp.Body)
		if err != nil || len(cc.ConnectionSet) == 0 {
			return fmt.Errorf("no connection: %v", err)
		}
		for _, c := range cc.ConnectionSet {
			id = c.ClientID
		}
		return nil
	})
	return id
}

// TestProxyTelemetryConsumerRunningInfoAndVerify: the broker's
// GET_CONSUMER_RUNNING_INFO (jstack) and CONSUME_MESSAGE_DIRECTLY for a gRPC
// consumer group reach the consumer over its Telemetry stream as
// PrintThreadStackTraceCommand / VerifyMessageCommand, and the consumer's
// answers come back to the admin tool.
func TestProxyTelemetryConsumerRunningInfoAndVerify(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RTele", 1)
		cli := newClientID()
		stream, reply := e.telemetry(t, cli, consumerSettings("GTele", "RTele"))
		if reply.GetSettings() == nil {
			t.Fatalf("settings answer %v", reply)
		}
		owner := e.onlineClientID(t, "GTele")

		// The consumer side: answer whatever the proxy asks.
		asked := make(chan *apiv2.TelemetryCommand, 4)
		go func() {
			for {
				cmd, err := stream.Recv()
				if err != nil {
					return
				}
				asked <- cmd
				switch x := cmd.GetCommand().(type) {
				case *apiv2.TelemetryCommand_PrintThreadStackTraceCommand:
					trace := "goroutine 1 [running]"
					_ = stream.Send(&apiv2.TelemetryCommand{Status: &apiv2.Status{Code: apiv2.Code_OK},
						Command: &apiv2.TelemetryCommand_ThreadStackTrace{ThreadStackTrace: &apiv2.ThreadStackTrace{
							Nonce: x.PrintThreadStackTraceCommand.GetNonce(), ThreadStackTrace: &trace}}})
				case *apiv2.TelemetryCommand_VerifyMessageCommand:
					_ = stream.Send(&apiv2.TelemetryCommand{Status: &apiv2.Status{Code: apiv2.Code_OK},
						Command: &apiv2.TelemetryCommand_VerifyMessageResult{VerifyMessageResult: &apiv2.VerifyMessageResult{
							Nonce: x.VerifyMessageCommand.GetNonce()}}})
				}
			}
		}()

		resp := e.adminCall(t, codec.NewRequest(code.GetConsumerRunningInfo, (&header.GetConsumerRunningInfoRequestHeader{
			ConsumerGroup: "GTele", ClientID: owner, JstackEnable: true}).ToExtFields(), nil))
		if resp.Code != code.Success {
			t.Fatalf("running info: %d %s", resp.Code, resp.Remark)
		}
		info, err := body.DecodeConsumerRunningInfo(resp.Body)
		if err != nil || info.Jstack != "goroutine 1 [running]" {
			t.Fatalf("running info %s: %v", resp.Body, err)
		}

		e.sendN(t, "RTele", "verify-", 1)
		stored := e.stored(t, "RTele", 0, 1)[0]
		resp = e.adminCall(t, codec.NewRequest(code.ConsumeMessageDirectly, (&header.ConsumeMessageDirectlyResultRequestHeader{
			ConsumerGroup: "GTele", ClientID: owner, MsgID: stored.MsgID}).ToExtFields(), nil))
		if resp.Code != code.Success {
			t.Fatalf("consume directly: %d %s", resp.Code, resp.Remark)
		}
		var res struct {
			ConsumeResult string `json:"consumeResult"`
			Remark        string `json:"remark"`
		}
		if err := json.Unmarshal(resp.Body, &res); err != nil || res.ConsumeResult != "CR_SUCCESS" {
			t.Fatalf("consume directly result %s: %v", resp.Body, err)
		}
		var verify *apiv2.VerifyMessageCommand
		for verify == nil {
			select {
			case c := <-asked:
				verify = c.GetVerifyMessageCommand()
			case <-time.After(5 * time.Second):
				t.Fatal("no VerifyMessageCommand seen")
			}
		}
		if string(verify.GetMessage().GetBody()) != "verify-0" || verify.GetMessage().GetSystemProperties().GetMessageId() == "" {
			t.Fatalf("verify command message %v", verify.GetMessage())
		}
	})
}
