//go:build !race

package codec

import "testing"

// TestNoRaceCodecReleaseAllocs: with Release, a lazy send decode allocates
// only the header's string (sync.Pool drops items at random under -race).
func TestNoRaceCodecReleaseAllocs(t *testing.T) {
	for _, st := range []SerializeType{JSON, RocketMQ} {
		frame, _ := AppendFrame(nil, sendV2Request(st))
		n := testing.AllocsPerRun(200, func() {
			c, err := DecodeLazy(frame)
			if err != nil {
				t.Fatal(err)
			}
			Release(c)
		})
		if n > 1 {
			t.Errorf("%v: %.1f allocations per decode and release, want 1", st, n)
		}
	}
}
