package acl

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Keys the client signs with (SessionCredentials) and the key the broker
// leaves out of the signed content besides the signature.
const (
	KeyAccessKey   = "AccessKey"
	KeySignature   = "Signature"
	keyUniqueQuery = "_UNIQUE_KEY_QUERY"
	retryPrefix    = "%RETRY%"
	traceTopic     = "RMQ_SYS_TRACE_TOPIC"
)

// Resource is what one request needs (Java's PlainAccessResource built by
// PlainAccessValidator.parse): who signs it, from where, and the topics and
// groups (as %RETRY%group) with the permission each needs.
type Resource struct {
	Code      int32
	Addr      string // client host, Java's whiteRemoteAddress
	AccessKey string
	HasKey    bool // AccessKey present (Java: not null)
	Signature string
	HasSig    bool

	perms []resPerm // insertion order; a later add of a resource replaces its perm in place
	inl   [2]resPerm
	req   *codec.RemotingCommand
}

type resPerm struct {
	res  string
	perm Perm
}

func (r *Resource) add(res string, ok bool, p Perm) {
	if !ok {
		return // Java's addResourceAndPerm ignores a null resource
	}
	for i := range r.perms {
		if r.perms[i].res == res {
			r.perms[i].perm = p
			return
		}
	}
	r.perms = append(r.perms, resPerm{res, p})
}

func (r *Resource) perm(res string) (Perm, bool) {
	for _, rp := range r.perms {
		if rp.res == res {
			return rp.perm, true
		}
	}
	return 0, false
}

// Parse reads req as PlainAccessValidator.parse does. remoteAddr is the
// channel's remote address ("host:port"). A request whose header or
// heartbeat body cannot be decoded yields the *Error Java throws from parse.
func Parse(req *codec.RemotingCommand, remoteAddr string) (*Resource, error) {
	r := &Resource{Code: req.Code, Addr: hostOf(remoteAddr), req: req}
	r.perms = r.inl[:0]
	ext := req.Fields() // builds a lazily decoded header's map: signing needs it
	if ext == nil {
		return r, nil
	}
	r.AccessKey, r.HasKey = ext[KeyAccessKey]
	r.Signature, r.HasSig = ext[KeySignature]
	if err := r.parseResources(req, ext); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Resource) parseResources(req *codec.RemotingCommand, ext map[string]string) error {
	switch req.Code {
	case code.SendMessage:
		r.addSend(ext, "topic", "group")
	case code.SendMessageV2:
		r.addSend(ext, "b", "a")
	case code.ConsumerSendMsgBack:
		r.addGroup(ext, "group")
	case code.PullMessage:
		r.addTopic(ext, "topic", Sub)
		r.addGroup(ext, "consumerGroup")
	case code.QueryMessage:
		r.addTopic(ext, "topic", Sub)
	case code.HeartBeat:
		return r.addHeartbeat(req.Body)
	case code.UnregisterClient:
		if err := checkHeader(ext, hdrField{"clientID", true, false}); err != nil {
			return err
		}
		r.addGroup(ext, "consumerGroup")
	case code.GetConsumerListByGroup:
		if err := checkHeader(ext, hdrField{"consumerGroup", true, false}); err != nil {
			return err
		}
		r.addGroup(ext, "consumerGroup")
	case code.UpdateConsumerOffset:
		if err := checkHeader(ext, hdrField{"consumerGroup", true, false}, hdrField{"topic", true, false},
			hdrField{"queueId", true, true}, hdrField{"commitOffset", true, true}); err != nil {
			return err
		}
		r.addGroup(ext, "consumerGroup")
		r.addTopic(ext, "topic", Sub)
	case code.PopMessage, code.PeekMessage, code.AckMessage, code.ChangeMessageInvisibletime,
		code.Notification, code.PollingInfo:
		r.addPopHeader(ext)
	case code.BatchAckMessage:
		return r.addBatchAck(req.Body)
	case code.QueryAssignment, code.SetMessageRequestMode:
		return r.addTopicGroupBody(req.Body)
	}
	return nil
}

func (r *Resource) addTopic(ext map[string]string, k string, p Perm) {
	t, ok := ext[k]
	r.add(t, ok, p)
}

// addSend: a send to a retry topic needs SUB on the group's retry topic,
// any other send PUB on the topic.
func (r *Resource) addSend(ext map[string]string, topicKey, groupKey string) {
	t, ok := ext[topicKey]
	if ok && strings.HasPrefix(t, retryPrefix) {
		r.addGroup(ext, groupKey)
		return
	}
	r.add(t, ok, Pub)
}

func (r *Resource) addGroup(ext map[string]string, k string) {
	g, ok := ext[k]
	r.add(retryPrefix+g, ok, Sub)
}

func (r *Resource) addHeartbeat(data []byte) error {
	if data == nil {
		return &Error{NoMsg: true, frame: frameParse} // NullPointerException, null message
	}
	hb, err := body.DecodeHeartbeatData(data)
	if err != nil {
		return refusal(frameParse, err.Error())
	}
	for _, c := range hb.ConsumerDataSet {
		r.add(retryPrefix+c.GroupName, true, Sub)
		for _, s := range c.SubscriptionDataSet {
			r.add(s.Topic, true, Sub)
		}
	}
	return nil
}

// hdrField is one field of a custom header in Java declaration order:
// required (@CFNotNull) and whether it must parse as a number.
type hdrField struct {
	name     string
	required bool
	number   bool
}

// checkHeader fails as decodeCommandCustomHeader does, on the first field
// in declaration order that is missing or not a number.
func checkHeader(ext map[string]string, fields ...hdrField) error {
	for _, f := range fields {
		v, ok := ext[f.name]
		if !ok {
			if f.required {
				return refusal(frameParse, "the custom field <"+f.name+"> is null")
			}
			continue
		}
		if f.number {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return refusal(frameParse, fmt.Sprintf("For input string: %q", v))
			}
		}
	}
	return nil
}

// hostOf is the host part of a channel address, written as Java's
// InetAddress.getHostAddress writes it (IPv6 as eight uncompressed
// lower-case groups).
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		if i := strings.LastIndexByte(addr, ':'); i >= 0 {
			return addr[:i]
		}
		return addr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Is6() || ip.Is4In6() {
		return host
	}
	b := ip.As16()
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(strconv.FormatUint(uint64(b[i])<<8|uint64(b[i+1]), 16))
	}
	if z := ip.Zone(); z != "" {
		sb.WriteString("%" + z)
	}
	return sb.String()
}
