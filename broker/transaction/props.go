package transaction

import (
	"slices"
	"strings"

	"github.com/rocketmq-go/rmq/internal/message"
)

// Props is a message's properties as a java.util.HashMap<String,String>
// sees them: its entries in insertion order and the largest size it reached
// (which fixes the table capacity, hence the iteration order).
type Props struct {
	keys, vals []string
	peak       int
}

// ParseProps is MessageDecoder.string2messageProperties.
func ParseProps(s string) *Props {
	p := &Props{}
	for s != "" {
		seg := s
		if i := strings.IndexByte(s, message.PropertySeparator); i >= 0 {
			seg, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		i := strings.IndexByte(seg, message.NameValueSeparator)
		if len(seg) < 3 || i <= 0 || i >= len(seg)-1 {
			continue
		}
		p.Put(seg[:i], seg[i+1:])
	}
	return p
}

// Get returns the value of k and whether it is present.
func (p *Props) Get(k string) (string, bool) {
	if i := slices.Index(p.keys, k); i >= 0 {
		return p.vals[i], true
	}
	return "", false
}

// Put is HashMap.put: a present key keeps its position.
func (p *Props) Put(k, v string) {
	if i := slices.Index(p.keys, k); i >= 0 {
		p.vals[i] = v
		return
	}
	p.keys = append(p.keys, k)
	p.vals = append(p.vals, v)
	p.peak = max(p.peak, len(p.keys))
}

// Remove is HashMap.remove (the table never shrinks).
func (p *Props) Remove(k string) {
	if i := slices.Index(p.keys, k); i >= 0 {
		p.keys = slices.Delete(p.keys, i, i+1)
		p.vals = slices.Delete(p.vals, i, i+1)
	}
}

// Clone returns an independent copy.
func (p *Props) Clone() *Props {
	return &Props{keys: slices.Clone(p.keys), vals: slices.Clone(p.vals), peak: p.peak}
}

// String is MessageDecoder.messageProperties2String: entries by hash
// bucket, insertion order within a bucket.
func (p *Props) String() string {
	capacity := 16
	for p.peak > capacity*3/4 {
		capacity <<= 1
	}
	idx := make([]int, len(p.keys))
	for i := range idx {
		idx[i] = i
	}
	bucket := func(k string) int {
		h := uint32(message.JavaStringHash(k))
		return int((h ^ h>>16) & uint32(capacity-1))
	}
	slices.SortStableFunc(idx, func(a, b int) int { return bucket(p.keys[a]) - bucket(p.keys[b]) })
	var sb strings.Builder
	for n, i := range idx {
		if n > 0 {
			sb.WriteByte(message.PropertySeparator)
		}
		sb.WriteString(p.keys[i])
		sb.WriteByte(message.NameValueSeparator)
		sb.WriteString(p.vals[i])
	}
	return sb.String()
}

// Map returns the properties as a Go map.
func (p *Props) Map() map[string]string {
	m := make(map[string]string, len(p.keys))
	for i, k := range p.keys {
		m[k] = p.vals[i]
	}
	return m
}
