package filter

import (
	"reflect"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
)

func TestFilterBuildSubscription(t *testing.T) {
	now := time.UnixMilli(1234)
	s, err := BuildSubscription("T", "TagA || TagB", "", now)
	if err != nil {
		t.Fatal(err)
	}
	want := &body.SubscriptionData{Topic: "T", SubString: "TagA || TagB", TagsSet: []string{"TagA", "TagB"},
		CodeSet: []int32{2598919, 2598920}, SubVersion: 1234, ExpressionType: "TAG"}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v", s)
	}
	if s, _ := BuildSubscription("T", "", "TAG", now); s.SubString != "*" {
		t.Fatalf("empty TAG expression subscribes all: %+v", s)
	}
	if s, err := BuildSubscription("T", "a > 1", "SQL92", now); err != nil || s.SubString != "a > 1" || s.ExpressionType != "SQL92" || len(s.CodeSet) != 0 {
		t.Fatalf("SQL92 %+v %v", s, err)
	}
	if _, err := BuildSubscription("T", "", "SQL92", now); err == nil {
		t.Fatal("empty SQL92 expression")
	}
}

func TestFilterCheckClientConfig(t *testing.T) {
	cases := []struct {
		sd     *body.SubscriptionData
		enable bool
		code   int32
	}{
		{nil, false, code.Success},
		{&body.SubscriptionData{SubString: "TagA", ExpressionType: "TAG"}, false, code.Success},
		{&body.SubscriptionData{SubString: "a > 1", ExpressionType: "SQL92"}, false, code.SystemError},
		{&body.SubscriptionData{SubString: "a > 1", ExpressionType: "SQL92"}, true, code.Success},
		{&body.SubscriptionData{SubString: "a >", ExpressionType: "SQL92"}, true, code.SubscriptionParseFailed},
		{&body.SubscriptionData{SubString: "a", ExpressionType: "CLASS"}, true, code.SubscriptionParseFailed},
	}
	for i, c := range cases {
		got, remark := CheckClientConfig(c.sd, c.enable)
		if got != c.code || (got != code.Success && remark == "") {
			t.Errorf("case %d: (%d, %q), want %d", i, got, remark, c.code)
		}
	}
	if _, remark := CheckClientConfig(&body.SubscriptionData{SubString: "a > 1", ExpressionType: "SQL92"}, false); remark != "The broker does not support consumer to filter message by SQL92" {
		t.Errorf("remark %q", remark)
	}
}
