package compat

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The three ACL 1.0 sessions of the clients golden set (scenario 9) against
// our broker with aclEnable=true and the recording's plain_acl.yml: every
// request is replayed byte for byte (signatures included) and our answers
// must match Apache's in code, remark (the AclException texts), extFields
// keys and serialization (refusals and the ACL admin successes are written
// in the broker's own serialization). Afterwards the yml our broker wrote
// back must equal Apache's but for the timestamp.

var aclSessions = map[string]codec.SerializeType{
	"acl-json":            codec.JSON,
	"acl-rocketmq-client": codec.JSON,
	"acl-rocketmq-server": codec.RocketMQ, // broker and name server ran with -Drocketmq.serialize.type=ROCKETMQ
}

// aclHome is a fresh ROCKETMQ_HOME holding the recording's plain_acl.yml.
func aclHome(t *testing.T, dir string) (home, file string) {
	t.Helper()
	home = t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "source", "acl", "plain_acl.yml"))
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return home, file
}

// startACLBroker is testutil.StartBroker with aclEnable, the given home and
// the broker's own serialization.
func startACLBroker(t *testing.T, nsAddr, home string, ser codec.SerializeType) *broker.Broker {
	t.Helper()
	cfg, scfg := testutil.NewBrokerConfigs(t, nsAddr)
	cfg.ACLEnable, cfg.RocketmqHome = true, home
	cfg.EnablePropertyFilter = true
	srv := broker.NewNettyServerConfig()
	srv.ListenPort, srv.ListenAddr = 0, "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0",
		Logger: zaptest.NewLogger(t).Named("broker"), SerializeType: &ser})
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	if err := b.Start(); err != nil {
		t.Fatalf("broker.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), replayWait)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("broker.Shutdown: %v", err)
		}
	})
	return b
}

func TestCompatACLGoldenReplay(t *testing.T) {
	dir, frames, byFile := loadClientFrames(t)
	for session, ser := range aclSessions {
		t.Run(session, func(t *testing.T) {
			t.Parallel()
			home, file := aclHome(t, dir)
			ns := testutil.StartNamesrv(t)
			b := startACLBroker(t, ns.Addr().String(), home, ser)
			waitRegistered(t, ns.Addr().String())
			replayACLSession(t, session, frames, byFile, b, map[string]string{"namesrv": ns.Addr().String(), "broker": b.Addr().String()})

			got, _ := os.ReadFile(file)
			want, err := os.ReadFile(filepath.Join(dir, "source", "acl", "plain_acl.after.yml"))
			if err != nil {
				t.Fatal(err)
			}
			ts := regexp.MustCompile(`timestamp: \d+`)
			if g, w := ts.ReplaceAllString(string(got), "timestamp: T"), ts.ReplaceAllString(string(want), "timestamp: T"); g != w {
				t.Errorf("plain_acl.yml after the session\n%s\nApache wrote\n%s", g, w)
			}
		})
	}
}

func replayACLSession(t *testing.T, session string, frames []clientFrame, byFile map[string]*clientFrame, b *broker.Broker, servers map[string]string) {
	conns := map[string]*rawConn{}
	var later []replayExchange
	refused, counters := 0, []int64{}
	check := func(ex replayExchange) {
		if want, _ := codec.Decode(ex.resp.bytes); want != nil && want.Code == code.SubscriptionNotLatest {
			// The recorded pull overtook the HEART_BEAT sent just before it
			// on the same connection; a race of the recording, not ACL.
			t.Logf("%s: not compared (recorded race)", filepath.Base(ex.req.row["file"]))
			return
		}
		compareReplay(t, ex)
		got, err := ex.rc.answer(ex.opaque, 0)
		if err != nil {
			return
		}
		want, _ := codec.Decode(ex.resp.bytes)
		name := filepath.Base(ex.req.row["file"])
		if ex.req.row["direction"] == "client->broker" && got.SerializeType != want.SerializeType {
			t.Errorf("%s: answered in %s, Apache in %s", name, serName(got.SerializeType), serName(want.SerializeType))
		}
		if strings.Contains(want.Remark, "AclException") {
			refused++
		}
		if ex.reqCode == code.GetBrokerClusterAclInfo {
			counters = append(counters, aclCounter(t, got), aclCounter(t, want)) // ours, Apache's
		}
	}
	for i := range frames {
		fr := &frames[i]
		if fr.row["session"] != session || fr.row["type"] == "response" ||
			(fr.row["direction"] != "client->broker" && fr.row["direction"] != "client->namesrv") {
			continue
		}
		server := "broker"
		if fr.row["direction"] == "client->namesrv" {
			server = "namesrv"
		}
		rc := conns[fr.row["conn"]]
		if rc == nil {
			rc = dialRaw(t, servers[server])
			conns[fr.row["conn"]] = rc
		}
		cmd, err := codec.Decode(fr.bytes)
		if err != nil {
			t.Fatalf("%s: %v", fr.row["file"], err)
		}
		if server == "broker" {
			waitDispatched(t, b)
		}
		rc.forget(cmd.Opaque)
		rc.write(t, fr.bytes)
		resp := byFile[fr.row["pair_file"]]
		if resp == nil || fr.row["type"] == "request-oneway" {
			continue
		}
		ex := replayExchange{req: fr, resp: resp, rc: rc, opaque: cmd.Opaque, reqCode: cmd.Code, brokerAddr: servers["broker"]}
		if seqOf(t, resp) > seqOf(t, fr)+1 && cmd.Code == code.PullMessage {
			later = append(later, ex) // a held pull: Apache answered after later requests
			continue
		}
		check(ex)
	}
	for _, ex := range later {
		check(ex)
	}
	if refused != 23 {
		t.Errorf("%d refusals compared, the session has 23", refused)
	}
	// allAclFileVersion counters: 0 at start, 1 after updateAclConfig, 3 at the end.
	for i := 0; i+1 < len(counters); i += 2 {
		if counters[i] != counters[i+1] {
			t.Errorf("GET_BROKER_CLUSTER_ACL_INFO #%d: counter %d, Apache %d", i/2+1, counters[i], counters[i+1])
		}
	}
	if len(counters) != 6 {
		t.Errorf("%d GET_BROKER_CLUSTER_ACL_INFO answers compared, want 3", len(counters)/2)
	}
}

