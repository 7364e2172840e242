package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/props"
)

func TestMessageStoreConfigDefaultsAndBind(t *testing.T) {
	c := NewMessageStoreConfig()
	if c.MappedFileSizeCommitLog != 1<<30 || c.MappedFileSizeConsumeQueue != 6000000 ||
		c.FlushDiskType != AsyncFlush || c.BrokerRole != AsyncMaster || c.MaxMessageSize != 4<<20 ||
		c.SyncFlushTimeout != 5000 || c.HAListenPort != 10912 || c.MaxIndexNum != 20000000 ||
		!c.CheckCRCOnRecover || c.DeleteWhen != "04" || c.FlushCommitLogLeastPages != 4 {
		t.Fatalf("defaults: %+v", c)
	}
	m, err := props.Parse(strings.NewReader("storePathRootDir=/data/s\nmappedFileSizeCommitLog=1048576\n" +
		"flushDiskType=SYNC_FLUSH\nbrokerRole=SLAVE\nenableBatchPush=true\ndLegerGroup=g\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := props.Bind(m, c); len(w) != 0 {
		t.Fatalf("warnings: %v", w)
	}
	if c.MappedFileSizeCommitLog != 1048576 || c.FlushDiskType != SyncFlush || c.BrokerRole != Slave ||
		!c.EnableBatchPush || c.DLegerGroup != "g" {
		t.Fatalf("bound: %+v", c)
	}
	if c.CommitLogDir() != filepath.Join("/data/s", "commitlog") || c.CheckpointPath() != "/data/s/checkpoint" ||
		c.AbortPath() != "/data/s/abort" || c.ConsumeQueueDir() != "/data/s/consumequeue" {
		t.Fatal("paths")
	}
	c.StorePathCommitLog = "/x"
	if c.CommitLogDir() != "/x" {
		t.Fatal("explicit commitlog dir")
	}
}
