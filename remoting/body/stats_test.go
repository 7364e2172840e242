package body

import (
	"testing"
)

func TestBodyGoldenTopicStatsTable(t *testing.T) {
	checkRoundTrip(t, goldenBodies(t, "GET_TOPIC_STATS_INFO", false),
		func() roundTripper { return &TopicStatsTable{} })
}

func TestBodyGoldenConsumeStats(t *testing.T) {
	checkRoundTrip(t, goldenBodies(t, "GET_CONSUME_STATS", false),
		func() roundTripper { return &ConsumeStats{} })
}

func TestBodyJavaDouble(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{0, "0.0"}, {0.25, "0.25"}, {0.3, "0.3"}, {12, "12.0"}, {1e7, "1.0E7"}, {1.5e-4, "1.5E-4"}, {-2.5, "-2.5"}} {
		if got := string(AppendJavaDouble(nil, c.in)); got != c.want {
			t.Errorf("%v: got %s want %s", c.in, got, c.want)
		}
	}
}

func TestBodyConcurrentHashMapTableSize(t *testing.T) {
	for _, c := range []struct{ initCap, n, want int }{
		{1024, 0, 2048}, {1024, 1535, 2048}, {1024, 1536, 4096}, {512, 10, 1024}, {32, 3, 64}, {0, 11, 16}, {0, 12, 32},
	} {
		if got := ConcurrentHashMapTableSize(c.initCap, c.n); got != c.want {
			t.Errorf("CHM(%d) with %d: got %d want %d", c.initCap, c.n, got, c.want)
		}
	}
}

func TestBodyMessageQueueHashCode(t *testing.T) {
	// Java: new MessageQueue("TopicTest", "broker-a", 0).hashCode()
	mq := MessageQueue{Topic: "TopicTest", BrokerName: "broker-a", QueueID: 0}
	h := int32(1)
	h = 31*h + JavaStringHash("broker-a")
	h = 31 * h
	h = 31*h + JavaStringHash("TopicTest")
	if mq.HashCode() != h {
		t.Fatalf("hash %d want %d", mq.HashCode(), h)
	}
}
