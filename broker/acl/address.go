package acl

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// addrMatcher decides whether a client address (Java's whiteRemoteAddress:
// the host part of the channel's remote address) is white-listed.
type addrMatcher interface {
	match(addr string) bool
}

type matchNone struct{} // blank pattern: nothing matches
type matchAll struct{}  // "*", "*.*.*.*", "*:*:*:*:*:*:*:*"

func (matchNone) match(string) bool { return false }
func (matchAll) match(string) bool  { return true }

// matchOne is a single IPv4 or IPv6 address.
type matchOne struct{ expanded string }

func (m matchOne) match(addr string) bool { return expandIP(addr, 8) == m.expanded }

// matchSet is a comma list ("a,b") or a brace list ("192.168.1.{1,2}").
type matchSet map[string]bool

func (m matchSet) match(addr string) bool {
	if isIPv6(addr) {
		addr = expandIP(addr, 8)
	}
	return m[addr]
}

// matchRange is "192.168.*.*", "192.168.1.1-100" or the IPv6 forms
// ("2::ac5:78:1-200", "2::ac5:*"): the parts before index are fixed (head),
// part index lies in [start, end].
type matchRange struct {
	head       string
	index      int
	start, end int
}

func (m *matchRange) match(addr string) bool {
	switch {
	case isIPv4(addr):
		if !strings.HasPrefix(addr, m.head) {
			return false
		}
		rest := strings.Split(addr[len(m.head):], ".")
		n, err := strconv.Atoi(rest[0])
		return err == nil && n >= m.start && n <= m.end
	case isIPv6(addr):
		addr = expandIP(addr, 8)
		if !strings.HasPrefix(addr, m.head) || len(addr) < 5*m.index+4 {
			return false
		}
		n, err := strconv.ParseInt(addr[5*m.index:5*m.index+4], 16, 32)
		return err == nil && int(n) >= m.start && int(n) <= m.end
	}
	return false
}

// newAddrMatcher parses a white address pattern with the syntax and the
// checks of 4.9.8's RemoteAddressStrategyFactory.
func newAddrMatcher(p string) (addrMatcher, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return matchNone{}, nil
	case p == "*" || p == "*.*.*.*" || p == "*:*:*:*:*:*:*:*":
		return matchAll{}, nil
	case strings.HasSuffix(p, "}"):
		return newBraceMatcher(p)
	case strings.Contains(p, ","):
		return newSetMatcher(splitNonEmpty(p, ","))
	case strings.ContainsAny(p, "*-"):
		if strings.Contains(p, ":") {
			return newIPv6Range(p)
		}
		return newIPv4Range(p)
	}
	if !isIPv4(p) && !isIPv6(p) {
		return nil, errorf("Netaddress examine Exception netaddress is %s", p)
	}
	return matchOne{expanded: expandIP(p, 8)}, nil
}

func newBraceMatcher(p string) (addrMatcher, error) {
	sep := "."
	if strings.Contains(p, ":") {
		sep = ":"
	}
	parts := splitNonEmpty(p, sep)
	if sep == "." && len(parts) < 4 {
		return nil, errorf("MultipleRemoteAddressStrategy has got a/some wrong format IP(s) ")
	}
	last := parts[len(parts)-1]
	if !strings.HasPrefix(last, "{") {
		return nil, errorf("MultipleRemoteAddressStrategy netaddress examine scope Exception netaddress")
	}
	prefix := p[:strings.Index(p, "{")]
	var addrs []string
	for _, s := range splitNonEmpty(last[1:len(last)-1], ",") {
		addrs = append(addrs, prefix+s)
	}
	return newSetMatcher(addrs)
}

func newSetMatcher(addrs []string) (addrMatcher, error) {
	m := matchSet{}
	for _, a := range addrs {
		switch {
		case isIPv4(a):
			m[a] = true
		case isIPv6(a):
			m[expandIP(a, 8)] = true
		default:
			return nil, errorf("Netaddress examine Exception netaddress is %s", a)
		}
	}
	return m, nil
}

func newIPv4Range(p string) (addrMatcher, error) {
	parts := splitNonEmpty(p, ".")
	if len(parts) != 4 {
		return nil, errorf("Netaddress examine scope Exception netaddress is %s", p)
	}
	m := &matchRange{}
	for i := 1; i <= 3; i++ {
		ok, err := m.part(strings.TrimSpace(parts[i]), i, 10, 255)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for j := 0; j < i; j++ {
			// Java checks the parts before index-1 only.
			if n, err := strconv.Atoi(strings.TrimSpace(parts[j])); j < i-1 && (err != nil || n < 0 || n > 255) {
				return nil, errorf("Netaddress examine scope Exception netaddress is %s", p)
			}
			m.head += strings.TrimSpace(parts[j]) + "."
		}
		return m, nil
	}
	return nil, errorf("Netaddress examine scope Exception netaddress is %s", p)
}

