package filter

import (
	"strings"

	"github.com/rocketmq-go/rmq/internal/message"
)

// Expression types carried in SubscriptionData.expressionType (Java ExpressionType).
const (
	ExpressionTypeTag   = "TAG"
	ExpressionTypeSQL92 = "SQL92"
)

// SubAll is the TAG expression that subscribes every message (SubscriptionData.SUB_ALL).
const SubAll = "*"

// IsTagType reports whether t selects tag filtering: "", "TAG" (Java
// ExpressionType.isTagType; a missing type is TAG too).
func IsTagType(t string) bool {
	return t == "" || t == ExpressionTypeTag
}

// TagSubscription is a parsed TAG expression (FilterAPI.buildSubscriptionData).
type TagSubscription struct {
	SubString string   // normalised: SubAll for "", "*"
	Tags      []string // distinct trimmed tags, in first-seen order
	Codes     []int32  // distinct Java String.hashCode of the tags
}

// ParseTags splits a TAG expression on "||" and trims each tag like Java.
// "", "*" subscribe everything (Tags and Codes empty).
func ParseTags(subString string) TagSubscription {
	if subString == "" || subString == SubAll {
		return TagSubscription{SubString: SubAll}
	}
	ts := TagSubscription{SubString: subString}
	for _, part := range strings.Split(subString, "||") {
		tag := javaTrim(part)
		if tag == "" || containsString(ts.Tags, tag) {
			continue
		}
		ts.Tags = append(ts.Tags, tag)
		code := message.JavaStringHash(tag)
		if !containsCode(ts.Codes, code) {
			ts.Codes = append(ts.Codes, code)
		}
	}
	return ts
}

// MatchTagsCode is the TAG branch of ExpressionMessageFilter.isMatchedByConsumeQueue:
// subscribe-all matches everything, otherwise the queue entry's tagsCode
// (truncated to int32 as Java's Long.intValue does) must be in codes.
func MatchTagsCode(subString string, codes []int32, tagsCode int64) bool {
	if subString == SubAll {
		return true
	}
	return containsCode(codes, int32(tagsCode))
}

// javaTrim removes leading and trailing chars <= ' ' (String.trim).
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func containsCode(list []int32, c int32) bool {
	for _, v := range list {
		if v == c {
			return true
		}
	}
	return false
}
