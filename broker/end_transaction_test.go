package broker_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

const (
	txHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC"
	txOpTopic   = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	txGroup     = "pgTx"
)

// txHalf is a sent half message as the producer knows it.
type txHalf struct {
	commitLogOffset, queueOffset int64
	uniq                         string
}

// sendHalf sends a prepared message with the client properties a Java
// producer sets.
func sendHalf(t *testing.T, cc *cmClient, topic string, qid int32, uniq string, body string) txHalf {
	t.Helper()
	h := sendHeader(topic, qid, map[string]string{
		message.PropertyTransactionPrepared: "true", message.PropertyProducerGroup: txGroup,
		message.PropertyUniqClientMessageIDKeyidx: uniq, message.PropertyTags: "TagTx",
		message.PropertyKeys: "k-" + uniq, message.PropertyWaitStoreMsgOK: "true",
	})
	h.ProducerGroup = txGroup
	h.SysFlag = message.SysFlagTransPrepared
	resp := cc.call(sendRequest(code.SendMessageV2, h, []byte(body)))
	if resp.Code != code.SlaveNotAvailable { // stored, a SYNC_MASTER without a slave
		wantCode(t, resp, code.Success)
	}
	var rh header.SendMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		t.Fatal(err)
	}
	_, off, err := message.DecodeOffsetMsgID(rh.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	return txHalf{commitLogOffset: off, queueOffset: rh.QueueOffset, uniq: uniq}
}

func endTxRequest(h txHalf, typ int32, fromCheck bool) *codec.RemotingCommand {
	eh := header.EndTransactionRequestHeader{ProducerGroup: txGroup, TranStateTableOffset: h.queueOffset,
		CommitLogOffset: h.commitLogOffset, CommitOrRollback: typ, FromTransactionCheck: fromCheck,
		MsgID: h.uniq, TransactionID: h.uniq}
	return codec.NewRequest(code.EndTransaction, eh.ToExtFields(), nil)
}

// opRecord reads the op record at offset and checks its shape (tag d, body
// = the half's queue offset, Java's properties string).
func opRecord(t *testing.T, b *broker.Broker, offset, halfQueueOffset int64) {
	t.Helper()
	op := readBack(t, b, txOpTopic, 0, offset)
	if string(op.Body) != strconv.FormatInt(halfQueueOffset, 10) || op.PropertiesString != "WAIT\x01true\x02TAGS\x01d" || op.SysFlag != 0 {
		t.Fatalf("op record body %q props %q sysFlag %d", op.Body, op.PropertiesString, op.SysFlag)
	}
	if op.BornHost.String() != b.BrokerAddr() || op.StoreHost.String() != b.BrokerAddr() {
		t.Fatalf("op hosts %s %s, want %s", op.BornHost, op.StoreHost, b.BrokerAddr())
	}
}

func TestBrokerEndTransactionCommit(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "producer")
	h := sendHalf(t, cc, "TopicTxCommit", 2, "UNIQ-C", "commit me")
	half := readBack(t, b, txHalfTopic, 0, h.queueOffset)
	wantCode(t, cc.call(endTxRequest(h, message.SysFlagTransCommit, false)), code.Success)

	m := readBack(t, b, "TopicTxCommit", 2, 0)
	if string(m.Body) != "commit me" || message.TransactionType(m.SysFlag) != message.SysFlagTransCommit ||
		m.PreparedTransactionOffset != h.commitLogOffset || m.BornTimestamp != half.BornTimestamp {
		t.Fatalf("committed %+v", m)
	}
	// Java renders the half's map before dropping REAL_TOPIC/REAL_QID/TRAN_MSG.
	if m.PropertiesString != half.PropertiesString {
		t.Fatalf("committed properties %q, want the half's %q", m.PropertiesString, half.PropertiesString)
	}
	opRecord(t, b, 0, h.queueOffset)
}

func TestBrokerEndTransactionRollback(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "producer")
	h := sendHalf(t, cc, "TopicTxRollback", 0, "UNIQ-R", "roll me back")
	wantCode(t, cc.call(endTxRequest(h, message.SysFlagTransRollback, false)), code.Success)
	opRecord(t, b, 0, h.queueOffset)
	if n := b.Store().MaxOffsetInQueue("TopicTxRollback", 0); n != 0 {
		t.Fatalf("rolled back message reached its topic: max offset %d", n)
	}
}

