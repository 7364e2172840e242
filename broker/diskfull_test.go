package broker_test

import (
	"errors"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestBrokerSendDiskFull fails the reservation of every new store file, as
// a full disk does, and checks what a producer and a consumer see on the
// wire: Apache's SYSTEM_ERROR "create mapped file failed" for the send
// that needs a new CommitLog file, then SERVICE_NOT_AVAILABLE with the
// disk-full remark; pulls keep working; once space is back sends succeed
// again without a restart (the store's disk check clears the flag within
// its 10 s period).
func TestBrokerSendDiskFull(t *testing.T) {
	e := newConsumeEnv(t, func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.MappedFileSizeCommitLog = 64 << 10
	})
	root := e.b.StoreConfig().StorePathRootDir
	body := strings.Repeat("f", 1000)
	e.send("DiskFullT", 0, map[string]string{"KEYS": "before"}, "before")
	e.waitDispatched("DiskFullT", 0, 1) // its ConsumeQueue file exists
	// The index is built after the consume queue: wait until it finds the
	// message, or the injected failure below hits the index's first file
	// instead. (The file's name shows in the directory before its blocks
	// are reserved, so its presence there is not enough.)
	testutil.Eventually(t, 5*time.Second, func() error {
		if r := e.b.Store().QueryMessage("DiskFullT", "before", 1, 0, math.MaxInt64); len(r.Messages) == 0 {
			return errors.New("the index does not find the first message yet")
		}
		return nil
	})
	e.b.Store().CommitLog().MappedFileQueue().AwaitPreallocated()

	undo := mmap.InjectReserveError(root, syscall.ENOSPC)
	var resp *codec.RemotingCommand
	for i := 0; ; i++ {
		if i == 500 {
			t.Fatal("500 sends stored with the disk full")
		}
		resp = e.call(sendRequest(code.SendMessage, sendHeader("DiskFullT", 0, nil), []byte(body)))
		if resp.Code != code.Success {
			break
		}
	}
	e.expect(resp, code.SystemError, "create mapped file failed, server is busy or broken.")
	for range 3 { // the disk check may clear the flag between two sends; the next send sets it again
		resp = e.call(sendRequest(code.SendMessage, sendHeader("DiskFullT", 0, nil), []byte(body)))
		if resp.Code != code.SystemError {
			break
		}
	}
	wantDiskFullRemark(t, resp)

	resp = e.call(pullReq("g1", "DiskFullT", 0, 0, 0, "*", "TAG"))
	e.expect(resp, code.Success, "FOUND")
	if ms := decodeBody(t, resp.Body); string(ms[0].Body) != "before" {
		t.Fatalf("pull with the disk full read %q", ms[0].Body)
	}

	undo()
	testutil.Eventually(t, wait.Scale(30*time.Second), func() error {
		resp := e.call(sendRequest(code.SendMessage, sendHeader("DiskFullT", 0, nil), []byte("after")))
		if resp.Code != code.Success {
			return errRemark(resp)
		}
		return nil
	})
}

func wantDiskFullRemark(t *testing.T, resp *codec.RemotingCommand) {
	t.Helper()
	const head = "service not available now. It may be caused by one of the following reasons: the broker's disk is full ["
	const tail = "], messages are put to the slave, message store has been shut down, etc."
	if resp.Code != code.ServiceNotAvailable || !strings.HasPrefix(resp.Remark, head) || !strings.HasSuffix(resp.Remark, tail) {
		t.Fatalf("send with the disk flagged full: %s %q, want SERVICE_NOT_AVAILABLE with the disk-full remark",
			code.ResponseName(resp.Code), resp.Remark)
	}
}

type remarkError struct{ resp *codec.RemotingCommand }

func (e remarkError) Error() string { return code.ResponseName(e.resp.Code) + " " + e.resp.Remark }

func errRemark(resp *codec.RemotingCommand) error { return remarkError{resp} }
