package codec

import (
	"github.com/rocketmq-go/rmq/remoting/code"
)

// Lazy custom headers. Building the extFields map was the largest part of
// decoding a send request (issue #11): a map of 14 one-letter keys costs
// four allocations and a hash per key, and the send processor then looks
// every key up again to fill its typed header. DecodeLazy records where
// each key and value sits in the header's one string instead (the layout's
// extOrder already held the keys) and builds the map only when somebody
// asks for it (Fields, SetExt). A lazy command's ExtFields is nil until
// then.
//
// A header stays lazy only while it is plain: every value a JSON string or
// a non-empty ROCKETMQ string, no key repeated, fewer than extIndexMin
// keys. At the first entry that is not, the decoder builds the map from the
// entries read so far and carries on exactly as Decode does, so the result
// never differs from Decode's but in when the map is built.

// LazyExtCode reports whether DecodeLazy leaves the extFields map of a
// request with code c to be built on demand: the send codes and
// PULL_MESSAGE, whose processors read the header straight into its typed
// form.
func LazyExtCode(c int32) bool {
	switch c {
	case code.SendMessage, code.SendMessageV2, code.SendBatchMessage, code.PullMessage:
		return true
	}
	return false
}

// lazyRequest reports whether c, as decoded so far, may keep a lazy header.
func lazyRequest(c *RemotingCommand) bool {
	return c.Flag&FlagResponse == 0 && LazyExtCode(c.Code)
}

// lazyExt reports whether c's custom header is decoded but not in a map yet.
// Assigning ExtFields replaces it.
func (c *RemotingCommand) lazyExt() bool {
	return c.ExtFields == nil && c.layout != nil && c.layout.lazy
}

// hasExt reports whether c has a custom header (possibly empty).
func (c *RemotingCommand) hasExt() bool {
	return c.ExtFields != nil || c.ExtSource != nil || c.lazyExt()
}

// Fields returns the custom header as a map, building it first when c was
// decoded lazily or has an ExtSource; the map is then c.ExtFields. Like
// every change to a command, the first call must not race with other uses
// of c.
func (c *RemotingCommand) Fields() map[string]string {
	if c.lazyExt() {
		c.materialize()
	} else if c.ExtFields == nil && c.ExtSource != nil {
		c.ExtFields = sourceMap(c.ExtSource)
	}
	return c.ExtFields
}

// RangeExt calls yield for each custom-header field, without building a
// map, until yield returns false: in wire order for a lazily decoded
// command, else in map order. Each key comes once. It is an
// iter.Seq2[string, string] (range over c.RangeExt); a call with a closure
// allocates nothing.
func (c *RemotingCommand) RangeExt(yield func(k, v string) bool) {
	if c.lazyExt() {
		l := c.layout
		for _, e := range l.extOrder {
			if !yield(l.extName(e), l.extValue(e)) {
				return
			}
		}
		return
	}
	for k, v := range c.Fields() {
		if !yield(k, v) {
			return
		}
	}
}

// materialize builds ExtFields from a lazy layout's entries (distinct keys,
// so one insert each) and ends the lazy state.
func (c *RemotingCommand) materialize() {
	l := c.layout
	c.ExtFields = l.entryMap(l.src)
	l.lazy = false
}

// entryMap builds the map of the lazy entries, their text in src.
func (l *headerLayout) entryMap(src string) map[string]string {
	m := make(map[string]string, len(l.extOrder))
	for _, e := range l.extOrder {
		m[src[e.off:e.off+e.n]] = src[e.voff : e.voff+e.vn]
	}
	return m
}

// extValue returns the value of a lazy entry.
func (l *headerLayout) extValue(e extKey) string {
	return l.src[e.voff : e.voff+e.vn]
}

// lazyLookup finds key among the lazy entries, their text in src.
func (l *headerLayout) lazyLookup(src, key string) (string, bool) {
	for _, e := range l.extOrder {
		if int(e.n) == len(key) && src[e.off:e.off+e.n] == key {
			return src[e.voff : e.voff+e.vn], true
		}
	}
	return "", false
}

// keepLazy reports whether a decoder in lazy mode may record the entry of
// key k (found in src) lazily: plain is whether its value is plain, isNew
// whether the key filter proved it new.
func (l *headerLayout) keepLazy(src, k string, plain, isNew bool) bool {
	if !plain || len(l.extOrder) >= extIndexMin {
		return false
	}
	if isNew {
		return true
	}
	_, dup := l.lazyLookup(src, k)
	return !dup
}

// appendLazyExt writes a lazy command's entries in wire order.
func appendLazyExt(dst []byte, l *headerLayout, w entryWriter) ([]byte, error) {
	var err error
	for _, e := range l.extOrder {
		if dst, err = w(dst, l.extName(e), l.extValue(e), false); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