func TestBrokerEndTransactionErrors(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "producer")
	h := sendHalf(t, cc, "TopicTxErr", 1, "UNIQ-E", "x")
	cases := []struct {
		name   string
		mod    func(*header.EndTransactionRequestHeader)
		remark string
	}{
		{"unknown offset", func(e *header.EndTransactionRequestHeader) { e.CommitLogOffset = 1 << 40 }, "Find prepared transaction message failed"},
		{"wrong group", func(e *header.EndTransactionRequestHeader) { e.ProducerGroup = "other" }, "The producer group wrong"},
		{"wrong table offset", func(e *header.EndTransactionRequestHeader) { e.TranStateTableOffset = 7 }, "The transaction state table offset wrong"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, typ := range []int32{message.SysFlagTransCommit, message.SysFlagTransRollback} {
				var eh header.EndTransactionRequestHeader
				_ = eh.FromExtFields(endTxRequest(h, typ, false).ExtFields)
				c.mod(&eh)
				resp := cc.call(codec.NewRequest(code.EndTransaction, eh.ToExtFields(), nil))
				wantCode(t, resp, code.SystemError)
				if resp.Remark != c.remark {
					t.Fatalf("remark %q, want %q", resp.Remark, c.remark)
				}
			}
		})
	}
	missing := endTxRequest(h, message.SysFlagTransCommit, false)
	delete(missing.ExtFields, "producerGroup")
	wantCode(t, cc.call(missing), code.SystemError)

	// NOT_TYPE (pending) and unknown values get no answer at all.
	for _, typ := range []int32{message.SysFlagTransactionNot, 3} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		resp, err := cc.c.InvokeSync(ctx, cc.addr, endTxRequest(h, typ, true))
		cancel()
		if err == nil {
			t.Fatalf("type %d answered %d %q", typ, resp.Code, resp.Remark)
		}
	}
	if b.Store().MaxOffsetInQueue("TopicTxErr", 1) != 0 || b.Store().MaxOffsetInQueue(txOpTopic, 0) != 0 {
		t.Fatal("a refused end transaction wrote something")
	}
}

func TestBrokerEndTransactionSlave(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 1
		s.BrokerRole = store.Slave
	})
	cc := newCMClient(t, b.Addr().String(), "producer")
	wantCode(t, cc.call(endTxRequest(txHalf{uniq: "u"}, message.SysFlagTransCommit, false)), code.SlaveNotAvailable)
}

// checkBroker runs the check service every interval ms with the given
// transactionTimeOut (ms).
func checkBroker(t *testing.T, role store.BrokerRole, interval, timeout int64, checkMax int) *broker.Broker {
	return testutil.StartBroker(t, "", func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.TransactionCheckInterval = interval
		c.TransactionTimeOut = timeout
		c.TransactionCheckMax = checkMax
		s.BrokerRole = role
	})
}

// TestBrokerTransactionCheckBackCommit runs on an ASYNC_MASTER and on a
// SYNC_MASTER. The SYNC_MASTER starts without a slave, so its store answers
// SLAVE_NOT_AVAILABLE: the check service's re-put is written but not
// confirmed, and no producer is asked until a slave acknowledges it (Java
// writes it without waiting and may lose it in a failover).
func TestBrokerTransactionCheckBackCommit(t *testing.T) {
	for _, role := range []store.BrokerRole{store.AsyncMaster, store.SyncMaster} {
		t.Run(string(role), func(t *testing.T) { testCheckBackCommit(t, role) })
	}
}

