package client

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

type goldenRow map[string]string

func goldenFramesDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "golden")
	}
	dir = filepath.Join(dir, "frames")
	if _, err := os.Stat(filepath.Join(dir, "manifest.tsv")); err != nil {
		t.Skipf("golden frames absent: %v", err)
	}
	return dir
}

func goldenManifest(t *testing.T, dir string) []goldenRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var head []string
	var rows []goldenRow
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if head == nil {
			head = cols
			continue
		}
		r := goldenRow{}
		for i, h := range head {
			if i < len(cols) {
				r[h] = cols[i]
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func goldenCommand(t *testing.T, dir, file string) *codec.RemotingCommand {
	t.Helper()
	frame, err := os.ReadFile(filepath.Join(dir, "..", file))
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := codec.Decode(frame)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cmd
}

// TestConsumerManagerGoldenConnectionList replays the Java consumer's last
// heartbeat before each mqadmin consumerConnection call into a
// ConsumerManager and checks that the answer body is byte-identical to what
// the Java broker sent.
func TestConsumerManagerGoldenConnectionList(t *testing.T) {
	dir := goldenFramesDir(t)
	rows := goldenManifest(t, dir)
	checked := 0
	for i, r := range rows {
		if r["code_name"] != "GET_CONSUMER_CONNECTION_LIST" || r["type"] != "request" {
			continue
		}
		req := goldenCommand(t, dir, r["file"])
		group := req.Ext("consumerGroup")
		respRow := findRow(rows, r["pair_file"])
		if respRow == nil || respRow["code_name"] != "SUCCESS" {
			continue
		}
		want := goldenCommand(t, dir, r["pair_file"]).Body
		hb, hbCmd := lastHeartbeat(t, dir, rows[:i], r["session"], group)
		if hb == nil {
			t.Fatalf("no heartbeat of %s before %s", group, r["file"])
		}
		golden, err := body.DecodeConsumerConnection(want)
		if err != nil {
			t.Fatal(err)
		}
		cm := NewConsumerManager(nil, Options{Logger: zaptest.NewLogger(t)})
		ch := &fakeChannel{id: 1, addr: golden.ConnectionSet[0].ClientAddr}
		for _, cd := range hb.ConsumerDataSet {
			if cd.GroupName != group {
				continue
			}
			ci := NewClientChannelInfo(ch, hb.ClientID, hbCmd.Language, hbCmd.Version, time.Now())
			cm.RegisterConsumer(group, ci, cd.ConsumeType, cd.MessageModel, cd.ConsumeFromWhere, cd.SubscriptionDataSet, true)
		}
		got := cm.GetConsumerGroupInfo(group).ConsumerConnection().Encode()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", r["pair_file"], got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Skip("no GET_CONSUMER_CONNECTION_LIST exchange in the golden set")
	}
}

func findRow(rows []goldenRow, file string) goldenRow {
	for _, r := range rows {
		if r["file"] == file {
			return r
		}
	}
	return nil
}

func lastHeartbeat(t *testing.T, dir string, rows []goldenRow, session, group string) (*body.HeartbeatData, *codec.RemotingCommand) {
	for j := len(rows) - 1; j >= 0; j-- {
		r := rows[j]
		if r["session"] != session || r["code_name"] != "HEART_BEAT" || r["type"] != "request" {
			continue
		}
		cmd := goldenCommand(t, dir, r["file"])
		hb, err := body.DecodeHeartbeatData(cmd.Body)
		if err != nil {
			t.Fatal(err)
		}
		for _, cd := range hb.ConsumerDataSet {
			if cd.GroupName == group {
				return hb, cmd
			}
		}
	}
	return nil, nil
}

func TestConsumerManagerConnectionBodies(t *testing.T) {
	clk := newFakeClock()
	cm := NewConsumerManager(nil, Options{Now: clk.Now})
	c1 := &fakeChannel{id: 1, addr: "127.0.0.1:50001"}
	ci := NewClientChannelInfo(c1, "192.0.2.2@1", code.Go, 317, clk.Now())
	cm.RegisterConsumer("cg", ci, body.ConsumeActively, body.Broadcasting, body.ConsumeFromTimestamp,
		[]body.SubscriptionData{{Topic: "T", SubString: "*", ExpressionType: "TAG", SubVersion: 7}}, false)
	want := `{"connectionSet":[{"clientAddr":"127.0.0.1:50001","clientId":"192.0.2.2@1","language":"GO","version":317}],` +
		`"consumeFromWhere":"CONSUME_FROM_TIMESTAMP","consumeType":"CONSUME_ACTIVELY","messageModel":"BROADCASTING",` +
		`"subscriptionTable":{"T":{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":7,"tagsSet":[],"topic":"T"}}}`
	if got := string(cm.GetConsumerGroupInfo("cg").ConsumerConnection().Encode()); got != want {
		t.Fatalf("consumer connection\n got %s\nwant %s", got, want)
	}
	if got := string(cm.GetConsumerGroupInfo("cg").ConsumerList().Encode()); got != `{"consumerIdList":["192.0.2.2@1"]}` {
		t.Fatalf("consumer list %s", got)
	}

	pm := NewProducerManager(Options{Now: clk.Now})
	if pm.ProducerConnection("pg") != nil {
		t.Fatal("no producer, no body")
	}
	pm.RegisterProducer("pg", NewClientChannelInfo(c1, "p@1", code.Java, 409, clk.Now()))
	wantP := `{"connectionSet":[{"clientAddr":"127.0.0.1:50001","clientId":"p@1","language":"JAVA","version":` + strconv.Itoa(409) + `}]}`
	if got := string(pm.ProducerConnection("pg").Encode()); got != wantP {
		t.Fatalf("producer connection %s", got)
	}
	pm.DoChannelCloseEvent(c1.RemoteAddr(), c1)
	if got := pm.ProducerConnection("pg"); got == nil || string(got.Encode()) != `{"connectionSet":[]}` {
		t.Fatalf("emptied group: %+v", got)
	}
}
