package body

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenBodyDir finds the shared golden set (env RMQ_GOLDEN_DIR, else
// ../shared/golden from the repo root) or skips the test.
func goldenBodyDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "golden")
	}
	if _, err := os.Stat(filepath.Join(dir, "frames", "manifest.tsv")); err != nil {
		t.Skipf("golden set not found at %s", dir)
	}
	return dir
}

// goldenBodies returns the bodies of golden frames: responses to requests
// named reqName, or (asRequest) the requests named reqName themselves.
func goldenBodies(t *testing.T, reqName string, asRequest bool) map[string][]byte {
	t.Helper()
	dir := goldenBodyDir(t)
	f, err := os.Open(filepath.Join(dir, "frames", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var col map[string]int
	type row struct{ file, name, typ, pair string }
	var rows []row
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "\t")
		if col == nil {
			col = map[string]int{}
			for i, c := range cells {
				col[c] = i
			}
			continue
		}
		rows = append(rows, row{cells[col["file"]], cells[col["code_name"]], cells[col["type"]], cells[col["pair_file"]]})
	}
	names := map[string]string{}
	for _, r := range rows {
		names[r.file] = r.name
	}
	out := map[string][]byte{}
	for _, r := range rows {
		match := (asRequest && r.typ != "response" && r.name == reqName) ||
			(!asRequest && r.typ == "response" && r.name == "SUCCESS" && names[r.pair] == reqName)
		if !match {
			continue
		}
		frame, err := os.ReadFile(filepath.Join(dir, r.file))
		if err != nil {
			t.Fatal(err)
		}
		hl := int(binary.BigEndian.Uint32(frame[4:8]) & 0xFFFFFF)
		out[r.file] = frame[8+hl:]
	}
	if len(out) == 0 {
		t.Fatalf("no golden frames for %s", reqName)
	}
	return out
}

type roundTripper interface {
	Decode([]byte) error
	Encode() []byte
}

func checkRoundTrip(t *testing.T, bodies map[string][]byte, mk func() roundTripper) {
	t.Helper()
	for file, b := range bodies {
		v := mk()
		if err := v.Decode(b); err != nil {
			t.Fatalf("%s: decode: %v", file, err)
		}
		if got := v.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s: re-encode differs\n got %s\nwant %s", file, got, b)
		}
	}
}

func TestBodyGoldenConsumerOffsetWrapper(t *testing.T) {
	checkRoundTrip(t, goldenBodies(t, "GET_ALL_CONSUMER_OFFSET", false),
		func() roundTripper { return &ConsumerOffsetSerializeWrapper{} })
}

func TestBodyGoldenDelayOffsetWrapper(t *testing.T) {
	checkRoundTrip(t, goldenBodies(t, "GET_ALL_DELAY_OFFSET", false),
		func() roundTripper { return &DelayOffsetSerializeWrapper{} })
}

func TestBodyGoldenResetOffsetBody(t *testing.T) {
	checkRoundTrip(t, goldenBodies(t, "INVOKE_BROKER_TO_RESET_OFFSET", false),
		func() roundTripper { return &ResetOffsetBody{} })
	checkRoundTrip(t, goldenBodies(t, "RESET_CONSUMER_CLIENT_OFFSET", true),
		func() roundTripper { return &ResetOffsetBody{} })
}

func TestBodyConsumerOffsetFastjsonForm(t *testing.T) {
	w := &ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{
		"StoreTopic@StoreConsumerGroup":                 {0: 5, 1: 4, 2: 4, 3: 4},
		"%RETRY%StoreConsumerGroup@StoreConsumerGroup":  {0: 1},
		"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS":    {0: 4},
		"RMQ_SYS_TRANS_OP_HALF_TOPIC@CID_RMQ_SYS_TRANS": {0: 3},
	}}
	want := `{"offsetTable":{"%RETRY%StoreConsumerGroup@StoreConsumerGroup":{0:1},` +
		`"RMQ_SYS_TRANS_OP_HALF_TOPIC@CID_RMQ_SYS_TRANS":{0:3},"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS":{0:4},` +
		`"StoreTopic@StoreConsumerGroup":{0:5,1:4,2:4,3:4}}}`
	if got := string(w.Encode()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Standard JSON (quoted keys) decodes to the same table.
	var back ConsumerOffsetSerializeWrapper
	if err := back.Decode([]byte(`{"offsetTable":{"t@g":{"0":42,"7":1}}}`)); err != nil {
		t.Fatal(err)
	}
	if back.OffsetTable["t@g"][0] != 42 || back.OffsetTable["t@g"][7] != 1 {
		t.Fatalf("standard form decoded to %v", back.OffsetTable)
	}
	if err := back.Decode([]byte(`{"offsetTable":{"t@g":{x:1}}}`)); err == nil {
		t.Fatal("non-integer queue id accepted")
	}
}

