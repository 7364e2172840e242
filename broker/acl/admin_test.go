package acl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// The golden session's admin steps (updateAclConfig, updateGlobalWhiteAddr,
// deleteAclConfig) leave the file Apache wrote back, byte for byte but the
// timestamp.
func TestACLAdminRewriteMatchesApache(t *testing.T) {
	p, home := newTestPlain(t, "")
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := p.UpdateAccessConfig(&AccessConfig{AccessKey: "RocketMQNewUser", SecretKey: "newuser-secret-5678",
		DefaultTopicPerm: "DENY", DefaultGroupPerm: "SUB", TopicPerms: []string{"AclTopic=SUB"}, GroupPerms: []string{"acl_new_group=SUB"}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), "- accessKey: RocketMQNewUser\n  secretKey: newuser-secret-5678\n  admin: false\n  defaultTopicPerm: DENY\n") {
		t.Errorf("new account not written as Apache writes it:\n%s", data)
	}
	if ok, err := p.UpdateGlobalWhiteAddrs([]string{"10.10.103.*", "10.10.104.*"}, ""); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := p.DeleteAccessConfig("RocketMQNewUser"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := p.DeleteAccessConfig("RocketMQNewUser"); ok {
		t.Error("second delete reported success")
	}
	got, _ := os.ReadFile(file)
	want, _ := os.ReadFile(filepath.Join("testdata", "plain_acl.after.yml"))
	ts := regexp.MustCompile(`timestamp: \d+`)
	if g, w := ts.ReplaceAllString(string(got), "timestamp: T"), ts.ReplaceAllString(string(want), "timestamp: T"); g != w {
		t.Errorf("file\n%s\nApache wrote\n%s", g, w)
	}
	if v := p.snap.Load().versions[file]; v.Counter != 3 {
		t.Errorf("counter %d, Apache 3", v.Counter)
	}
	if !strings.Contains(p.AllVersionsJSON(), `{"counter":3,"timestamp":`) {
		t.Errorf("allAclFileVersion %s", p.AllVersionsJSON())
	}
}

func TestACLAdminUpdateRefusals(t *testing.T) {
	p, _ := newTestPlain(t, "")
	err := p.UpdateAccessConfig(&AccessConfig{AccessKey: "short", SecretKey: "newuser-secret"})
	if err == nil || err.(*Error).Msg != "The accessKey=short and secretKey=newuser-secret cannot be null and length should longer than 6" { //nolint:errorlint // *Error unwrapped
		t.Errorf("short key: %v", err)
	}
	err = p.UpdateAccessConfig(&AccessConfig{AccessKey: "LongEnough", SecretKey: "long-secret", TopicPerms: []string{"T=ALL"}})
	if err == nil || !strings.HasPrefix(err.(*Error).Msg, "Parse resource permission error for T=ALL.") { //nolint:errorlint // *Error unwrapped
		t.Errorf("bad perm: %v", err)
	}
	if ok, _ := p.UpdateGlobalWhiteAddrs([]string{"1.2.3.4"}, "/nonexistent/plain_acl.yml"); ok {
		t.Error("white addresses written to a missing file")
	}
}

// An account created by UPDATE_AND_CREATE_ACL_CONFIG signs at once; a
// deleted one is refused at once.
func TestACLAdminTakesEffect(t *testing.T) {
	p, _ := newTestPlain(t, "")
	req := func() *Resource {
		r, _ := Parse(signed(code.SendMessageV2, map[string]string{"b": "NewTopic"}, nil, "RocketMQNewUser", "newuser-secret-5678"), "127.0.0.1:1")
		return r
	}
	if err := p.Validate(req()); err == nil {
		t.Fatal("unknown account accepted")
	}
	if err := p.UpdateAccessConfig(&AccessConfig{AccessKey: "RocketMQNewUser", SecretKey: "newuser-secret-5678", DefaultTopicPerm: "PUB"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(req()); err != nil {
		t.Fatalf("created account refused: %v", err)
	}
	if ok, err := p.DeleteAccessConfig("RocketMQNewUser"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := p.Validate(req()); err == nil || !strings.Contains(err.(*Error).Remark(), "No acl config for RocketMQNewUser") { //nolint:errorlint // *Error unwrapped
		t.Fatalf("deleted account: %v", err)
	}
}

// Editing the file changes the next request's outcome without a restart;
// a broken edit keeps the previous configuration.
func TestACLHotReload(t *testing.T) {
	p, home := newTestPlain(t, "accounts:\n  - accessKey: HotUser1\n    secretKey: hot-secret-1\n    defaultTopicPerm: DENY\n")
	p.cfg.WatchInterval = 20 * time.Millisecond
	p.Start()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	check := func() error {
		r, _ := Parse(signed(code.SendMessageV2, map[string]string{"b": "HotTopic"}, nil, "HotUser1", "hot-secret-1"), "127.0.0.1:1")
		return p.Validate(r)
	}
	if check() == nil {
		t.Fatal("DENY topic accepted")
	}
	if err := os.WriteFile(file, []byte("accounts:\n  - accessKey: HotUser1\n    secretKey: hot-secret-1\n    defaultTopicPerm: PUB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, check)
	if err := os.WriteFile(file, []byte("accounts:\n  - accessKey: HotUser1\n    secretKey: bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "conf", "acl"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A new file in conf/acl is picked up too; the broken default file keeps the old state meanwhile.
	if err := os.WriteFile(filepath.Join(home, "conf", "acl", "extra.yml"), []byte("globalWhiteRemoteAddresses:\n  - 10.9.*.*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.checkFiles() // the reload the watcher would do, synchronously: seen once,
	p.checkFiles() // then settled and tried
	if err := check(); err != nil {
		t.Fatalf("broken edit replaced the configuration: %v", err)
	}
	if err := os.WriteFile(file, []byte("accounts:\n  - accessKey: HotUser1\n    secretKey: hot-secret-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, func() error {
		r, _ := Parse(signed(code.SendMessageV2, map[string]string{"b": "HotTopic"}, nil, "", ""), "10.9.1.1:1")
		return p.Validate(r)
	})
	if check() == nil {
		t.Fatal("default DENY after reload accepted")
	}
}

// eventually polls f until it succeeds (internal/testutil imports broker,
// which imports this package).
func eventually(t *testing.T, d time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %v", d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A file caught half-written (truncated, not yet filled) is not loaded: the
// watcher applies a change only once it has stayed the same for one check,
// so the accounts do not vanish for a moment while an editor saves.
func TestACLReloadWaitsForSettledFile(t *testing.T) {
	p, home := newTestPlain(t, "accounts:\n  - accessKey: HotUser2\n    secretKey: hot-secret-2\n    defaultTopicPerm: PUB\n")
	file := filepath.Join(home, "conf", "plain_acl.yml")
	check := func() error {
		r, _ := Parse(signed(code.SendMessageV2, map[string]string{"b": "HotTopic"}, nil, "HotUser2", "hot-secret-2"), "127.0.0.1:1")
		return p.Validate(r)
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil { // the truncate of a rewrite
		t.Fatal(err)
	}
	p.checkFiles()
	if err := check(); err != nil {
		t.Fatalf("half-written file loaded: %v", err)
	}
	if err := os.WriteFile(file, []byte("accounts:\n  - accessKey: HotUser2\n    secretKey: hot-secret-2\n    defaultTopicPerm: DENY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.checkFiles() // changed again since the last look: not settled yet
	if err := check(); err != nil {
		t.Fatalf("unsettled change applied: %v", err)
	}
	p.checkFiles()
	if check() == nil {
		t.Fatal("settled edit (DENY) not applied")
	}
}
