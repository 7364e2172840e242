// Package code holds the numeric vocabulary of the RocketMQ remoting protocol:
// request codes, response codes, language codes and MQVersion ordinals, with
// values taken from Apache RocketMQ 4.9.8 plus the codes the 5.x remoting
// clients send (from develop).
//
// Naming: Java's NAME becomes MixedCaps mechanically (SEND_MESSAGE_V2 →
// SendMessageV2, GET_ROUTEINFO_BY_TOPIC → GetRouteinfoByTopic); a response
// name that collides with a request name would get the suffix Resp (none do at
// present). Constants are untyped so they mix with the int32 wire fields.
//
// Response codes 209, 210 and 211 are ambiguous on the wire: 4.9 uses them for
// UPDATE_AND_CREATE_ACL_CONFIG_FAILED, DELETE_ACL_CONFIG_FAILED and
// UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED; 5.x reuses them for POLLING_FULL,
// POLLING_TIMEOUT and BROKER_NOT_EXIST. Both sets of names are defined with the
// same values; ResponseName reports the 4.9 meaning because this server speaks
// 4.9.8.
//
// The ROCKETMQ binary header carries the code as an int16, so codes above
// 32767 (5.x POP codes 2000xx) only travel in JSON headers.
//
// Usage:
//
//	if req.Code == code.SendMessageV2 { ... }
//	log.Info("request", zap.String("code", code.RequestName(req.Code)))
package code
