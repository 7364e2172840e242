package message

import (
	"sort"
	"strings"
)

// UnmarshalProperties parses "name\x01value\x02..." like Java's
// MessageDecoder.string2messageProperties: a segment is kept only when its
// name and value are both non-empty; later duplicates win.
func UnmarshalProperties(s string) map[string]string {
	if s == "" {
		return map[string]string{}
	}
	m := make(map[string]string, strings.Count(s, string(PropertySeparator))+1)
	eachProperty(s, func(name, value string) { m[name] = value })
	return m
}

// eachProperty calls fn for every segment of s that string2messageProperties
// keeps (a non-empty name and a non-empty value), in order.
func eachProperty(s string, fn func(name, value string)) {
	for len(s) > 0 {
		seg := s
		if i := strings.IndexByte(s, PropertySeparator); i >= 0 {
			seg, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		i := strings.IndexByte(seg, NameValueSeparator)
		if i <= 0 || i >= len(seg)-1 {
			continue
		}
		fn(seg[:i], seg[i+1:])
	}
}

// MarshalProperties renders m as Java's messageProperties2String does
// (no trailing separator). Java iterates a HashMap; Go has no such order, so
// names are sorted to keep the output deterministic.
func MarshalProperties(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	names := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		names = append(names, k)
		n += len(k) + len(v) + 2
	}
	sort.Strings(names)
	var b strings.Builder
	b.Grow(n)
	for i, k := range names {
		if i > 0 {
			b.WriteByte(PropertySeparator)
		}
		b.WriteString(k)
		b.WriteByte(NameValueSeparator)
		b.WriteString(m[k])
	}
	return b.String()
}

// AppendProperty appends name=value to a properties string, inserting a
// separator when s is non-empty and does not already end with one.
func AppendProperty(s, name, value string) string {
	if s != "" && s[len(s)-1] != PropertySeparator {
		s += string(PropertySeparator)
	}
	return s + name + string(NameValueSeparator) + value
}

// RemoveProperty returns s without any segment named name.
func RemoveProperty(s, name string) string {
	if !strings.Contains(s, name+string(NameValueSeparator)) {
		return s
	}
	parts := strings.Split(s, string(PropertySeparator))
	out := parts[:0]
	for _, p := range parts {
		if !strings.HasPrefix(p, name+string(NameValueSeparator)) {
			out = append(out, p)
		}
	}
	return strings.Join(out, string(PropertySeparator))
}

// PropertyValue extracts one property from a properties string without
// building a map ("" when absent or empty).
func PropertyValue(s, name string) string {
	for len(s) > 0 {
		seg := s
		if i := strings.IndexByte(s, PropertySeparator); i >= 0 {
			seg, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if len(seg) > len(name) && seg[len(name)] == NameValueSeparator && seg[:len(name)] == name {
			return seg[len(name)+1:]
		}
	}
	return ""
}
