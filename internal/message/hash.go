package message

import (
	"hash/crc32"
	"unicode/utf8"
)

// BodyCRC is the stored BODYCRC: java.util.zip.CRC32 of body with the top bit
// cleared (UtilAll.crc32).
func BodyCRC(body []byte) int32 {
	return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)
}

// JavaStringHash is Java's String.hashCode over the UTF-16 code units of s
// (h = 31*h + c). Invalid UTF-8 bytes count as U+FFFD, as Java's decoder does.
func JavaStringHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// TagsCode is the consume-queue tagsCode of a TAGS value
// (MessageExtBrokerInner.tagsString2tagsCode): 0 for no tags.
func TagsCode(tags string) int64 {
	if tags == "" {
		return 0
	}
	return int64(JavaStringHash(tags))
}