func testCheckBackCommit(t *testing.T, role store.BrokerRole) {
	// The producer must answer before the next pass re-checks the copy; a
	// 2 s pass leaves room for a loaded machine running -race.
	b := checkBroker(t, role, 2000, 300, 15)
	cc := newCMClient(t, b.Addr().String(), "producer")
	wantCode(t, cc.heartbeat("", txGroup), code.Success)
	h := sendHalf(t, cc, "TopicTxCheck", 3, "UNIQ-K", "check me")
	if role == store.SyncMaster {
		waitUnconfirmedRePut(t, b, cc)
	}

	var check *codec.RemotingCommand
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := cc.received(code.CheckTransactionState); len(got) > 0 {
			check = got[0]
			return nil
		}
		return statusErr("no CHECK_TRANSACTION_STATE yet")
	})
	var ch header.CheckTransactionStateRequestHeader
	if err := ch.FromExtFields(check.ExtFields); err != nil {
		t.Fatal(err)
	}
	repo := readBack(t, b, txHalfTopic, 0, 1) // the re-put copy
	if ch.TranStateTableOffset != 1 || ch.CommitLogOffset != repo.CommitLogOffset || ch.MsgID != h.uniq ||
		ch.TransactionID != h.uniq || ch.OffsetMsgID != repo.MsgID || !check.IsOneway() {
		t.Fatalf("check header %+v, re-put copy at %d (%s)", ch, repo.CommitLogOffset, repo.MsgID)
	}
	if message.PropertyValue(repo.PropertiesString, message.PropertyTransactionCheckTimes) != "1" {
		t.Fatalf("re-put properties %q", repo.PropertiesString)
	}
	m, err := message.DecodeRecord(check.Body, true)
	if err != nil || m.Topic != "TopicTxCheck" || m.QueueID != 3 || string(m.Body) != "check me" ||
		m.Properties[message.PropertyTransactionCheckTimes] != "1" {
		t.Fatalf("check body %+v err %v", m, err)
	}
	// The producer answers as the official clients do: fromTransactionCheck.
	eh := txHalf{commitLogOffset: ch.CommitLogOffset, queueOffset: ch.TranStateTableOffset, uniq: h.uniq}
	wantCode(t, cc.call(endTxRequest(eh, message.SysFlagTransCommit, true)), code.Success)
	got := readBack(t, b, "TopicTxCheck", 3, 0)
	if got.PreparedTransactionOffset != ch.CommitLogOffset || string(got.Body) != "check me" {
		t.Fatalf("committed %+v", got)
	}
	opRecord(t, b, 0, 1)
	// The next passes settle both queues: the scan offsets pass the half and
	// its copy, and no further check is sent.
	testutil.Eventually(t, 10*time.Second, func() error {
		half := b.Offsets().QueryOffset("CID_RMQ_SYS_TRANS", txHalfTopic, 0)
		op := b.Offsets().QueryOffset("CID_RMQ_SYS_TRANS", txOpTopic, 0)
		if half != 2 || op != 1 {
			return statusErr("offsets half " + strconv.FormatInt(half, 10) + " op " + strconv.FormatInt(op, 10))
		}
		return nil
	})
	if n := len(cc.received(code.CheckTransactionState)); n != 1 {
		t.Fatalf("%d checks sent, want 1", n)
	}
}

func TestBrokerTransactionCheckMaxDiscards(t *testing.T) {
	b := checkBroker(t, store.AsyncMaster, 100, 300, 1)
	cc := newCMClient(t, b.Addr().String(), "producer")
	wantCode(t, cc.heartbeat("", txGroup), code.Success)
	sendHalf(t, cc, "TopicTxMax", 0, "UNIQ-M", "never answered")
	m := readBack(t, b, "TRANS_CHECK_MAX_TIME_TOPIC", 0, 0)
	if string(m.Body) != "never answered" || message.PropertyValue(m.PropertiesString, message.PropertyTransactionCheckTimes) != "1" {
		t.Fatalf("discarded %+v", m)
	}
	if tc := b.Topics().SelectTopicConfig("TRANS_CHECK_MAX_TIME_TOPIC"); tc == nil || tc.ReadQueueNums != 1 {
		t.Fatalf("TRANS_CHECK_MAX_TIME_TOPIC config %+v", tc)
	}
	// The check is a oneway request written asynchronously, so the
	// discard (the next pass) can be visible before the producer has read
	// it: wait for it to arrive, then it must be the only one.
	testutil.Eventually(t, 5*time.Second, func() error {
		if len(cc.received(code.CheckTransactionState)) == 0 {
			return statusErr("no CHECK_TRANSACTION_STATE yet")
		}
		return nil
	})
	if n := len(cc.received(code.CheckTransactionState)); n != 1 {
		t.Fatalf("%d checks sent, want 1", n)
	}
	if b.Store().MaxOffsetInQueue("TopicTxMax", 0) != 0 {
		t.Fatal("discarded message was delivered")
	}
}