func TestBodyDelayOffsetOrderAndForms(t *testing.T) {
	d := &DelayOffsetSerializeWrapper{OffsetTable: map[int32]int64{18: 2, 3: 1, 2: 1}}
	if got, want := string(d.Encode()), `{"offsetTable":{2:1,3:1,18:2}}`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	var back DelayOffsetSerializeWrapper
	if err := back.Decode([]byte(`{"offsetTable":{"2":1,3:7}}`)); err != nil {
		t.Fatal(err)
	}
	if back.OffsetTable[2] != 1 || back.OffsetTable[3] != 7 {
		t.Fatalf("decoded %v", back.OffsetTable)
	}
}

func TestBodyResetOffsetNullTable(t *testing.T) {
	if got := string((&ResetOffsetBody{}).Encode()); got != "{}" {
		t.Fatalf("null table: got %s", got)
	}
}

// FuzzBodyOffsetDecode: the offset and stats decoders never panic, and what
// they accept re-encodes to something they accept again with the same content.
func FuzzBodyOffsetDecode(f *testing.F) {
	for _, s := range []string{
		`{"offsetTable":{"t@g":{0:1,1:2}}}`, `{"offsetTable":{2:1,3:1}}`, `{"offsetTable":{}}`,
		`{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:5}}`,
		`{"consumeTps":0.25,"offsetTable":{{"brokerName":"b","queueId":3,"topic":"t"}:{"brokerOffset":5,"consumerOffset":5,"lastTimestamp":1}}}`,
		`{"offsetTable":{"t@g":{"0":1}}}`, `{`, `{"offsetTable":{"t@g":{0:`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range []func() roundTripper{
			func() roundTripper { return &ConsumerOffsetSerializeWrapper{} },
			func() roundTripper { return &DelayOffsetSerializeWrapper{} },
			func() roundTripper { return &ResetOffsetBody{} },
			func() roundTripper { return &TopicStatsTable{} },
			func() roundTripper { return &ConsumeStats{} },
			func() roundTripper { return &SubscriptionGroupWrapper{} },
		} {
			v := mk()
			if v.Decode(data) != nil {
				continue
			}
			once := v.Encode()
			again := mk()
			if err := again.Decode(once); err != nil {
				t.Fatalf("%T: own output rejected: %v\n%s", v, err, once)
			}
			if twice := again.Encode(); !bytes.Equal(once, twice) {
				t.Fatalf("%T: not stable:\n%s\n%s", v, once, twice)
			}
		}
	})
}

func TestBodyResetOffsetForC(t *testing.T) {
	r := &ResetOffsetBody{OffsetTable: map[MessageQueue]int64{
		{Topic: "TopicTest", BrokerName: "broker-a", QueueID: 0}: 7,
		{Topic: "TopicTest", BrokerName: "broker-a", QueueID: 3}: 9,
	}}
	// Same queue order as the golden ResetOffsetBody (queue 3 before 0).
	want := `{"offsetTable":[{"brokerName":"broker-a","offset":9,"queueId":3,"topic":"TopicTest"},` +
		`{"brokerName":"broker-a","offset":7,"queueId":0,"topic":"TopicTest"}]}`
	if got := string(r.EncodeForC()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := string((&ResetOffsetBody{}).EncodeForC()); got != "{}" {
		t.Fatalf("null list: %s", got)
	}
}

func TestBodyQueryConsumeQueueResponse(t *testing.T) {
	q := &QueryConsumeQueueResponseBody{
		MaxQueueIndex: 5, MinQueueIndex: 1,
		QueueData: []ConsumeQueueData{{PhysicOffset: 100, PhysicSize: 200, TagsCode: 7, Msg: "Cq extend not exist, addr: 1"}},
		SubscriptionData: &SubscriptionData{Topic: "t", SubString: "*", ExpressionType: "TAG",
			TagsSet: []string{}, CodeSet: []int32{}, SubVersion: 9},
	}
	want := `{"maxQueueIndex":5,"minQueueIndex":1,"queueData":[{"eval":false,"msg":"Cq extend not exist, addr: 1",` +
		`"physicOffset":100,"physicSize":200,"tagsCode":7}],"subscriptionData":{"classFilterMode":false,"codeSet":[],` +
		`"expressionType":"TAG","subString":"*","subVersion":9,"tagsSet":[],"topic":"t"}}`
	if got := string(q.Encode()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := string((&QueryConsumeQueueResponseBody{}).Encode()); got != `{"maxQueueIndex":0,"minQueueIndex":0}` {
		t.Fatalf("empty: %s", got)
	}
}
