package proxy

import (
	"strings"
	"testing"
	"time"
)

func TestProxyReceiptHandleRoundTrip(t *testing.T) {
	// A POP_CK string as a 5.x broker builds it, plus the CommitLog offset
	// the proxy appends.
	const s = "12 1700000000000 30000 3 0 broker-a 2 15 4096"
	h, err := ParseReceiptHandle(s)
	if err != nil {
		t.Fatal(err)
	}
	want := ReceiptHandle{StartOffset: 12, RetrieveTime: 1700000000000, InvisibleTime: 30000, ReviveQueueID: 3,
		TopicType: "0", BrokerName: "broker-a", QueueID: 2, Offset: 15, CommitLogOffset: 4096,
		Raw: "12 1700000000000 30000 3 0 broker-a 2 15"}
	if h != want {
		t.Fatalf("parsed %+v, want %+v", h, want)
	}
	if got := h.Encode(); got != s {
		t.Fatalf("Encode = %q, want %q", got, s)
	}
	if got := withCommitLogOffset(h.Raw, 4096); got != s {
		t.Fatalf("withCommitLogOffset = %q", got)
	}
	if h.NextVisibleTime() != 1700000030000 {
		t.Fatalf("next visible %d", h.NextVisibleTime())
	}
	if !h.Expired(time.UnixMilli(1700000030000)) || h.Expired(time.UnixMilli(1700000029999)) {
		t.Fatal("expiry boundary wrong")
	}
}

func TestProxyReceiptHandleEightFields(t *testing.T) {
	h, err := ParseReceiptHandle("0 1 2 0 1 b 0 7")
	if err != nil {
		t.Fatal(err)
	}
	if h.CommitLogOffset != -1 {
		t.Fatalf("commitLogOffset = %d, want -1", h.CommitLogOffset)
	}
}

func TestProxyReceiptHandleRealTopic(t *testing.T) {
	for typ, want := range map[string]string{"0": "T", "1": "%RETRY%G_T", "2": "%RETRY%G+T"} {
		h := ReceiptHandle{TopicType: typ}
		if got := h.RealTopic("T", "G"); got != want {
			t.Errorf("type %s: %q, want %q", typ, got, want)
		}
	}
}

func TestProxyReceiptHandleRejectsMalformed(t *testing.T) {
	for _, s := range []string{"", "1 2 3", "a 1 2 3 0 b 0 7", "1 2 3 4 0 b x 7", "1 2 3 4 0 b 0 7 z",
		"1 2 3 99999999999 0 b 0 7"} {
		if _, err := ParseReceiptHandle(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// FuzzProxyReceiptHandle: parsing never panics, and whatever parses
// re-encodes to a handle that parses to the same value.
func FuzzProxyReceiptHandle(f *testing.F) {
	f.Add("12 1700000000000 30000 3 0 broker-a 2 15 4096")
	f.Add("0 1 2 0 1 b 0 7")
	f.Add("1 2 3 4 5 6 7 8 9 10")
	f.Add("        ")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseReceiptHandle(s)
		if err != nil {
			return
		}
		if strings.Contains(h.TopicType, " ") || strings.Contains(h.BrokerName, " ") {
			t.Fatalf("field holds a separator: %+v", h)
		}
		h2, err := ParseReceiptHandle(h.Encode())
		if err != nil {
			t.Fatalf("re-encoded %q does not parse: %v", h.Encode(), err)
		}
		h2.Raw, h.Raw = "", ""
		if h2 != h {
			t.Fatalf("round trip %+v != %+v", h2, h)
		}
	})
}