// aclCounter is the counter of the only file in allAclFileVersion.
func aclCounter(t *testing.T, resp *codec.RemotingCommand) int64 {
	t.Helper()
	var m map[string]struct {
		Counter int64 `json:"counter"`
	}
	if err := json.Unmarshal([]byte(resp.ExtFields["allAclFileVersion"]), &m); err != nil || len(m) != 1 {
		t.Errorf("allAclFileVersion %q: %v", resp.ExtFields["allAclFileVersion"], err)
		return -1
	}
	for _, v := range m {
		return v.Counter
	}
	return -1
}

// TestCompatACLGoldenSignatures checks every signed request of the ACL
// sessions against the recording's accounts: the ones Apache accepted
// pass our check, the refused ones fail with Apache's remark, and the
// same request with one value altered fails the signature check.
func TestCompatACLGoldenSignatures(t *testing.T) {
	dir, frames, byFile := loadClientFrames(t)
	home, _ := aclHome(t, dir)
	v, err := acl.New(acl.Config{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	checked, altered := 0, 0
	for i := range frames {
		fr := &frames[i]
		if _, ok := aclSessions[fr.row["session"]]; !ok || fr.row["direction"] != "client->broker" || fr.row["type"] == "response" {
			continue
		}
		cmd, err := codec.Decode(fr.bytes)
		if err != nil {
			t.Fatal(err)
		}
		if cmd.ExtFields["Signature"] == "" || isACLAdminCode(cmd.Code) {
			continue // unsigned, or changes the accounts the later checks rely on
		}
		name := filepath.Base(fr.row["file"])
		wantRemark := ""
		if resp := byFile[fr.row["pair_file"]]; resp != nil {
			if w, _ := codec.Decode(resp.bytes); w != nil && strings.Contains(w.Remark, "AclException") {
				wantRemark = w.Remark
			}
		}
		if got := aclRemark(v, cmd); got != wantRemark {
			t.Errorf("%s: %q, Apache %q", name, got, wantRemark)
		}
		checked++
		if wantRemark != "" || cmd.ExtFields["AccessKey"] == "RocketMQNobody" {
			continue
		}
		keys := make([]string, 0, len(cmd.ExtFields))
		for k := range cmd.ExtFields {
			if k != "Signature" && k != "AccessKey" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		if len(keys) > 0 {
			cmd.ExtFields[keys[0]] += "x"
		} else {
			cmd.Body = append([]byte{' '}, cmd.Body...) // still valid JSON, other bytes
		}
		want := "org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=" + cmd.ExtFields["AccessKey"] +
			", org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)"
		if got := aclRemark(v, cmd); got != want {
			t.Errorf("%s altered: %q", name, got)
		}
		altered++
	}
	if checked < 190 || altered < 130 {
		t.Errorf("only %d signed requests checked, %d altered", checked, altered)
	}
	t.Logf("%d signed broker requests checked, %d altered copies refused", checked, altered)
}

func isACLAdminCode(c int32) bool {
	return c == code.UpdateAndCreateAclConfig || c == code.DeleteAclConfig || c == code.UpdateGlobalWhiteAddrsConfig
}

func aclRemark(v *acl.Plain, cmd *codec.RemotingCommand) string {
	r, err := acl.Parse(cmd, "127.0.0.1:50000")
	if err == nil {
		err = v.Validate(r)
	}
	if err == nil {
		return ""
	}
	var ae *acl.Error
	if !errors.As(err, &ae) {
		return err.Error()
	}
	return ae.Remark()
}
