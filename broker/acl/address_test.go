package acl

import "testing"

func TestACLAddressPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"", nil, []string{"127.0.0.1"}},
		{"*", []string{"127.0.0.1", "0:0:0:0:0:0:0:1"}, nil},
		{"*.*.*.*", []string{"10.1.2.3"}, nil},
		{"10.10.103.*", []string{"10.10.103.0", "10.10.103.255"}, []string{"10.10.104.1", "127.0.0.1", "110.10.103.1"}},
		{"192.168.*.*", []string{"192.168.0.1", "192.168.200.7"}, []string{"192.169.0.1"}},
		{"192.168.1.1-100", []string{"192.168.1.1", "192.168.1.100"}, []string{"192.168.1.101", "192.168.2.5"}},
		{"192.168.1.{1,2}", []string{"192.168.1.1", "192.168.1.2"}, []string{"192.168.1.3"}},
		{"10.0.0.1,10.0.0.2", []string{"10.0.0.2"}, []string{"10.0.0.3"}},
		{"127.0.0.1", []string{"127.0.0.1"}, []string{"127.0.0.2"}},
		{"::1", []string{"0:0:0:0:0:0:0:1"}, []string{"0:0:0:0:0:0:0:2"}},
		{"2::ac5:78:1-200", []string{"2:0:0:0:0:ac5:78:1", "2:0:0:0:0:ac5:78:200"}, []string{"2:0:0:0:0:ac5:78:201", "3:0:0:0:0:ac5:78:1"}},
		{"2::ac5:*", []string{"2:0:0:0:0:0:ac5:ffff"}, []string{"2:0:0:0:0:0:ac6:1"}},
		{"1:2:3:4:5:6:7:{1,2}", []string{"1:2:3:4:5:6:7:2"}, []string{"1:2:3:4:5:6:7:3"}},
	}
	for _, c := range cases {
		m, err := newAddrMatcher(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		for _, a := range c.match {
			if !m.match(a) {
				t.Errorf("%q does not match %s", c.pattern, a)
			}
		}
		for _, a := range c.miss {
			if m.match(a) {
				t.Errorf("%q matches %s", c.pattern, a)
			}
		}
	}
}

func TestACLAddressPatternErrors(t *testing.T) {
	for _, p := range []string{"10.10.103", "abc", "192.168.1.{1,x}", "192.168.1.100-1", "192.168.1.-1", "1.2.{3}", "2::*:1"} {
		if _, err := newAddrMatcher(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
}

func TestACLHostOf(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5678":  "127.0.0.1",
		"[::1]:5678":      "0:0:0:0:0:0:0:1",
		"[fd00::2]:10911": "fd00:0:0:0:0:0:0:2",
	} {
		if got := hostOf(in); got != want {
			t.Errorf("hostOf(%q) = %q, want %q", in, got, want)
		}
	}
}
