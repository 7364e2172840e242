package acl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// FuzzACLAddressPattern: white address patterns come from the yml and from
// UPDATE_AND_CREATE_ACL_CONFIG; no pattern or address may panic.
func FuzzACLAddressPattern(f *testing.F) {
	for _, s := range []string{"*", "10.10.103.*", "192.168.1.1-100", "192.168.1.{1,2}", "a,b", "2::ac5:78:1-200",
		"2::ac5:*", "2::ac5:78:1-200:*", "a-b:*", ":{}", "}", "1.2.3.-", "::1", "1:2:3:4:5:6:7:{1,2}"} {
		f.Add(s, "127.0.0.1")
		f.Add(s, "2:0:0:0:0:ac5:78:1")
	}
	f.Fuzz(func(t *testing.T, pattern, addr string) {
		m, err := newAddrMatcher(pattern)
		if err == nil {
			m.match(addr)
		}
	})
}

// FuzzACLParseValidate: any request from a client is parsed and checked
// without panicking.
func FuzzACLParseValidate(f *testing.F) {
	f.Add(int32(code.HeartBeat), "AccessKey", "RocketMQUser", []byte(`{"consumerDataSet":[{"groupName":"g"}]}`), "127.0.0.1:1")
	f.Add(int32(code.SendMessageV2), "b", "%RETRY%x", []byte("x"), "[::1]:2")
	f.Add(int32(code.UpdateConsumerOffset), "queueId", "x", []byte(nil), "bad")
	home := f.TempDir()
	yml, err := os.ReadFile(filepath.Join("testdata", "plain_acl.yml"))
	if err == nil {
		err = os.MkdirAll(filepath.Join(home, "conf"), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), yml, 0o644)
	}
	if err != nil {
		f.Fatal(err)
	}
	p, err := New(Config{Home: home})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, c int32, k, v string, data []byte, addr string) {
		ext := map[string]string{k: v, "AccessKey": "RocketMQUser", "Signature": v}
		r, err := Parse(codec.NewRequest(c, ext, data), addr)
		if err == nil {
			_ = p.Validate(r)
		}
	})
}
