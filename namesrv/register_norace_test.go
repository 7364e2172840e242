//go:build !race

package namesrv

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestNoRaceNamesrvRegisterLinear: one REGISTER_BROKER round costs the
// name server CPU linear in the broker's topics: per topic, 10k topics may
// cost at most 2.5× what 1k cost (a quadratic step would cost 10×). CPU
// time, not wall time, so a loaded machine does not decide the outcome.
func TestNoRaceNamesrvRegisterLinear(t *testing.T) {
	perTopic := func(topics, rounds int) float64 {
		p := benchProcessor(t)
		reqs := []*codec.RemotingCommand{registerRequest(t, topics, 1), registerRequest(t, topics, 2)}
		best := 0.0
		for range 3 { // best of three: GC and cache noise only add
			cpu0 := processCPU()
			for i := range rounds {
				resp, err := p.ProcessRequest(nil, reqs[i%2]) // data version changes every round
				if err != nil || resp.Code != code.Success {
					t.Fatalf("register: %v %+v", err, resp)
				}
			}
			v := float64((processCPU() - cpu0).Nanoseconds()) / float64(rounds*topics)
			if best == 0 || v < best {
				best = v
			}
		}
		return best
	}
	small, large := perTopic(1000, 40), perTopic(10000, 4)
	t.Logf("REGISTER_BROKER name-server CPU per topic: %.0f ns at 1k topics, %.0f ns at 10k", small, large)
	if small <= 0 || large > 2.5*small {
		t.Fatalf("CPU per topic %.0f ns at 10k topics vs %.0f ns at 1k: not linear", large, small)
	}
}
