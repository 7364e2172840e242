package acl

import (
	"fmt"
	"strings"
)

// Validate checks r as PlainPermissionManager.validate does, in its order:
// global white address, AccessKey present, account known, account white
// address, signature, then permissions. The *Error it returns carries the
// remark Apache's broker answers with.
func (p *Plain) Validate(r *Resource) error {
	s := p.snap.Load()
	for _, m := range s.global {
		if m.match(r.Addr) {
			return nil
		}
	}
	if !r.HasKey {
		return refusal(frameValidate+"664)", "No accessKey is configured")
	}
	a := s.accounts[r.AccessKey]
	if a == nil {
		return refusal(frameValidate+"668)", "No acl config for "+r.AccessKey)
	}
	if a.white.match(r.Addr) {
		return nil
	}
	if !r.HasSig || !a.sig.verify(r.req.ExtFields, r.req.Body, r.Signature) {
		return refusal(frameValidate+"684)", "Check signature failed for accessKey="+r.AccessKey)
	}
	if tp, ok := r.perm(traceTopic); ok && tp == Pub {
		return nil // message trace may always publish
	}
	return checkPerm(r, a)
}

// checkPerm: admin-only codes first, then every resource in Java HashMap
// order against the account's own permission for it or its default.
func checkPerm(r *Resource, a *account) error {
	if NeedAdmin(r.Code) && !a.admin {
		return refusal(frameCheckPerm+"581)",
			fmt.Sprintf("Need admin permission for request code=%d, but accessKey=%s is not", r.Code, a.accessKey))
	}
	if len(r.perms) == 0 || (a.perms == nil && a.admin) {
		return nil
	}
	if len(r.perms) == 1 {
		return checkResource(a, r.perms[0].res, r.perms[0].perm)
	}
	for _, res := range r.orderedResources() {
		needed, _ := r.perm(res)
		if err := checkResource(a, res, needed); err != nil {
			return err
		}
	}
	return nil
}

// checkResource checks one resource against the account's own permission
// for it (throw site 611) or its default (606).
func checkResource(a *account, res string, needed Perm) error {
	isGroup := strings.HasPrefix(res, retryPrefix)
	owned, ok := a.perms[res]
	line := "611)"
	if !ok {
		owned, line = a.defTopicPerm, "606)"
		if isGroup {
			owned = a.defGroup
		}
	}
	if !owned.allows(needed) {
		return refusal(frameCheckPerm+line, "No default permission for "+printResource(res, isGroup))
	}
	return nil
}

func (r *Resource) orderedResources() []string {
	keys := make([]string, len(r.perms))
	for i, rp := range r.perms {
		keys[i] = rp.res
	}
	if len(keys) < 2 {
		return keys
	}
	return javaHashOrder(keys)
}

func printResource(res string, isGroup bool) string {
	if isGroup {
		return "group:" + strings.TrimPrefix(res, retryPrefix)
	}
	return "topic:" + res
}
