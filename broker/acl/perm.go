package acl

import (
	"fmt"
	"strings"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// Perm is a permission bit set as 4.9.8 stores it (acl Permission's byte
// constants): DENY always wins, PUB and SUB grant sending and consuming.
type Perm byte

// Permission bits, values as in Java's Permission.
const (
	Deny Perm = 1
	Any  Perm = 1 << 1
	Pub  Perm = 1 << 2
	Sub  Perm = 1 << 3
)

// ParsePerm reads a permission as the yml and UPDATE_AND_CREATE_ACL_CONFIG
// write it ("PUB", "SUB", "PUB|SUB", "SUB|PUB", "DENY"); anything else,
// empty included, is DENY.
func ParsePerm(s string) Perm {
	switch strings.TrimSpace(s) {
	case "PUB":
		return Pub
	case "SUB":
		return Sub
	case "PUB|SUB", "SUB|PUB":
		return Pub | Sub
	default:
		return Deny
	}
}

// allows reports whether owned grants needed.
func (owned Perm) allows(needed Perm) bool {
	if owned&Deny != 0 {
		return false
	}
	if needed&Any != 0 {
		return owned&(Pub|Sub) != 0
	}
	return needed&owned != 0
}

// adminCodes are the request codes only an admin account may send
// (Permission.ADMIN_CODE); the ACL codes 50-53 are not among them.
var adminCodes = map[int32]bool{
	code.UpdateAndCreateTopic:             true,
	code.UpdateBrokerConfig:               true,
	code.DeleteTopicInBroker:              true,
	code.UpdateAndCreateSubscriptiongroup: true,
	code.DeleteSubscriptiongroup:          true,
}

// NeedAdmin reports whether requests of code c need an admin account.
func NeedAdmin(c int32) bool { return adminCodes[c] }

// splitResourcePerm splits "Res=PERM" as commons-lang StringUtils.split
// does (empty tokens dropped); ok is false unless exactly two remain.
func splitResourcePerm(s string) (res, perm string, ok bool) {
	var items []string
	for _, it := range strings.Split(s, "=") {
		if it != "" {
			items = append(items, it)
		}
	}
	if len(items) != 2 {
		return "", "", false
	}
	return strings.TrimSpace(items[0]), strings.TrimSpace(items[1]), true
}

// checkResourcePerms validates topicPerms/groupPerms of an admin update
// (Permission.checkResourcePerms): "Res=Perm" with a known permission.
func checkResourcePerms(list []string) error {
	for _, r := range list {
		_, p, ok := splitResourcePerm(r)
		if !ok {
			return &Error{Msg: fmt.Sprintf("Parse Resource format error for %s.\n"+
				"The expected resource format is 'Res=Perm'. For example: topicA=SUB", r)}
		}
		if p != "DENY" && ParsePerm(p) == Deny {
			return &Error{Msg: fmt.Sprintf("Parse resource permission error for %s.\n"+
				"The expected permissions are 'SUB' or 'PUB' or 'SUB|PUB' or 'PUB|SUB'.", r)}
		}
	}
	return nil
}
