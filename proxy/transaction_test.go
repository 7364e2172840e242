package proxy_test

import (
	"testing"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

func txMsg(topic, body string) *apiv2.Message {
	m := newMsg(topic, body)
	m.SystemProperties.MessageType = apiv2.MessageType_TRANSACTION
	return m
}

func (e *env) endTx(t *testing.T, cli, topic string, ent *apiv2.SendResultEntry, r apiv2.TransactionResolution, src apiv2.TransactionSource) *apiv2.EndTransactionResponse {
	t.Helper()
	resp, err := e.cli.EndTransaction(e.ctx(t, cli), &apiv2.EndTransactionRequest{
		Topic: &apiv2.Resource{Name: topic}, MessageId: ent.GetMessageId(), TransactionId: ent.GetTransactionId(),
		Resolution: r, Source: src,
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestProxyTransaction: prepared messages stay invisible; COMMIT delivers,
// ROLLBACK drops; an unresolved one is checked by the broker, relayed to
// the producer's Telemetry stream as RecoverOrphanedTransactionCommand,
// and the producer's SOURCE_SERVER_CHECK commit delivers it.
func TestProxyTransaction(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnvB(t, mode, []testutil.BrokerOption{func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
			c.TransactionCheckInterval = 1000
			c.TransactionTimeOut = 1000
		}})
		const topic = "TxTopic"
		e.createTopic(t, topic, 1)
		cli := newClientID()
		stream, _ := e.telemetry(t, cli, producerSettings(topic))

		send := func(body string) *apiv2.SendResultEntry {
			r := e.send(t, cli, txMsg(topic, body))
			if r.GetStatus().GetCode() != apiv2.Code_OK || r.GetEntries()[0].GetTransactionId() == "" {
				t.Fatalf("send %s: %v", body, r)
			}
			return r.GetEntries()[0]
		}
		a, b := send("rolled-back"), send("committed")
		if r := e.endTx(t, cli, topic, a, apiv2.TransactionResolution_ROLLBACK, apiv2.TransactionSource_SOURCE_CLIENT); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("rollback: %v", r)
		}
		if r := e.endTx(t, cli, topic, b, apiv2.TransactionResolution_COMMIT, apiv2.TransactionSource_SOURCE_CLIENT); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("commit: %v", r)
		}
		if got := e.stored(t, topic, 0, 1)[0]; string(got.Body) != "committed" {
			t.Fatalf("delivered %q", got.Body)
		}
		// A second end of the same transaction is unknown to the proxy.
		if r := e.endTx(t, cli, topic, b, apiv2.TransactionResolution_COMMIT, apiv2.TransactionSource_SOURCE_CLIENT); r.GetStatus().GetCode() != apiv2.Code_INVALID_TRANSACTION_ID {
			t.Fatalf("second commit: %v", r)
		}

		c := send("checked")
		var rec *apiv2.RecoverOrphanedTransactionCommand
		for rec == nil {
			cmd, err := stream.Recv()
			if err != nil {
				t.Fatalf("telemetry: %v", err)
			}
			rec = cmd.GetRecoverOrphanedTransactionCommand()
		}
		m := rec.GetMessage()
		if rec.GetTransactionId() != c.GetTransactionId() || m.GetTopic().GetName() != topic || string(m.GetBody()) != "checked" ||
			m.GetSystemProperties().GetMessageId() != c.GetMessageId() || m.GetSystemProperties().GetMessageType() != apiv2.MessageType_TRANSACTION {
			t.Fatalf("recover command %v", rec)
		}
		if r := e.endTx(t, cli, topic, c, apiv2.TransactionResolution_COMMIT, apiv2.TransactionSource_SOURCE_SERVER_CHECK); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("check commit: %v", r)
		}
		if got := e.stored(t, topic, 0, 2)[1]; string(got.Body) != "checked" {
			t.Fatalf("delivered %q", got.Body)
		}
	})
}

func TestProxyEndTransactionErrors(t *testing.T) {
	e := startEnv(t, "local")
	cli := newClientID()
	for name, c := range map[string]struct {
		topic, id string
		want      apiv2.Code
	}{
		"empty id":   {"TxTopic", "", apiv2.Code_INVALID_TRANSACTION_ID},
		"unknown id": {"TxTopic", "nope", apiv2.Code_INVALID_TRANSACTION_ID},
		"bad topic":  {"", "x", apiv2.Code_ILLEGAL_TOPIC},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.endTx(t, cli, c.topic, &apiv2.SendResultEntry{TransactionId: c.id}, apiv2.TransactionResolution_COMMIT, apiv2.TransactionSource_SOURCE_CLIENT)
			if r.GetStatus().GetCode() != c.want {
				t.Fatalf("status %v, want %v", r.GetStatus(), c.want)
			}
		})
	}
}
