package acl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/code"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func allowed(p *Plain, ak, sk, topic string) error {
	r, _ := Parse(signed(code.SendMessageV2, map[string]string{"b": topic}, nil, ak, sk), "127.0.0.1:1")
	return p.Validate(r)
}

// conf/acl/*.yml are loaded with the default file; an accessKey defined
// twice keeps its first definition; every file has its version.
func TestACLLoadConfAclDirectory(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "conf", "plain_acl.yml"), "accounts:\n  - accessKey: DefaultUser\n    secretKey: default-secret\n    defaultTopicPerm: PUB\n  - accessKey: TeamUser1\n    secretKey: other-secret\n")
	writeFile(t, filepath.Join(home, "conf", "acl", "team", "team.yaml"), "accounts:\n  - accessKey: TeamUser1\n    secretKey: team-secret-1\n    topicPerms:\n      - TeamTopic=PUB\n")
	writeFile(t, filepath.Join(home, "conf", "acl", "notes.txt"), "not an acl file")
	p, err := New(Config{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if err := allowed(p, "DefaultUser", "default-secret", "AnyTopic"); err != nil {
		t.Errorf("default file account: %v", err)
	}
	if err := allowed(p, "TeamUser1", "team-secret-1", "TeamTopic"); err != nil {
		t.Errorf("conf/acl account: %v", err)
	}
	if err := allowed(p, "TeamUser1", "other-secret", "TeamTopic"); err == nil {
		t.Error("second definition of an accessKey used")
	}
	var versions map[string]json.RawMessage
	if err := json.Unmarshal([]byte(p.AllVersionsJSON()), &versions); err != nil || len(versions) != 2 {
		t.Fatalf("allAclFileVersion %s: %v", p.AllVersionsJSON(), err)
	}
	if _, ok := versions[filepath.Join(home, "conf", "plain_acl.yml")]; !ok {
		t.Errorf("default file missing from %s", p.AllVersionsJSON())
	}
}

// rocketmq.acl.plain.file names another default file under the home; a
// missing default file is created empty, as Java does.
func TestACLLoadPlainFileProperty(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "conf", "other_acl.yml"), "globalWhiteRemoteAddresses:\n  - 127.0.0.1\n")
	p, err := New(Config{Home: home, PlainFile: "conf/other_acl.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if err := allowed(p, "", "", "T"); err != nil {
		t.Errorf("white address of the named file not applied: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "conf", "plain_acl.yml")); err == nil {
		t.Error("conf/plain_acl.yml created although another file is named")
	}
	home2 := t.TempDir()
	writeFile(t, filepath.Join(home2, "conf", "acl", "a.yml"), "accounts: []\n")
	if _, err := New(Config{Home: home2}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(home2, "conf", "plain_acl.yml")); err != nil || st.Size() != 0 {
		t.Errorf("default file not created empty: %v", err)
	}
	if !strings.HasSuffix(p.DefaultFile(), "other_acl.yml") {
		t.Errorf("DefaultFile %s", p.DefaultFile())
	}
}

// Strings that would read back as something else are single-quoted, as
// SnakeYAML writes them.
func TestACLDumpQuotesLikeSnakeYAML(t *testing.T) {
	m := newMap()
	for k, v := range map[string]string{"empty": "", "bool": "true", "num": "123", "star": "*", "plain": "10.10.103.*"} {
		mapSet(m, k, strNode(v))
	}
	got := string(dump(m))
	for _, want := range []string{"empty: ''\n", "bool: 'true'\n", "num: '123'\n", "star: '*'\n", "plain: 10.10.103.*\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("dump lacks %q:\n%s", want, got)
		}
	}
}

// javaHashOrder follows java.util.HashMap: "b","a","c" iterate as a, b, c
// (hash 97..99 → buckets 1..3); "BB" and "Aa" share hash 2112 and keep
// insertion order.
func TestACLJavaHashOrder(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"b", "a", "c"}, []string{"a", "b", "c"}},
		{[]string{"BB", "Aa"}, []string{"BB", "Aa"}},
		{[]string{"q", "a"}, []string{"q", "a"}}, // 113 and 97 share bucket 1: insertion order
		{[]string{"c", "q"}, []string{"q", "c"}}, // bucket 1 before bucket 3
	} {
		got := javaHashOrder(c.in)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%v: %v, want %v", c.in, got, c.want)
		}
	}
	if message.JavaStringHash("a") != 97 || message.JavaStringHash("Aa") != 2112 || message.JavaStringHash("BB") != 2112 {
		t.Error("String.hashCode")
	}
}
