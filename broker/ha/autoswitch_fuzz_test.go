package ha

import (
	"bytes"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/epoch"
)

// FuzzHAAutoSwitchFrames: the auto-switch frame parsers never panic,
// never consume more than they were given, and whatever parses re-encodes
// to exactly the consumed bytes.
func FuzzHAAutoSwitchFrames(f *testing.F) {
	entries := []epoch.Entry{{Epoch: 1, StartOffset: 0}, {Epoch: 2, StartOffset: 4096}}
	f.Add(AppendSlaveHandshake(nil, 2, true, false))
	f.Add(AppendSlaveTransfer(AppendSlaveTransfer(nil, 0), 8192))
	f.Add(AppendMasterHandshake(nil, 9000, entries))
	f.Add(append(AppendMasterTransferHeader(nil, 4096, 3, entries[1], 100), 1, 2, 3))
	f.Add(AppendMasterTransferHeader(nil, 4096, -1, entries[1], 0))
	f.Add([]byte{0, 0, 0, 9, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if sf, n, err := ParseSlaveFrame(data); err == nil && n > 0 {
			if n > len(data) {
				t.Fatalf("slave frame consumed %d of %d", n, len(data))
			}
			re, skip := AppendSlaveTransfer(nil, sf.MaxOffset), 0
			if sf.State == stateHandshake {
				// flags other than 0/1 read as false: compare the rest
				re, skip = AppendSlaveHandshake(nil, sf.BrokerID, sf.SyncFromLastFile, sf.AsyncLearner), 4
			}
			if !bytes.Equal(re[:4], data[:4]) || !bytes.Equal(re[4+skip:], data[4+skip:n]) {
				t.Fatalf("slave frame %+v re-encodes to %x, input %x", sf, re, data[:n])
			}
		}
		mf, n, err := ParseMasterFrame(data, 1<<16)
		if err != nil || n == 0 {
			return
		}
		if n > len(data) {
			t.Fatalf("master frame consumed %d of %d", n, len(data))
		}
		var re []byte
		if mf.State == stateHandshake {
			re = AppendMasterHandshake(nil, mf.Offset, mf.Entries)
			if len(mf.Entries) > 0 {
				copy(re[16:20], data[16:20]) // lastEpoch is not derived from the entries on the wire
			}
		} else {
			re = append(AppendMasterTransferHeader(nil, mf.Offset, len(mf.Body),
				epoch.Entry{Epoch: mf.Epoch, StartOffset: mf.EpochStartOffset}, mf.ConfirmOffset), mf.Body...)
		}
		if len(mf.Entries) == 0 && mf.State == stateHandshake {
			copy(re[16:20], data[16:20])
		}
		if !bytes.Equal(re, data[:n]) {
			t.Fatalf("master frame re-encodes to %x, input %x", re, data[:n])
		}
	})
}
