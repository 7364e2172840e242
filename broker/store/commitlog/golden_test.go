package commitlog

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/internal/message"
)

const goldenDir = "/work/shared/golden/store-clean"

type goldenEntry struct {
	File           string            `json:"file"`
	FileOffset     int64             `json:"fileOffset"`
	PhysicalOffset int64             `json:"physicalOffset"`
	Kind           string            `json:"kind"`
	StoreSize      int32             `json:"storeSize"`
	Size           int64             `json:"size"`
	FileSize       int               `json:"fileSize"`
	Topic          string            `json:"topic"`
	QueueID        int32             `json:"queueId"`
	QueueOffset    int64             `json:"queueOffset"`
	StoreTimestamp int64             `json:"storeTimestamp"`
	SysFlag        int32             `json:"sysFlag"`
	PreparedTx     int64             `json:"preparedTransactionOffset"`
	Properties     map[string]string `json:"properties"`
	TagsCode       int64             `json:"tagsCode"`
}

// copyGoldenCommitLog copies the (read-only) golden commit log into a
// writable temp dir.
func copyGoldenCommitLog(t *testing.T) (string, []goldenEntry) {
	t.Helper()
	f, err := os.Open(filepath.Join(goldenDir, "dump.jsonl"))
	if err != nil {
		t.Skipf("golden store not available: %v", err)
	}
	defer f.Close()
	var entries []goldenEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var e goldenEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	dir := filepath.Join(t.TempDir(), "commitlog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(goldenDir, "store", "commitlog")
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
	}
	return dir, entries
}

func copyFile(t testing.TB, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCommitLogGoldenRecoverAndScan: the Java-written store recovers to the
// recorded end of data, and scanning it yields every record of dump.jsonl
// at its offset with the recorded size, queue, tagsCode (incl. the delay
// delivery times of SCHEDULE_TOPIC_XXXX) and the blank at the end of file 0.
func TestCommitLogGoldenRecoverAndScan(t *testing.T) {
	dir, entries := copyGoldenCommitLog(t)
	for _, abnormal := range []bool{false, true} {
		cp, err := checkpoint.Open(filepath.Join(goldenDir, "store", "checkpoint"))
		if err != nil {
			t.Fatal(err)
		}
		cl, res := openLog(t, testConfig(dir, 1048576), cp, abnormal)
		if res.MaxOffset != 1378092 || cl.MaxOffset() != 1378092 {
			t.Fatalf("abnormal=%v recovered to %d, want 1378092", abnormal, res.MaxOffset)
		}
		// File 1 starts at 1795969607506, later than the checkpoint's safe
		// time 1795969608103-3000, so abnormal recovery also starts at file 0.
		if res.StartOffset != 0 {
			t.Fatalf("abnormal=%v start %d want 0", abnormal, res.StartOffset)
		}
		checkGoldenScan(t, cl, entries)
		names := []string{}
		for _, f := range cl.MappedFileQueue().Files() {
			names = append(names, filepath.Base(f.FileName()))
			if f.FileSize() != 1048576 {
				t.Fatal("file size")
			}
		}
		if len(names) != 2 || names[0] != "00000000000000000000" || names[1] != "00000000000001048576" {
			t.Fatalf("files %v", names)
		}
	}
}

func checkGoldenScan(t *testing.T, cl *CommitLog, entries []goldenEntry) {
	t.Helper()
	want := map[int64]goldenEntry{}
	tags := map[int64]int64{}
	var blank goldenEntry
	for _, e := range entries {
		switch e.Kind {
		case "message":
			want[e.PhysicalOffset] = e
		case "cq":
			tags[e.PhysicalOffset] = e.TagsCode
		case "blank":
			blank = e
		}
	}
	n := 0
	end := cl.Scan(0, true, func(d *DispatchRequest) bool {
		e, ok := want[d.CommitLogOffset]
		if !ok || e.StoreSize != d.MsgSize || e.Topic != d.Topic || e.QueueID != d.QueueID ||
			e.QueueOffset != d.ConsumeQueueOffset || e.StoreTimestamp != d.StoreTimestamp ||
			e.SysFlag != d.SysFlag || e.PreparedTx != d.PreparedTransactionOffset ||
			e.Properties[message.PropertyKeys] != d.Keys || e.Properties["UNIQ_KEY"] != d.UniqKey {
			t.Fatalf("record at %d: %+v vs %+v", d.CommitLogOffset, d, e)
		}
		if tc, ok := tags[d.CommitLogOffset]; ok && tc != d.TagsCode {
			t.Fatalf("record at %d (%s): tagsCode %d want %d", d.CommitLogOffset, d.Topic, d.TagsCode, tc)
		}
		n++
		return true
	})
	if n != 164 || end != 1378092 {
		t.Fatalf("scanned %d records to %d", n, end)
	}
	b := cl.GetMessage(blank.PhysicalOffset, 8)
	if b == nil {
		t.Fatal("blank not readable")
	}
	defer b.Release()
	d := CheckRecord(b.Bytes, true, nil, 0)
	if !d.Success || d.MsgSize != 0 || int64(b.Bytes[3])|int64(b.Bytes[2])<<8|int64(b.Bytes[1])<<16 != blank.Size {
		t.Fatalf("blank record %x", b.Bytes)
	}
}
