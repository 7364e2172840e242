package acl

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // HmacSHA1 is the wire's signature algorithm
	"encoding/base64"
	"sort"
	"unicode/utf16"
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
	keys := make([]string, 0, len(ext))
	n := len(body)
	for k, v := range ext {
		if k == KeySignature || k == keyUniqueQuery {
			continue
		}
		keys = append(keys, k)
		n += len(v)
	}
	sort.Slice(keys, func(i, j int) bool { return javaLess(keys[i], keys[j]) })
	out := make([]byte, 0, n)
	for _, k := range keys {
		out = append(out, ext[k]...)
	}
	return append(out, body...)
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

// javaStringHash is String.hashCode.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// javaHashOrder orders keys (given in insertion order, distinct) as a
// java.util.HashMap with default capacity iterates them: by bucket of the
// spread hash in the final table, then by insertion.
func javaHashOrder(keys []string) []string {
	capacity := 16
	for float64(len(keys)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	bucket := func(k string) int {
		h := uint32(javaStringHash(k))
		return int((h ^ h>>16) & uint32(capacity-1))
	}
	out := append([]string(nil), keys...)
	sort.SliceStable(out, func(i, j int) bool { return bucket(out[i]) < bucket(out[j]) })
	return out
}
