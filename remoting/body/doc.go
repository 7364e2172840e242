// Package body holds the JSON bodies of RocketMQ remoting commands and writes
// them with the exact bytes Apache RocketMQ 4.9.8 (fastjson 1.2.x) produces.
//
// fastjson is not standard JSON in two ways that matter on the wire:
//
//	{"brokerAddrs":{0:"127.0.0.1:10911"}}                 integer map keys unquoted
//	{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:5}}   objects as keys
//
// Readers first call Normalize, which rewrites both forms into standard JSON
// (integer keys quoted, object keys turned into a string that holds their
// compact JSON), then decode with json-iterator. Writers build bytes by hand:
// bean fields in alphabetical order, null fields omitted, map keys in the
// iteration order of the Java hash table that held them (SortJavaHashOrder),
// integer keys bare unless the standard form is asked for.
//
// fastjson also converts between JSON types where a Java field asks for it,
// and clients other than the Java one depend on that (the C++ client writes
// heartbeat enums as ordinals and subVersion as a string). Client bodies
// read their fields through the lenient types of lenient.go (enum names or
// ordinals, numbers and booleans as strings, absent fields as Java
// defaults); bodies from servers and admin tools are read strictly first
// and leniently only when that fails, so canonical input costs nothing
// more.
//
// Name-server bodies (route.go, cluster.go, register.go, kv.go, topiclist.go)
// follow the 4.9.8 classes TopicRouteData, ClusterInfo, RegisterBrokerBody,
// TopicConfigSerializeWrapper, KVTable and TopicList.
package body
