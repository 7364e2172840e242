package broker

import (
	"reflect"
	"testing"
)

// TestSlaveSyncNewerLocalOffsets: the entries a slave pushes back to its
// master are those it holds larger (or the master lacks), never over a
// newer reset on the master, and never carrying a reset mark.
func TestSlaveSyncNewerLocalOffsets(t *testing.T) {
	local := offsetMarks{
		"T@g": {
			0: {Offset: 9},                // committed on the slave while the master was down
			1: {Offset: 5},                // equal: nothing to push
			2: {Offset: 3},                // master is ahead
			3: {Offset: 8, ResetAt: 100},  // slave-side reset mark is not sent
			4: {Offset: 20, ResetAt: 100}, // master reset later: not pushed
		},
		"T@new": {0: {Offset: 1}}, // unknown to the master
	}
	master := offsetMarks{
		"T@g": {
			0: {Offset: 4},
			1: {Offset: 5},
			2: {Offset: 7},
			3: {Offset: 2},
			4: {Offset: 2, ResetAt: 200},
		},
	}
	want := offsetMarks{
		"T@g":   {0: {Offset: 9}, 3: {Offset: 8}},
		"T@new": {0: {Offset: 1}},
	}
	if got := newerLocalOffsets(local, master); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
