package controller_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// TestControllerNoInSyncCandidate: the master of {1} dies while replica 2,
// alive but outside the SyncStateSet, heartbeats on. Without
// enableElectUncleanMaster the controller records "no master" (epoch +1,
// set kept) and never elects 2; with it, 2 becomes master.
func TestControllerNoInSyncCandidate(t *testing.T) {
	for _, unclean := range []bool{false, true} {
		t.Run(fmt.Sprintf("enableElectUncleanMaster=%v", unclean), func(t *testing.T) {
			cl := testutil.StartControllers(t, 1, func(c *controller.Config) { c.EnableElectUncleanMaster = unclean })
			leader := cl.Leader(t)
			var epoch atomic.Int32
			b1, b2 := startFakeBroker(t, cl), startFakeBroker(t, cl)
			b1.register(t)
			b2.register(t)
			b1.heartbeatLoop(&epoch)
			b2.heartbeatLoop(&epoch)
			testutil.Eventually(t, 5*time.Second, func() error {
				if !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 2) || !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 1) {
					return fmt.Errorf("heartbeats not seen")
				}
				return nil
			})
			if el, err := b1.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 1, false); err != nil || el.Code != code.Success {
				t.Fatalf("first election: %+v %v", el, err)
			}
			b1.kill()
			testutil.Eventually(t, 10*time.Second, func() error {
				_, st, _ := groupOf(leader, "broker-a")
				if st.MasterEpoch < 2 {
					return fmt.Errorf("no election yet: %+v", st)
				}
				return nil
			})
			_, st, _ := groupOf(leader, "broker-a")
			if unclean {
				if st.MasterBrokerID == nil || *st.MasterBrokerID != 2 || fmt.Sprint(st.SyncStateSet) != "[2]" {
					t.Fatalf("unclean election: %+v", st)
				}
				return
			}
			if st.MasterBrokerID != nil || fmt.Sprint(st.SyncStateSet) != "[1]" {
				t.Fatalf("clean: a replica outside the set was elected: %+v", st)
			}
			// Broker 2 asking for itself does not help either.
			el, err := b2.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 2, false)
			if err == nil || el != nil {
				t.Fatalf("broker-triggered election succeeded: %+v", el)
			}
			if _, st2, _ := groupOf(leader, "broker-a"); st2.MasterBrokerID != nil {
				t.Fatalf("master after broker-triggered election: %+v", st2)
			}
		})
	}
}

// TestControllerUpdateConfigThenForceElect is 5.x's operator way out when no
// SyncStateSet member survives: updateControllerConfig
// enableElectUncleanMaster=true, then electMaster naming a live replica.
// Before the update the designated replica is refused.
func TestControllerUpdateConfigThenForceElect(t *testing.T) {
	cl := testutil.StartControllers(t, 1, func(c *controller.Config) {
		c.ConfigStorePath = filepath.Join(t.TempDir(), "controller.properties")
		// Once unclean election is on, the inactive-master scan, or a retry
		// of the election that recorded "no master" (it reads the live
		// config on each attempt), would elect 2 by itself and race the
		// operator's electMaster: keep the scan quiet and make one attempt.
		c.ScanInactiveMasterInterval = int64(time.Hour / time.Millisecond)
		c.ElectMasterMaxRetryCount = 1
	})
	leader := cl.Leader(t)
	var epoch atomic.Int32
	b1, b2 := startFakeBroker(t, cl), startFakeBroker(t, cl)
	b1.register(t)
	b2.register(t)
	b1.heartbeatLoop(&epoch)
	b2.heartbeatLoop(&epoch)
	testutil.Eventually(t, 5*time.Second, func() error {
		if !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 2) || !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 1) {
			return fmt.Errorf("heartbeats not seen")
		}
		return nil
	})
	if _, err := b1.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 1, false); err != nil {
		t.Fatal(err)
	}
	b1.kill()
	testutil.Eventually(t, 10*time.Second, func() error {
		if _, st, _ := groupOf(leader, "broker-a"); st.MasterBrokerID != nil {
			return fmt.Errorf("master still %d", *st.MasterBrokerID)
		}
		return nil
	})
	var re *remoting.Error
	if _, err := b2.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 2, true); !errors.As(err, &re) || re.Code != code.ControllerElectMasterFailed {
		t.Fatalf("designated replica outside the set, clean mode: %v", err)
	}
	if err := leader.UpdateConfig(map[string]string{"enableElectUncleanMaster": "true"}); err != nil {
		t.Fatal(err)
	}
	el, err := b2.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 2, true)
	if err != nil || el.Code != code.Success || *el.Header.MasterBrokerID != 2 {
		t.Fatalf("forced unclean election: %+v %v", el, err)
	}
	saved, err := os.ReadFile(leader.ConfigStorePath())
	if err != nil || !strings.Contains(string(saved), "enableElectUncleanMaster=true\n") {
		t.Fatalf("config not persisted: %v %s", err, saved)
	}
}