// goldenRecord reads one record of the golden store's first CommitLog file.
func goldenRecord(t *testing.T, off int64) *message.MessageExt {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "golden")
	}
	data, err := os.ReadFile(filepath.Join(dir, "store-clean", "store", "commitlog", "00000000000000000000"))
	if err != nil {
		t.Skipf("golden store absent: %v", err)
	}
	size := int64(binary.BigEndian.Uint32(data[off:]))
	m, err := message.DecodeRecord(data[off:off+size], true)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// goldenSendHalf sends the golden half message g again (its client
// properties, body and real queue) and returns what the producer learns.
func goldenSendHalf(t *testing.T, cc *cmClient, g *message.MessageExt) (header.EndTransactionRequestHeader, map[string]string) {
	t.Helper()
	props := message.UnmarshalProperties(g.PropertiesString)
	qid, _ := strconv.Atoi(props[message.PropertyRealQueueID])
	topicName := props[message.PropertyRealTopic]
	for _, k := range []string{message.PropertyCluster, message.PropertyRealTopic, message.PropertyRealQueueID} {
		delete(props, k)
	}
	sh := sendHeader(topicName, int32(qid), props)
	sh.ProducerGroup, sh.SysFlag = props[message.PropertyProducerGroup], message.SysFlagTransPrepared
	resp := cc.call(sendRequest(code.SendMessageV2, sh, g.Body))
	wantCode(t, resp, code.Success)
	var rh header.SendMessageResponseHeader
	_ = rh.FromExtFields(resp.ExtFields)
	_, off, _ := message.DecodeOffsetMsgID(rh.MsgID)
	return header.EndTransactionRequestHeader{ProducerGroup: sh.ProducerGroup, TranStateTableOffset: rh.QueueOffset,
		CommitLogOffset: off, MsgID: props[message.PropertyUniqClientMessageIDKeyidx]}, props
}

// sameRecord compares what a client or the store's readers see of two
// records (everything but times, hosts and offsets in the CommitLog).
func sameRecord(t *testing.T, name string, got, want *message.MessageExt) {
	t.Helper()
	if got.Topic != want.Topic || got.QueueID != want.QueueID || got.QueueOffset != want.QueueOffset ||
		got.SysFlag != want.SysFlag || got.PropertiesString != want.PropertiesString ||
		string(got.Body) != string(want.Body) || got.Flag != want.Flag || got.ReconsumeTimes != want.ReconsumeTimes {
		t.Errorf("%s record differs from Java's:\n got %s q%d@%d sys %d props %q body %q\nwant %s q%d@%d sys %d props %q body %q",
			name, got.Topic, got.QueueID, got.QueueOffset, got.SysFlag, got.PropertiesString, got.Body,
			want.Topic, want.QueueID, want.QueueOffset, want.SysFlag, want.PropertiesString, want.Body)
	}
}

