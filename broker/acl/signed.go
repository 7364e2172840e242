package acl

import "crypto/hmac"

// SignedRequest is a request signed outside the remoting protocol (5.x's
// gRPC authentication header): the signature covers Content only, and the
// caller lists the resources the call needs.
type SignedRequest struct {
	AccessKey string
	Addr      string // client host, or host:port
	Content   []byte // what was signed (gRPC: the x-mq-date-time value)
	Signature string // base64 of HmacSHA1(secretKey, Content)
	r         Resource
}

// Need adds a topic the call needs with permission p.
func (s *SignedRequest) Need(topic string, p Perm) { s.r.add(topic, topic != "", p) }

// NeedGroup adds a consumer group the call needs with permission p.
func (s *SignedRequest) NeedGroup(group string, p Perm) {
	s.r.add(retryPrefix+group, group != "", p)
}

// ValidateSigned checks s in Validate's order: global white address,
// account known, account white address, signature, then permissions.
func (p *Plain) ValidateSigned(s *SignedRequest) error {
	snap := p.snap.Load()
	addr := hostOf(s.Addr)
	for _, m := range snap.global {
		if m.match(addr) {
			return nil
		}
	}
	if s.AccessKey == "" {
		return refusal(frameValidate+"664)", "No accessKey is configured")
	}
	a := snap.accounts[s.AccessKey]
	if a == nil {
		return refusal(frameValidate+"668)", "No acl config for "+s.AccessKey)
	}
	if a.white.match(addr) {
		return nil
	}
	want := Sign(s.Content, string(a.sig.key))
	if !hmac.Equal([]byte(want), []byte(s.Signature)) {
		return refusal(frameValidate+"684)", "Check signature failed for accessKey="+s.AccessKey)
	}
	s.r.Addr = addr
	return checkPerm(&s.r, a)
}

// SecretKey is the secret of accessKey's account, for a front end (the
// gRPC proxy) that signs its broker requests as the account it admitted.
func (p *Plain) SecretKey(accessKey string) (string, bool) {
	a := p.snap.Load().accounts[accessKey]
	if a == nil {
		return "", false
	}
	return string(a.sig.key), true
}
