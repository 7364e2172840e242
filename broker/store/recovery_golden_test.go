package store

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// goldenDumpEntry is one line of store-clean/dump.jsonl (the Java 4.9.8
// store, decoded by the recorder).
type goldenDumpEntry struct {
	Kind           string            `json:"kind"`
	PhysicalOffset int64             `json:"physicalOffset"`
	StoreSize      int32             `json:"storeSize"`
	Size           int64             `json:"size"`
	Topic          string            `json:"topic"`
	QueueID        int32             `json:"queueId"`
	QueueOffset    int64             `json:"queueOffset"`
	StoreTimestamp int64             `json:"storeTimestamp"`
	BornTimestamp  int64             `json:"bornTimestamp"`
	SysFlag        int32             `json:"sysFlag"`
	PreparedTx     int64             `json:"preparedTransactionOffset"`
	Properties     map[string]string `json:"properties"`
	TagsCode       int64             `json:"tagsCode"`
}

func readGoldenDump(t *testing.T) []goldenDumpEntry {
	t.Helper()
	f, err := os.Open(filepath.Join(goldenDir(t), "store-clean", "dump.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenDumpEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var e goldenDumpEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestStoreGoldenRecoverAndDispatch opens the Java-written store after a
// clean shutdown, after a crash, and after a crash that lost the consume
// queues: it recovers to the recorded end of data (abnormally from file 0:
// file 1's first record, stored at 1795969607506, is newer than the
// checkpoint's safe time 1795969608103-3000), keeps both files, parses
// every record of dump.jsonl at its offset with the recorded size, queue,
// keys and tagsCode (incl. the delivery times of SCHEDULE_TOPIC_XXXX), sees
// the blank at the end of file 0, and serves consume-queue units equal to
// Java's (rebuilt by the recovery's re-dispatch in the last case).
func TestStoreGoldenRecoverAndDispatch(t *testing.T) {
	entries := readGoldenDump(t)
	for _, c := range []struct {
		name           string
		abort, dropCQs bool
	}{{"normal", false, false}, {"crash", true, false}, {"crashLostQueues", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := goldenConfig(copyGoldenStore(t))
			if c.abort {
				createAbortFile(t, cfg)
			}
			if c.dropCQs {
				if err := os.RemoveAll(cfg.ConsumeQueueDir()); err != nil {
					t.Fatal(err)
				}
			}
			s := startStore(t, cfg)
			if s.MaxPhyOffset() != 1378092 || s.LastExitOK() == c.abort {
				t.Fatalf("recovered to %d (lastExitOK %v), want 1378092", s.MaxPhyOffset(), s.LastExitOK())
			}
			if c.abort && s.abnormalScanFrom != 0 {
				t.Fatalf("abnormal scan from %d, want 0", s.abnormalScanFrom)
			}
			checkGoldenFiles(t, s)
			checkGoldenRecords(t, s, entries)
			checkGoldenUnits(t, s, entries)
		})
	}
}

func checkGoldenFiles(t *testing.T, s *DefaultMessageStore) {
	t.Helper()
	var names []string
	for _, f := range s.CommitLog().MappedFileQueue().Files() {
		names = append(names, filepath.Base(f.FileName()))
		if f.FileSize() != 1<<20 {
			t.Fatalf("file %s size %d", f.FileName(), f.FileSize())
		}
	}
	if len(names) != 2 || names[0] != "00000000000000000000" || names[1] != "00000000000001048576" {
		t.Fatalf("files %v", names)
	}
}

// checkGoldenRecords parses the CommitLog with the store's parser.
func checkGoldenRecords(t *testing.T, s *DefaultMessageStore, entries []goldenDumpEntry) {
	t.Helper()
	tags := map[int64]int64{}
	for _, e := range entries {
		if e.Kind == "cq" {
			tags[e.PhysicalOffset] = e.TagsCode
		}
	}
	n := 0
	for _, e := range entries {
		switch e.Kind {
		case "message":
			n++
			checkGoldenRecord(t, s, e, tags[e.PhysicalOffset])
		case "blank":
			buf := s.GetCommitLogData(e.PhysicalOffset)
			if buf == nil {
				t.Fatal("blank not readable")
			}
			_, st := parseRecord(buf.Bytes, true)
			total := int64(binary.BigEndian.Uint32(buf.Bytes))
			if st != recordBlank || total != e.Size || int64(len(buf.Bytes)) != e.Size {
				t.Fatalf("blank at %d: status %d, %d bytes to the end of file, want %d", e.PhysicalOffset, st, len(buf.Bytes), e.Size)
			}
			buf.Release()
		}
	}
	if walked, end := walkLog(t, s); n != 164 || walked != n || end != 1378092 {
		t.Fatalf("%d golden records; walk: %d records up to %d", n, walked, end)
	}
}

func checkGoldenRecord(t *testing.T, s *DefaultMessageStore, e goldenDumpEntry, tagsCode int64) {
	t.Helper()
	buf := s.GetCommitLogData(e.PhysicalOffset)
	if buf == nil {
		t.Fatalf("record at %d not readable", e.PhysicalOffset)
	}
	defer buf.Release()
	v, st := parseRecord(buf.Bytes, true)
	if st != recordValid {
		t.Fatalf("record at %d: status %d", e.PhysicalOffset, st)
	}
	d := s.dispatchRequest(&v, true)
	if d.CommitLogOffset != e.PhysicalOffset || d.MsgSize != e.StoreSize || d.Topic != e.Topic || d.QueueID != e.QueueID ||
		d.ConsumeQueueOffset != e.QueueOffset || d.StoreTimestamp != e.StoreTimestamp || d.BornTimestamp != e.BornTimestamp ||
		d.SysFlag != e.SysFlag || d.PreparedTransactionOffset != e.PreparedTx ||
		d.Keys != e.Properties[message.PropertyKeys] || d.UniqKey != e.Properties[message.PropertyUniqClientMessageIDKeyidx] {
		t.Fatalf("record at %d: %+v vs %+v", e.PhysicalOffset, d, e)
	}
	if len(d.Properties) != len(e.Properties) {
		t.Fatalf("record at %d: properties %v vs %v", e.PhysicalOffset, d.Properties, e.Properties)
	}
	if d.TagsCode != tagsCode {
		t.Fatalf("record at %d (%s): tagsCode %d want %d", e.PhysicalOffset, d.Topic, d.TagsCode, tagsCode)
	}
}

// checkGoldenUnits compares every consume-queue unit with Java's.
func checkGoldenUnits(t *testing.T, s *DefaultMessageStore, entries []goldenDumpEntry) {
	t.Helper()
	n := 0
	for _, e := range entries {
		if e.Kind != "cq" {
			continue
		}
		n++
		cq := s.ConsumeQueue(e.Topic, e.QueueID)
		if cq == nil {
			t.Fatalf("no consume queue %s-%d", e.Topic, e.QueueID)
		}
		u := cq.Units(e.QueueOffset)
		if u == nil || u.Len() == 0 {
			t.Fatalf("%s-%d: no unit at %d", e.Topic, e.QueueID, e.QueueOffset)
		}
		phy, size, tc := u.At(0)
		u.Release()
		if phy != e.PhysicalOffset || int64(size) != e.Size || tc != e.TagsCode {
			t.Fatalf("%s-%d@%d: unit {%d %d %d}, want {%d %d %d}", e.Topic, e.QueueID, e.QueueOffset,
				phy, size, tc, e.PhysicalOffset, e.Size, e.TagsCode)
		}
	}
	if n != 164 {
		t.Fatalf("%d golden units", n)
	}
}
