package configtable

import (
	"slices"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/body"
)

func TestConfigTablePutDeleteClone(t *testing.T) {
	var tab Table[int]
	if _, existed := tab.Put("a", 1); existed {
		t.Fatal("first put reported existing")
	}
	if old, existed := tab.Put("a", 2); !existed || old != 1 {
		t.Fatalf("second put: old %d existed %v", old, existed)
	}
	c := tab.Clone()
	c["a"] = 9
	if tab.Entries["a"] != 2 {
		t.Fatal("clone shares the map")
	}
	if !tab.Delete("a") || tab.Delete("a") || len(tab.Entries) != 0 || len(tab.JavaOrder()) != 0 {
		t.Fatalf("delete: %v %v", tab.Entries, tab.JavaOrder())
	}
}

// "Aa" and "BB" have the same Java String.hashCode, so they share a bucket
// and fastjson writes them in insertion order.
func TestConfigTableJavaOrderKeepsInsertionWithinBucket(t *testing.T) {
	for _, in := range [][]string{{"BB", "Aa"}, {"Aa", "BB"}} {
		var tab Table[string]
		for _, k := range in {
			tab.Put(k, k)
		}
		if got := tab.JavaOrder(); !slices.Equal(got, in) {
			t.Fatalf("inserted %v, order %v", in, got)
		}
	}
}

func TestConfigTableSync(t *testing.T) {
	var tab Table[int]
	tab.Put("old", 1)
	tab.NextVersion(1000)
	v := tab.Version
	if v.Counter != 1 || v.Timestamp != 1000 {
		t.Fatalf("version %+v", v)
	}
	if tab.Sync(v, []string{"x"}, map[string]int{"x": 1}) {
		t.Fatal("same version must not change the table")
	}
	master := body.DataVersion{Timestamp: 2000, Counter: 7}
	if !tab.Sync(master, []string{"BB", "Aa"}, map[string]int{"Aa": 1, "BB": 2}) {
		t.Fatal("new version not applied")
	}
	if tab.Version != master || len(tab.Entries) != 2 || tab.Entries["BB"] != 2 {
		t.Fatalf("after sync: %+v %v", tab.Version, tab.Entries)
	}
	if got := tab.JavaOrder(); !slices.Equal(got, []string{"BB", "Aa"}) {
		t.Fatalf("order %v", got)
	}
}
