package acl

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // HmacSHA1 is the wire's signature algorithm
	"encoding/base64"
	"hash"
	"slices"
	"sync"
	"unicode/utf16"

	"github.com/rocketmq-go/rmq/internal/message"
)

// Sign is the ACL 1.0 signature: base64(HmacSHA1(secretKey, content)).
func Sign(content []byte, secretKey string) string {
	m := hmac.New(sha1.New, []byte(secretKey))
	m.Write(content)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Content is what a client signs: the values of ext in Java String order
// of their keys, leaving out Signature and _UNIQUE_KEY_QUERY, then body.
func Content(ext map[string]string, body []byte) []byte {
	return appendContent(nil, ext, body)
}

// appendContent appends Content to dst. Headers have a dozen or so keys:
// they are sorted by insertion on the stack, without allocating.
func appendContent(dst []byte, ext map[string]string, body []byte) []byte {
	var stack [24]string
	keys := stack[:0]
	ascii := true
	for k := range ext {
		if k == KeySignature || k == keyUniqueQuery {
			continue
		}
		keys = append(keys, k)
		ascii = ascii && isASCII(k)
	}
	switch {
	case len(keys) > len(stack) || !ascii:
		sortJava(keys)
	default: // ASCII: byte order is Java's order
		for i := 1; i < len(keys); i++ {
			for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
				keys[j], keys[j-1] = keys[j-1], keys[j]
			}
		}
	}
	for _, k := range keys {
		dst = append(dst, ext[k]...)
	}
	return append(dst, body...)
}

// sortJava sorts keys in Java String order.
func sortJava(keys []string) {
	slices.SortFunc(keys, func(a, b string) int {
		switch {
		case javaLess(a, b):
			return -1
		case javaLess(b, a):
			return 1
		}
		return 0
	})
}

// contentBufs recycles signed-content buffers of the request path.
var contentBufs = sync.Pool{New: func() any { return new([]byte) }}

// signer verifies signatures with one secret key, reusing HMAC states.
type signer struct {
	key  []byte
	macs sync.Pool // of hash.Hash
}

func newSigner(secret string) *signer {
	s := &signer{key: []byte(secret)}
	s.macs.New = func() any { return hmac.New(sha1.New, s.key) }
	return s
}

// verify reports whether sig is the signature of ext and body.
func (s *signer) verify(ext map[string]string, body []byte, sig string) bool {
	bp := contentBufs.Get().(*[]byte)
	*bp = appendContent((*bp)[:0], ext, body)
	h := s.macs.Get().(hash.Hash)
	h.Reset()
	h.Write(*bp)
	var sum [sha1.Size]byte
	h.Sum(sum[:0])
	s.macs.Put(h)
	if cap(*bp) <= 1<<20 {
		contentBufs.Put(bp)
	}
	var enc [28]byte // base64 of 20 bytes
	base64.StdEncoding.Encode(enc[:], sum[:])
	if len(sig) != len(enc) {
		return false
	}
	var diff byte
	for i := range enc {
		diff |= enc[i] ^ sig[i]
	}
	return diff == 0
}

// SignRequest is the client side (AclClientRPCHook): it adds AccessKey
// and Signature to ext for body.
func SignRequest(ext map[string]string, body []byte, accessKey, secretKey string) {
	ext[KeyAccessKey] = accessKey
	ext[KeySignature] = Sign(Content(ext, body), secretKey)
}

// javaLess is String.compareTo: UTF-16 code unit order (differs from Go's
// byte order only for characters above U+FFFF against U+E000..U+FFFF).
func javaLess(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// javaHashOrder orders keys (given in insertion order, distinct) as a
// java.util.HashMap with default capacity iterates them: by bucket of the
// spread hash in the final table, then by insertion.
func javaHashOrder(keys []string) []string {
	capacity := message.HashMapCapacity(len(keys), 16)
	out := append([]string(nil), keys...)
	slices.SortStableFunc(out, func(a, b string) int {
		return message.HashMapBucket(a, capacity) - message.HashMapBucket(b, capacity)
	})
	return out
}
