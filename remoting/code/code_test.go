package code

import "testing"

func TestCodeNames(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{RequestName(SendMessageV2), "SEND_MESSAGE_V2"},
		{RequestName(310), "SEND_MESSAGE_V2"},
		{RequestName(GetRouteinfoByTopic), "GET_ROUTEINFO_BY_TOPIC"},
		{RequestName(HeartBeat), "HEART_BEAT"},
		{RequestName(RegisterBroker), "REGISTER_BROKER"},
		{RequestName(99999), "99999"},
		{ResponseName(Success), "SUCCESS"},
		{ResponseName(SystemBusy), "SYSTEM_BUSY"},
		{ResponseName(RequestCodeNotSupported), "REQUEST_CODE_NOT_SUPPORTED"},
		{ResponseName(209), "UPDATE_AND_CREATE_ACL_CONFIG_FAILED"},
		{ResponseName(PullNotFound), "PULL_NOT_FOUND"},
		{ResponseName(-7), "-7"},
		{VersionName(CurrentVersion), "V4_9_8"},
		{VersionName(VersionV494), "V4_9_4"},
		{VersionName(VersionV452), "V4_5_2"},
		{VersionName(VersionV533), "V5_3_3"},
		{VersionName(VersionV3011), "V3_0_11"},
		{VersionName(VersionV410Snapshot), "V4_1_0_SNAPSHOT"},
		{VersionName(1 << 20), "HIGHER_VERSION"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestCodeValues(t *testing.T) {
	vals := map[string][2]int32{
		"SendMessage":     {SendMessage, 10},
		"PullMessage":     {PullMessage, 11},
		"TopicNotExist":   {TopicNotExist, 17},
		"PollingFull":     {PollingFull, 209},
		"GoAway":          {GoAway, 1500},
		"LitePullMessage": {LitePullMessage, 361},
		"PopMessage":      {PopMessage, 200050},
		"FlowControl":     {FlowControl, 215},
	}
	for n, v := range vals {
		if v[0] != v[1] {
			t.Errorf("%s = %d, want %d", n, v[0], v[1])
		}
	}
}

func TestCodeLanguage(t *testing.T) {
	for l := Java; l <= NodeJS; l++ {
		got, ok := ParseLanguage(l.String())
		if !ok || got != l {
			t.Errorf("ParseLanguage(%q) = %v, %v", l.String(), got, ok)
		}
	}
	if Go.String() != "GO" || Go != 9 || Rust != 12 {
		t.Errorf("language ordinals wrong")
	}
	if _, ok := ParseLanguage("COBOL"); ok {
		t.Errorf("unknown language accepted")
	}
}
