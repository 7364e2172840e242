// Package acl is the broker's plain ACL 1.0 (Apache RocketMQ 4.9.8's
// acl module: PlainAccessValidator, PlainPermissionManager, Permission,
// AclUtils, RemoteAddressStrategyFactory, AclSigner), on when the broker
// has aclEnable=true.
//
// Files: $ROCKETMQ_HOME/conf/plain_acl.yml (or rocketmq.acl.plain.file,
// relative to the home) and every *.yml / *.yaml under
// $ROCKETMQ_HOME/conf/acl/:
//
//	globalWhiteRemoteAddresses: [10.10.103.*]   # no signature needed from these
//	accounts:
//	  - accessKey: RocketMQUser                 # longer than 6
//	    secretKey: user-secret-1234             # longer than 6
//	    whiteRemoteAddress: 192.168.1.*         # this account, no signature
//	    admin: false                            # admin-only codes 17 25 215 200 207
//	    defaultTopicPerm: DENY                  # DENY | PUB | SUB | PUB|SUB
//	    defaultGroupPerm: SUB
//	    topicPerms: [AclTopic=PUB|SUB]
//	    groupPerms: [acl_consumer_group=SUB]
//	dataVersion: [{counter: 3, timestamp: ...}] # written by the admin codes
//
// Address patterns: "*", "a.b.c.d", "a.b.*.*", "a.b.c.1-100", "a.b.c.{1,2}",
// "a,b" lists and the IPv6 forms ("2::ac5:78:1-200", "2::ac5:*").
//
// A request is signed over the values of its extFields but Signature and
// _UNIQUE_KEY_QUERY, in Java String order of their keys, then its body:
// Signature = base64(HmacSHA1(secretKey, content)). Checks run in Java's
// order (global white address, AccessKey, account, account white address,
// signature, admin code, each topic and %RETRY%group resource) and a
// refusal is an *Error whose Remark is Apache's exceptionSimpleDesc text.
//
// Invariants: the request path only reads an immutable snapshot (atomic
// pointer); reloads and admin rewrites build a new one under adminMu, which
// is held across the ACL file I/O and never on the request path. A file
// that cannot be enforced is refused at New and, on reload, leaves the
// previous snapshot in force.
//
// Usage:
//
//	v, err := acl.New(acl.Config{Home: home})
//	v.Start()                           // file watcher
//	r, err := acl.Parse(req, remoteAddr)
//	err = v.Validate(r)                 // *acl.Error: SYSTEM_ERROR, err.Remark()
package acl
