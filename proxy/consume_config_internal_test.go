package proxy

import "testing"

// TestProxyConfigConsumeDefaults: the consume settings a default Config
// hands the consumer are NewConsumeConfig's, so the two copies of 5.x's
// defaults (Config for rmq-proxy.json, ConsumeConfig for the consumer)
// cannot drift apart.
func TestProxyConfigConsumeDefaults(t *testing.T) {
	if got, want := consumeConfigOf(NewConfig()), NewConsumeConfig(); got != want {
		t.Fatalf("consume settings of NewConfig:\n%+v\nwant NewConsumeConfig's:\n%+v", got, want)
	}
}
