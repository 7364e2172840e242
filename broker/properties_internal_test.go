package broker

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// TestBrokerStoredPropertiesJavaOrder checks the HashMap order against the
// plain records of the golden store written by a Java 4.9.8 broker: the
// client's properties (WAIT=true, no CLUSTER), arriving in another order,
// must come out exactly as Java stored them.
func TestBrokerStoredPropertiesJavaOrder(t *testing.T) {
	data, err := os.ReadFile("/work/shared/golden/store-clean/store/commitlog/00000000000000000000")
	if err != nil {
		t.Skip("golden store not available:", err)
	}
	checked := 0
	for off := 0; off < len(data) && checked < 16; {
		m, err := message.DecodeRecord(data[off:], false)
		if err != nil {
			break
		}
		off += int(m.StoreSize)
		if m.Topic != "StoreTopic" || m.ReconsumeTimes != 0 || strings.Contains(m.PropertiesString, "RETRY") {
			continue
		}
		entries := parseProperties(m.PropertiesString)
		var client []string
		for _, e := range entries {
			if e.k != message.PropertyCluster {
				client = append(client, e.k+string(message.NameValueSeparator)+e.v)
			}
		}
		client = append(client, "WAIT"+string(message.NameValueSeparator)+"true")
		// send the buckets in reverse order, each bucket's keys in their
		// stored relative order (the only order HashMap iteration keeps)
		c := javaHashMapCapacity(len(client))
		slices.SortStableFunc(client, func(a, b string) int {
			ka, kb := strings.SplitN(a, string(message.NameValueSeparator), 2)[0], strings.SplitN(b, string(message.NameValueSeparator), 2)[0]
			return int(javaBucket(kb, c)) - int(javaBucket(ka, c))
		})
		got := storedProperties(strings.Join(client, string(message.PropertySeparator)), "DefaultCluster")
		if got != m.PropertiesString {
			t.Fatalf("stored %q\njava   %q", got, m.PropertiesString)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no plain records checked")
	}
}

func TestBrokerStoredPropertiesEdgeCases(t *testing.T) {
	sep, nv := string(message.PropertySeparator), string(message.NameValueSeparator)
	// duplicates keep the first position and the last value; short and
	// malformed segments are dropped like Java's parser does
	in := "A" + nv + "1" + sep + "x" + sep + "=" + nv + sep + "A" + nv + "2" + sep + "CLUSTER" + nv + "old"
	got := message.UnmarshalProperties(storedProperties(in, "C1"))
	if len(got) != 2 || got["A"] != "2" || got["CLUSTER"] != "C1" {
		t.Fatalf("got %v", got)
	}
	if storedProperties("", "C") != "CLUSTER"+nv+"C" {
		t.Fatal("empty properties")
	}
}
