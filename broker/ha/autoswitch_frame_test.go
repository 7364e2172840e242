package ha

import (
	"encoding/hex"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/epoch"
)

// TestHAAutoSwitchFrameLayout pins the byte layout of 5.3.3's
// AutoSwitchHAClient / AutoSwitchHAConnection frames: field positions as
// the Java readers index them (slaveBrokerId at HANDSHAKE_HEADER_SIZE-8,
// epochStartOffset at TRANSFER_HEADER_SIZE-16, confirmOffset at -8).
func TestHAAutoSwitchFrameLayout(t *testing.T) {
	es := []epoch.Entry{{Epoch: 1, StartOffset: 0}, {Epoch: 3, StartOffset: 0x1000}}
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"slaveHandshake", AppendSlaveHandshake(nil, 2, true, false),
			"00000001" + "0001" + "0000" + "0000000000000002"},
		{"slaveTransfer", AppendSlaveTransfer(nil, 0x2000),
			"00000002" + "0000000000002000"},
		{"masterHandshake", AppendMasterHandshake(nil, 0x3000, es),
			"00000001" + "00000018" + "0000000000003000" + "00000003" +
				"00000001" + "0000000000000000" + "00000003" + "0000000000001000"},
		{"masterTransfer", append(AppendMasterTransferHeader(nil, 0x1000, 2, es[1], 0x0ff0), 0xab, 0xcd),
			"00000002" + "00000002" + "0000000000001000" + "00000003" + "0000000000001000" + "0000000000000ff0" + "abcd"},
	}
	for _, c := range cases {
		if h := hex.EncodeToString(c.got); h != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, h, c.want)
		}
	}
	if MasterTransferHeaderLen != 36 || MasterHandshakeHeaderLen != 20 || SlaveHandshakeSize != 16 || SlaveTransferSize != 12 {
		t.Fatal("header sizes differ from 5.x")
	}
	f, n, err := ParseMasterFrame(cases[3].got, 1024)
	if err != nil || n != len(cases[3].got) || f.Epoch != 3 || f.EpochStartOffset != 0x1000 || f.ConfirmOffset != 0x0ff0 ||
		f.Offset != 0x1000 || hex.EncodeToString(f.Body) != "abcd" {
		t.Fatalf("parse transfer: %+v n=%d err=%v", f, n, err)
	}
}
