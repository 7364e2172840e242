package acl

import (
	"maps"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// The admin requests rewrite an ACL file as 4.9.8 does: the whole file is
// dumped again with its dataVersion bumped. The account table in memory
// follows at once for UPDATE_AND_CREATE_ACL_CONFIG and DELETE_ACL_CONFIG;
// everything else (white addresses, the reported "version") follows when
// the watcher reloads the file.

// UpdateAccessConfig creates or updates an account
// (PlainPermissionManager.updateAccessConfig). The error's Msg is the
// remark of UPDATE_AND_CREATE_ACL_CONFIG_FAILED.
func (p *Plain) UpdateAccessConfig(c *AccessConfig) error {
	if err := checkKeys(c); err != nil {
		return err
	}
	if err := checkResourcePerms(c.TopicPerms); err != nil {
		return err
	}
	if err := checkResourcePerms(c.GroupPerms); err != nil {
		return err
	}
	acct, err := buildAccount(c)
	if err != nil {
		return err
	}
	p.adminMu.Lock()
	defer p.adminMu.Unlock()
	s := p.snap.Load()
	file := p.defaultFile
	if old := s.accounts[c.AccessKey]; old != nil {
		file = old.file
	}
	doc, err := p.docForUpdate(file)
	if err != nil {
		return err
	}
	accts := mapGet(doc, "accounts")
	if isNull(accts) || accts.Kind != yaml.SequenceNode {
		accts = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		mapSet(doc, "accounts", accts)
	}
	var existing *yaml.Node
	for i, an := range accts.Content {
		if ak, _ := scalar(mapGet(an, "accessKey")); ak == c.AccessKey {
			existing = an
			accts.Content = append(accts.Content[:i:i], accts.Content[i+1:]...)
			break
		}
	}
	accts.Content = append(accts.Content, accountNode(existing, c))
	acct.file = file
	return p.writeLocked(file, doc, func(ns *snapshot) { ns.accounts[c.AccessKey] = acct })
}

// accountNode is createAclAccessConfigMap: the existing account's map
// updated in place, or a new one, with the fields the request carries.
func accountNode(m *yaml.Node, c *AccessConfig) *yaml.Node {
	if m == nil {
		m = newMap()
	}
	mapSet(m, "accessKey", strNode(c.AccessKey))
	if c.SecretKey != "" {
		mapSet(m, "secretKey", strNode(c.SecretKey))
	}
	if c.HasWhite {
		mapSet(m, "whiteRemoteAddress", strNode(c.WhiteRemoteAddress))
	}
	mapSet(m, "admin", boolNode(c.Admin))
	if c.DefaultTopicPerm != "" {
		mapSet(m, "defaultTopicPerm", strNode(c.DefaultTopicPerm))
	}
	if c.DefaultGroupPerm != "" {
		mapSet(m, "defaultGroupPerm", strNode(c.DefaultGroupPerm))
	}
	if c.TopicPerms != nil {
		mapSet(m, "topicPerms", strList(c.TopicPerms))
	}
	if c.GroupPerms != nil {
		mapSet(m, "groupPerms", strList(c.GroupPerms))
	}
	return m
}

// DeleteAccessConfig removes an account; false when it is not configured
// (DELETE_ACL_CONFIG_FAILED).
func (p *Plain) DeleteAccessConfig(accessKey string) (bool, error) {
	if accessKey == "" {
		return false, nil
	}
	p.adminMu.Lock()
	defer p.adminMu.Unlock()
	a := p.snap.Load().accounts[accessKey]
	if a == nil {
		return false, nil
	}
	doc, err := readDoc(a.file)
	if err != nil {
		return false, err
	}
	if doc == nil || len(doc.Content) == 0 {
		return true, nil // Java: nothing in the file, reported as done
	}
	accts := mapGet(doc, "accounts")
	if accts == nil || accts.Kind != yaml.SequenceNode {
		return false, nil
	}
	for i, an := range accts.Content {
		if ak, _ := scalar(mapGet(an, "accessKey")); ak == accessKey {
			accts.Content = append(accts.Content[:i:i], accts.Content[i+1:]...)
			err := p.writeLocked(a.file, doc, func(ns *snapshot) { delete(ns.accounts, accessKey) })
			return err == nil, err
		}
	}
	return false, nil
}

// UpdateGlobalWhiteAddrs replaces globalWhiteRemoteAddresses of file (the
// default file when empty) with addrs. false mirrors Java's refusals: the
// file is missing, a directory, outside the home or a .yaml file.
func (p *Plain) UpdateGlobalWhiteAddrs(addrs []string, file string) (bool, error) {
	if file == "" {
		file = p.defaultFile
	}
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		return false, nil
	}
	if !strings.HasPrefix(file, p.cfg.Home) || strings.HasSuffix(file, ".yaml") {
		return false, nil
	}
	p.adminMu.Lock()
	defer p.adminMu.Unlock()
	doc, err := p.docForUpdate(file)
	if err != nil {
		return false, err
	}
	mapSet(doc, "globalWhiteRemoteAddresses", strList(addrs))
	return true, p.writeLocked(file, doc, nil)
}

// docForUpdate reads file for a rewrite; a file without data starts as an
// empty map.
func (p *Plain) docForUpdate(file string) (*yaml.Node, error) {
	doc, err := readDoc(file)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		doc = newMap()
	}
	return doc, nil
}

// writeLocked bumps the file's dataVersion (from the one written in the
// file, as Java does), writes it and publishes a snapshot with the new
// version and mutate applied. Caller holds adminMu.
func (p *Plain) writeLocked(file string, doc *yaml.Node, mutate func(*snapshot)) error {
	v := fileVersion(doc, 0)
	if mapGet(doc, "dataVersion") == nil {
		v = DataVersion{}
	}
	v.Counter++
	v.Timestamp = time.Now().UnixMilli()
	ver := newMap()
	mapSet(ver, "counter", intNode(v.Counter))
	mapSet(ver, "timestamp", intNode(v.Timestamp))
	mapSet(doc, "dataVersion", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{ver}})
	if err := os.WriteFile(file, dump(doc), 0o644); err != nil {
		return &Error{Msg: err.Error()}
	}
	old := p.snap.Load()
	ns := *old
	ns.accounts = maps.Clone(old.accounts)
	ns.versions = maps.Clone(old.versions)
	ns.verOrder = append([]string(nil), old.verOrder...)
	ns.setVersion(file, v)
	if mutate != nil {
		mutate(&ns)
	}
	p.snap.Store(&ns)
	return nil
}

// Version is the default file's version as last loaded (the "version"
// field of GET_BROKER_CLUSTER_ACL_INFO).
func (p *Plain) Version() DataVersion { return p.snap.Load().version }

// AllVersionsJSON is the "allAclFileVersion" field: a JSON object from
// file name to DataVersion, keys in Java HashMap order.
func (p *Plain) AllVersionsJSON() string {
	s := p.snap.Load()
	b := []byte{'{'}
	for i, f := range javaHashOrder(s.verOrder) {
		if i > 0 {
			b = append(b, ',')
		}
		b = body.AppendString(b, f, false)
		b = append(b, ':')
		b = append(b, s.versions[f].JSON()...)
	}
	return string(append(b, '}'))
}
