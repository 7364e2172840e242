package acl

import (
	"fmt"
	"strconv"

	"go.uber.org/zap"
	"gopkg.in/yaml.v3"
)

// Keys of plain_acl.yml that 4.9.8 reads. Any other key is reported: Java
// ignores it silently, which for a security file hides typos.
var (
	knownTopKeys     = map[string]bool{"globalWhiteRemoteAddresses": true, "accounts": true, "dataVersion": true}
	knownAccountKeys = map[string]bool{
		"accessKey": true, "secretKey": true, "whiteRemoteAddress": true, "admin": true,
		"defaultTopicPerm": true, "defaultGroupPerm": true, "topicPerms": true, "groupPerms": true,
	}
)

// loadDoc adds one file's white addresses, accounts and version to s.
func (p *Plain) loadDoc(s *snapshot, file string, doc *yaml.Node, now int64) error {
	p.warnUnknown(file, doc, knownTopKeys)
	whites, err := stringList(mapGet(doc, "globalWhiteRemoteAddresses"), "globalWhiteRemoteAddresses")
	if err != nil {
		return err
	}
	for _, w := range whites {
		m, err := newAddrMatcher(w)
		if err != nil {
			return err
		}
		s.global = append(s.global, m)
	}
	if accts := mapGet(doc, "accounts"); !isNull(accts) {
		if accts.Kind != yaml.SequenceNode {
			return &Error{Msg: "accounts is not a list"}
		}
		for _, an := range accts.Content {
			p.warnUnknown(file, an, knownAccountKeys)
			a, err := accountFromNode(an)
			if err != nil {
				return err
			}
			a.file = file
			if _, dup := s.accounts[a.accessKey]; dup {
				p.lg.Warn("accessKey repeated in several acl files, first kept",
					zap.String("accessKey", a.accessKey), zap.String("file", file))
				continue
			}
			s.accounts[a.accessKey] = a
		}
	}
	s.setVersion(file, fileVersion(doc, now))
	return nil
}

func (s *snapshot) setVersion(file string, v DataVersion) {
	if _, ok := s.versions[file]; !ok {
		s.verOrder = append(s.verOrder, file)
	}
	s.versions[file] = v
}

func (p *Plain) warnUnknown(file string, m *yaml.Node, known map[string]bool) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i].Value; !known[k] {
			p.lg.Warn("unknown key in acl file ignored (4.9.8 ignores it too)", zap.String("file", file), zap.String("key", k))
		}
	}
}

// fileVersion is the first entry of the file's dataVersion list, or a
// fresh version stamped now.
func fileVersion(doc *yaml.Node, now int64) DataVersion {
	v := DataVersion{Timestamp: now}
	dv := mapGet(doc, "dataVersion")
	if dv == nil || dv.Kind != yaml.SequenceNode || len(dv.Content) == 0 {
		return v
	}
	first := dv.Content[0]
	if s, ok := scalar(mapGet(first, "counter")); ok {
		v.Counter, _ = strconv.ParseInt(s, 10, 64)
	}
	if s, ok := scalar(mapGet(first, "timestamp")); ok {
		v.Timestamp, _ = strconv.ParseInt(s, 10, 64)
	}
	return v
}

// AccessConfig is one account as the yml and UPDATE_AND_CREATE_ACL_CONFIG
// give it (Java's PlainAccessConfig). HasWhite tells an absent
// whiteRemoteAddress (Java null) from an empty one.
type AccessConfig struct {
	AccessKey          string
	SecretKey          string
	WhiteRemoteAddress string
	HasWhite           bool
	Admin              bool
	DefaultTopicPerm   string
	DefaultGroupPerm   string
	TopicPerms         []string // nil: absent
	GroupPerms         []string
}

func accountFromNode(n *yaml.Node) (*account, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &Error{Msg: "an account is not a map"}
	}
	var c AccessConfig
	c.AccessKey, _ = scalar(mapGet(n, "accessKey"))
	c.SecretKey, _ = scalar(mapGet(n, "secretKey"))
	c.WhiteRemoteAddress, c.HasWhite = scalar(mapGet(n, "whiteRemoteAddress"))
	c.Admin = boolOf(mapGet(n, "admin"))
	c.DefaultTopicPerm, _ = scalar(mapGet(n, "defaultTopicPerm"))
	c.DefaultGroupPerm, _ = scalar(mapGet(n, "defaultGroupPerm"))
	var err error
	if c.TopicPerms, err = stringList(mapGet(n, "topicPerms"), "topicPerms"); err != nil {
		return nil, err
	}
	if c.GroupPerms, err = stringList(mapGet(n, "groupPerms"), "groupPerms"); err != nil {
		return nil, err
	}
	return buildAccount(&c)
}

// checkKeys is checkPlainAccessConfig: both keys longer than 6.
func checkKeys(c *AccessConfig) error {
	if len(c.AccessKey) <= 6 || len(c.SecretKey) <= 6 {
		ak, sk := nullable(c.AccessKey), nullable(c.SecretKey)
		return &Error{Msg: fmt.Sprintf("The accessKey=%s and secretKey=%s cannot be null and length should longer than 6", ak, sk)}
	}
	return nil
}

func nullable(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// buildAccount is buildPlainAccessResource.
func buildAccount(c *AccessConfig) (*account, error) {
	if err := checkKeys(c); err != nil {
		return nil, err
	}
	a := &account{accessKey: c.AccessKey, sig: newSigner(c.SecretKey), admin: c.Admin,
		defTopicPerm: ParsePerm(c.DefaultTopicPerm), defGroup: ParsePerm(c.DefaultGroupPerm)}
	if err := a.addPerms(c.GroupPerms, "group", retryPrefix); err != nil {
		return nil, err
	}
	if err := a.addPerms(c.TopicPerms, "topic", ""); err != nil {
		return nil, err
	}
	w, err := newAddrMatcher(c.WhiteRemoteAddress)
	if err != nil {
		return nil, err
	}
	a.white = w
	return a, nil
}

func (a *account) addPerms(list []string, kind, prefix string) error {
	for _, r := range list {
		res, perm, ok := splitResourcePerm(r)
		if !ok {
			return &Error{Msg: fmt.Sprintf("Parse resource permission failed for %s:%s", kind, r)}
		}
		if a.perms == nil {
			a.perms = map[string]Perm{}
		}
		a.perms[prefix+res] = ParsePerm(perm)
	}
	return nil
}