func newIPv6Range(p string) (addrMatcher, error) {
	star, minus := strings.Index(p, "*"), strings.Index(p, "-")
	bad := errorf("Netaddress examine scope Exception netaddress is %s", p)
	if star > -1 && star != len(p)-1 {
		return nil, bad
	}
	if minus > -1 {
		last := strings.LastIndex(p, ":")
		if star > -1 {
			last = strings.LastIndex(p[:last], ":")
		}
		if minus <= last {
			return nil, bad
		}
	}
	parts := splitNonEmpty(p, ":")
	m := &matchRange{}
	for i := 1; i < len(parts); i++ {
		ok, err := m.part(strings.TrimSpace(parts[i]), i, 16, 0xffff)
		if err != nil {
			return nil, err
		}
		if ok {
			head, okHead := v6Head(p)
			if !okHead {
				return nil, bad
			}
			m.head = head
			m.index = len(splitNonEmpty(m.head, ":"))
			return m, nil
		}
	}
	return nil, bad
}

// part reads one range part ("*" or "a-b") at index i; ok reports whether
// it is one.
func (m *matchRange) part(v string, i, base, maxV int) (bool, error) {
	m.index = i
	switch {
	case v == "*":
		m.start, m.end = 0, maxV
	case strings.Contains(v, "-"):
		if strings.HasPrefix(v, "-") {
			return false, errorf("RangeRemoteAddressStrategy netaddress examine scope Exception value %s ", v)
		}
		lohi := splitNonEmpty(v, "-")
		if len(lohi) != 2 {
			return false, errorf("RangeRemoteAddressStrategy netaddress examine scope Exception value %s ", v)
		}
		lo, err1 := strconv.ParseInt(lohi[0], base, 32)
		hi, err2 := strconv.ParseInt(lohi[1], base, 32)
		if err1 != nil || err2 != nil || lo < 0 || hi > int64(maxV) || lo > hi {
			return false, errorf("RangeRemoteAddressStrategy netaddress examine scope Exception start is %s , end is %s", lohi[0], lohi[1])
		}
		m.start, m.end = int(lo), int(hi)
	}
	return m.end > 0, nil
}

// v6Head is the fixed prefix of an IPv6 range pattern, expanded to the
// parts before the range part (AclUtils.v6ipProcess).
func v6Head(p string) (string, bool) {
	star, minus := strings.Contains(p, "*"), strings.Contains(p, "-")
	last := strings.LastIndex(p, ":")
	switch {
	case last < 0:
		return "", false
	case star && minus:
		second := strings.LastIndex(p[:last], ":")
		if second < 0 {
			return "", false // Java fails on substring(0, -1)
		}
		return expandIP(p[:second], 6), true
	case !star && !minus:
		return expandIP(p, 8), true
	default:
		return expandIP(p[:last], 7), true
	}
}

// expandIP writes an IPv6 address (or prefix of parts parts) with every
// group four upper-case hex digits; IPv4 text passes unchanged
// (AclUtils.expandIP).
func expandIP(a string, parts int) string {
	a = strings.ToUpper(a)
	if pad := parts - strings.Count(a, ":"); pad > 0 {
		a = strings.ReplaceAll(a, "::", strings.Repeat(":", pad+1))
	}
	groups := strings.Split(a, ":")
	for i, g := range groups {
		if len(g) < 4 {
			groups[i] = strings.Repeat("0", 4-len(g)) + g
		}
	}
	return strings.Join(groups, ":")
}

// isIPv4 is commons-validator's isValidInet4Address: four dot-separated
// decimal parts of 1 to 3 digits, each at most 255.
func isIPv4(a string) bool {
	parts, n, digits := 0, 0, 0
	for i := 0; i <= len(a); i++ {
		if i == len(a) || a[i] == '.' {
			if digits == 0 || n > 255 {
				return false
			}
			parts, n, digits = parts+1, 0, 0
			continue
		}
		c := a[i]
		if c < '0' || c > '9' || digits == 3 {
			return false
		}
		n, digits = n*10+int(c-'0'), digits+1
	}
	return parts == 4
}

func isIPv6(a string) bool {
	if !strings.Contains(a, ":") {
		return false
	}
	ip, err := netip.ParseAddr(a)
	return err == nil && ip.Is6() && ip.Zone() == ""
}

func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func errorf(format string, a ...any) *Error { return &Error{Msg: fmt.Sprintf(format, a...)} }
