package pop

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// A consumerOrderInfo.json as 5.x's fastjson writes it (bare integer keys)
// loads, and the batch behaves: offsets 5 (acked) and 6 (invisible until
// 99 by CHANGE_INVISIBLE), popped at 7 with 60 s.
func TestPopOrderInfoLoads5xFile(t *testing.T) {
	in := `{"table":{"T@g":{0:{"a":"x","cm":1,"i":60000,"l":1,"o":[5,1],"oc":{6:2},"ot":{6:99},"popTime":7}}}}`
	norm, err := body.Normalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o := NewOrderInfo()
	if err := o.Decode(norm); err != nil {
		t.Fatal(err)
	}
	if !o.CheckBlock("", "T", "g", 0, 0, 98) || o.CheckBlock("", "T", "g", 0, 0, 99) {
		t.Fatal("offset 6 should block until 99 only")
	}
	if o.CheckBlock("", "T", "g", 1, 0, 0) {
		t.Fatal("another queue blocked")
	}
	var oc OffsetInfo
	o.Update("y", false, "T", "g", 0, 100, 1000, []int64{6, 7}, &oc)
	if oc.String() != "0 qo0%6 3;0 0 0" {
		t.Fatalf("orderCountInfo %q", oc.String())
	}
	if n := o.CommitAndNext("T", "g", 0, 6, 7); n != -2 {
		t.Fatalf("stale popTime: %d", n)
	}
	if n := o.CommitAndNext("T", "g", 0, 7, 100); n != 6 {
		t.Fatalf("next after acking 7: %d", n)
	}
	if n := o.CommitAndNext("T", "g", 0, 6, 100); n != 8 {
		t.Fatalf("next after acking both: %d", n)
	}
	if n := o.CommitAndNext("T", "g", 0, 9, 100); n != -1 {
		t.Fatalf("offset outside the batch: %d", n)
	}
}
