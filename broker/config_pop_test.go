package broker

import (
	"strings"
	"testing"
)

// TestPopConfigThresholdWarned: enablePopMessageThreshold is read but no
// pop is refused for it, so New must warn rather than stay silent.
func TestPopConfigThresholdWarned(t *testing.T) {
	c := NewStartupConfigs().Broker
	if u := c.Unimplemented(); len(u) != 0 {
		t.Fatalf("defaults warned: %v", u)
	}
	c.EnablePopMessageThreshold = true
	u := c.Unimplemented()
	if len(u) != 1 || !strings.Contains(u[0], "enablePopMessageThreshold") {
		t.Fatalf("unimplemented %v", u)
	}
}