// TestBrokerEndTransactionGolden replays the golden store's three
// transactions in order (StoreWriter: local commit, local rollback, local
// unknown that the broker's check turned into a commit) and compares every
// transaction record this broker stores with what Apache 4.9.8 stored:
// halves at 5079/5416/6082, committed 5757, ops 6421/6556, the check
// service's re-put 7370, the checked commit 7735 and its op 8088.
func TestBrokerEndTransactionGolden(t *testing.T) {
	g := map[int64]*message.MessageExt{}
	for _, off := range []int64{5079, 5416, 5757, 6082, 6421, 6556, 7370, 7735, 8088} {
		g[off] = goldenRecord(t, off)
	}
	// A 2 s timeout: the locally resolved halves must never look overdue,
	// even on a loaded machine.
	b := checkBroker(t, store.AsyncMaster, 300, 2000, 15)
	cc := newCMClient(t, b.Addr().String(), "producer")
	wantCode(t, cc.heartbeat("", "StoreTxProducerGroup"), code.Success)

	for _, c := range []struct {
		half int64
		typ  int32
	}{{5079, message.SysFlagTransCommit}, {5416, message.SysFlagTransRollback}, {6082, message.SysFlagTransactionNot}} {
		eh, _ := goldenSendHalf(t, cc, g[c.half])
		eh.CommitOrRollback = c.typ
		if c.typ == message.SysFlagTransactionNot {
			if err := cc.c.InvokeOneway(context.Background(), cc.addr, codec.NewRequest(code.EndTransaction, eh.ToExtFields(), nil)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		wantCode(t, cc.call(codec.NewRequest(code.EndTransaction, eh.ToExtFields(), nil)), code.Success)
	}
	var check *codec.RemotingCommand
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := cc.received(code.CheckTransactionState); len(got) > 0 {
			check = got[0]
			return nil
		}
		return statusErr("no CHECK_TRANSACTION_STATE yet")
	})
	var ch header.CheckTransactionStateRequestHeader
	_ = ch.FromExtFields(check.ExtFields)
	eh := header.EndTransactionRequestHeader{ProducerGroup: "StoreTxProducerGroup", TranStateTableOffset: ch.TranStateTableOffset,
		CommitLogOffset: ch.CommitLogOffset, CommitOrRollback: message.SysFlagTransCommit, FromTransactionCheck: true, MsgID: ch.MsgID}
	wantCode(t, cc.call(codec.NewRequest(code.EndTransaction, eh.ToExtFields(), nil)), code.Success)

	halves := []*message.MessageExt{readBack(t, b, txHalfTopic, 0, 0), readBack(t, b, txHalfTopic, 0, 1),
		readBack(t, b, txHalfTopic, 0, 2), readBack(t, b, txHalfTopic, 0, 3)}
	sameRecord(t, "commit half", halves[0], g[5079])
	sameRecord(t, "rollback half", halves[1], g[5416])
	sameRecord(t, "unknown half", halves[2], g[6082])
	sameRecord(t, "re-put half", halves[3], g[7370])
	sameRecord(t, "committed", readBack(t, b, "StoreTxTopic", 3, 0), g[5757])
	sameRecord(t, "checked commit", readBack(t, b, "StoreTxTopic", 1, 0), g[7735])
	for i, off := range []int64{6421, 6556, 8088} {
		sameRecord(t, "op "+strconv.Itoa(i), readBack(t, b, txOpTopic, 0, int64(i)), g[off])
	}
	if committed := readBack(t, b, "StoreTxTopic", 1, 0); committed.PreparedTransactionOffset != halves[3].CommitLogOffset ||
		g[7735].PreparedTransactionOffset != g[7370].CommitLogOffset {
		t.Errorf("checked commit prepared offset %d, want the re-put half's %d", committed.PreparedTransactionOffset, halves[3].CommitLogOffset)
	}
	if ch.TranStateTableOffset != 3 || ch.CommitLogOffset != halves[3].CommitLogOffset || ch.MsgID != g[6082].Properties[message.PropertyUniqClientMessageIDKeyidx] {
		t.Errorf("check header %+v", ch)
	}
	if b.Store().MaxOffsetInQueue("StoreTxTopic", 0) != 0 {
		t.Error("rolled back message delivered")
	}
}

// ackingSlave acknowledges every SYNC_MASTER wait at once.
type ackingSlave struct{}

func (ackingSlave) IsSlaveOK(int64) bool { return true }
func (ackingSlave) WaitReplicated(_ int64, _ time.Duration, done func(bool)) {
	go done(true)
}

// waitUnconfirmedRePut: with no slave, the check pass writes the copy of
// the half message but asks nobody and keeps the scan offset on the half,
// for this pass and the next; then a slave that acknowledges is attached.
func waitUnconfirmedRePut(t *testing.T, b *broker.Broker, cc *cmClient) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		if b.Store().MaxOffsetInQueue(txHalfTopic, 0) < 2 {
			return statusErr("no re-put copy yet")
		}
		return nil
	})
	time.Sleep(2500 * time.Millisecond) // one more pass; asserting absence needs a wait
	if got := cc.received(code.CheckTransactionState); len(got) > 0 {
		t.Fatal("CHECK_TRANSACTION_STATE sent for a copy no slave has")
	}
	if n := b.Store().MaxOffsetInQueue(txHalfTopic, 0); n != 2 {
		t.Fatalf("half queue holds %d records, want the half and one copy", n)
	}
	if off := b.Offsets().QueryOffset("CID_RMQ_SYS_TRANS", txHalfTopic, 0); off > 0 {
		t.Fatalf("half scan offset %d moved past an unconfirmed copy", off)
	}
	b.Store().(*store.DefaultMessageStore).CommitLog().SetReplicaWaiter(ackingSlave{})
}
