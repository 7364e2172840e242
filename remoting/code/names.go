package code

import "strconv"

// MQVersion ordinals (Java MQVersion.Version) that servers and clients branch on.
const (
	VersionV3011        int32 = 37  // V3_0_11: RegisterBrokerBody parsed from REGISTER_BROKER
	VersionV318Snapshot int32 = 62  // V3_1_8_SNAPSHOT
	VersionV349         int32 = 121 // V3_4_9: send honours maxReconsumeTimes
	VersionV400Snapshot int32 = 212 // V4_0_0_SNAPSHOT
	VersionV410Snapshot int32 = 232 // V4_1_0_SNAPSHOT: brokers below refuse SQL92 subscriptions
	VersionV452         int32 = 317 // V4_5_2: what rocketmq-client-go v2 sends
	VersionV490         int32 = 393 // V4_9_0
	VersionV494         int32 = 401 // V4_9_4: route bodies as standard JSON from here on
	VersionV498         int32 = 409 // V4_9_8
	VersionV500         int32 = 413 // V5_0_0
	VersionV510         int32 = 433 // V5_1_0
	VersionV520         int32 = 453 // V5_2_0
	VersionV530         int32 = 473 // V5_3_0
	VersionV531         int32 = 475 // V5_3_1
	VersionV533         int32 = 479 // V5_3_3

	// CurrentVersion is what this server writes in the version field (V4_9_8).
	CurrentVersion int32 = VersionV498
)

// RequestName returns Java's RequestCode constant name for c, or the decimal
// number when c is not a known request code.
func RequestName(c int32) string {
	if n, ok := requestNames[c]; ok {
		return n
	}
	return strconv.FormatInt(int64(c), 10)
}

// ResponseName returns Java's ResponseCode constant name for c (4.9 meaning for
// 209..211), or the decimal number when c is unknown.
func ResponseName(c int32) string {
	if n, ok := responseNames[c]; ok {
		return n
	}
	return strconv.FormatInt(int64(c), 10)
}

// VersionName returns the MQVersion.Version enum name for an ordinal, e.g.
// "V4_9_8" for 409; out-of-range ordinals give "HIGHER_VERSION" like Java's
// MQVersion.value2Version, and negative ones "V3_0_0_SNAPSHOT".
func VersionName(v int32) string {
	switch {
	case v < 0:
		return versionNames[0]
	case int(v) >= len(versionNames):
		return versionNames[len(versionNames)-1]
	}
	return versionNames[v]
}
