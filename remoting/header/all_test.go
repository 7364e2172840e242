package header

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// allHeaders lists one zero value of every header type in the package.
var allHeaders = []CommandCustomHeader{
	&PopMessageRequestHeader{},
	&PopMessageResponseHeader{},
	&AckMessageRequestHeader{},
	&ChangeInvisibleTimeRequestHeader{},
	&ChangeInvisibleTimeResponseHeader{},
	&NotificationRequestHeader{},
	&NotificationResponseHeader{},
	&PeekMessageRequestHeader{},
	&PollingInfoRequestHeader{},
	&PollingInfoResponseHeader{},
	&GetAllTopicConfigRequestHeader{},
	&GetSubscriptionGroupConfigRequestHeader{},
	&RegisterFilterServerRequestHeader{},
	&RegisterFilterServerResponseHeader{},
	&RegisterMessageFilterClassRequestHeader{},
	&AddWritePermOfBrokerRequestHeader{},
	&AddWritePermOfBrokerResponseHeader{},
	&BrokerHeartbeatRequestHeader{},
	&CheckTransactionStateRequestHeader{},
	&CheckTransactionStateResponseHeader{},
	&CloneGroupOffsetRequestHeader{},
	&ConsumeMessageDirectlyResultRequestHeader{},
	&ConsumerSendMsgBackRequestHeader{},
	&CreateAccessConfigRequestHeader{},
	&CreateTopicRequestHeader{},
	&DeleteAccessConfigRequestHeader{},
	&DeleteKVConfigRequestHeader{},
	&DeleteSubscriptionGroupRequestHeader{},
	&DeleteTopicFromNamesrvRequestHeader{},
	&DeleteTopicRequestHeader{},
	&EndTransactionRequestHeader{},
	&EndTransactionResponseHeader{},
	&GetAllProducerInfoRequestHeader{},
	&GetAllTopicConfigResponseHeader{},
	&GetBrokerAclConfigResponseHeader{},
	&GetBrokerConfigResponseHeader{},
	&GetBrokerMemberGroupRequestHeader{},
	&GetConsumeStatsInBrokerHeader{},
	&GetConsumeStatsRequestHeader{},
	&GetConsumerConnectionListRequestHeader{},
	&GetConsumerListByGroupRequestHeader{},
	&GetConsumerListByGroupResponseHeader{},
	&GetConsumerRunningInfoRequestHeader{},
	&GetConsumerStatusRequestHeader{},
	&GetEarliestMsgStoretimeRequestHeader{},
	&GetEarliestMsgStoretimeResponseHeader{},
	&GetKVConfigRequestHeader{},
	&GetKVConfigResponseHeader{},
	&GetKVListByNamespaceRequestHeader{},
	&GetMaxOffsetRequestHeader{},
	&GetMaxOffsetResponseHeader{},
	&GetMinOffsetRequestHeader{},
	&GetMinOffsetResponseHeader{},
	&GetProducerConnectionListRequestHeader{},
	&GetRouteInfoRequestHeader{},
	&GetTopicConfigRequestHeader{},
	&GetTopicStatsInfoRequestHeader{},
	&GetTopicsByClusterRequestHeader{},
	&NotifyConsumerIdsChangedRequestHeader{},
	&PullMessageRequestHeader{},
	&PullMessageResponseHeader{},
	&PutKVConfigRequestHeader{},
	&QueryConsumeQueueRequestHeader{},
	&QueryConsumeTimeSpanRequestHeader{},
	&QueryConsumerOffsetRequestHeader{},
	&QueryConsumerOffsetResponseHeader{},
	&QueryCorrectionOffsetHeader{},
	&QueryDataVersionRequestHeader{},
	&QueryDataVersionResponseHeader{},
	&QueryMessageRequestHeader{},
	&QueryMessageResponseHeader{},
	&QuerySubscriptionByConsumerRequestHeader{},
	&QueryTopicConsumeByWhoRequestHeader{},
	&QueryTopicsByConsumerRequestHeader{},
	&RegisterBrokerRequestHeader{},
	&RegisterBrokerResponseHeader{},
	&RegisterOrderTopicRequestHeader{},
	&RegisterTopicRequestHeader{},
	&ReplyMessageRequestHeader{},
	&ResetOffsetRequestHeader{},
	&ResumeCheckHalfMessageRequestHeader{},
	&SearchOffsetRequestHeader{},
	&SearchOffsetResponseHeader{},
	&SendMessageRequestHeader{},
	&SendMessageRequestHeaderV2{},
	&SendMessageResponseHeader{},
	&UnRegisterBrokerRequestHeader{},
	&UnregisterClientRequestHeader{},
	&UnregisterClientResponseHeader{},
	&UpdateConsumerOffsetRequestHeader{},
	&UpdateConsumerOffsetResponseHeader{},
	&UpdateGlobalWhiteAddrsConfigRequestHeader{},
	&ViewBrokerStatsDataRequestHeader{},
	&ViewMessageRequestHeader{},
	&ViewMessageResponseHeader{},
	&WipeWritePermOfBrokerRequestHeader{},
	&WipeWritePermOfBrokerResponseHeader{},
}

// fillHeader sets every tagged field of h to a distinct non-zero value.
func fillHeader(h CommandCustomHeader) {
	v := reflect.ValueOf(h).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if _, ok := v.Type().Field(i).Tag.Lookup("ext"); !ok {
			continue
		}
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("v" + strconv.Itoa(i) + " with space\u0001")
		case reflect.Int32:
			f.SetInt(int64(-100 - i))
		case reflect.Int64:
			f.SetInt(int64(1)<<40 + int64(i))
		case reflect.Bool:
			f.SetBool(true)
		}
	}
}

func TestHeaderAllRoundTrip(t *testing.T) {
	for _, h := range allHeaders {
		name := reflect.TypeOf(h).Elem().Name()
		t.Run(name, func(t *testing.T) {
			fillHeader(h)
			ext := h.ToExtFields()
			if ext == nil {
				t.Fatal("ToExtFields returned nil")
			}
			back := reflect.New(reflect.TypeOf(h).Elem()).Interface().(CommandCustomHeader)
			if err := back.FromExtFields(ext); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, h) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", back, h)
			}
			if got := back.ToExtFields(); !reflect.DeepEqual(got, ext) {
				t.Fatalf("re-encode %v != %v", got, ext)
			}
		})
	}
}

// TestHeaderAllRequiredFields removes each required key in turn and expects
// Java's error text naming exactly that key.
func TestHeaderAllRequiredFields(t *testing.T) {
	for _, h := range allHeaders {
		typ := reflect.TypeOf(h).Elem()
		fillHeader(h)
		full := h.ToExtFields()
		for i := 0; i < typ.NumField(); i++ {
			key, opts, _ := strings.Cut(typ.Field(i).Tag.Get("ext"), ",")
			ext := make(map[string]string, len(full))
			for k, v := range full {
				ext[k] = v
			}
			delete(ext, key)
			err := reflect.New(typ).Interface().(CommandCustomHeader).FromExtFields(ext)
			if opts == "required" {
				if err == nil || err.Error() != "the custom field <"+key+"> is null" || !errors.Is(err, ErrFieldNull) {
					t.Errorf("%s without %s: err = %v", typ.Name(), key, err)
				}
			} else if err != nil {
				t.Errorf("%s without optional %s: err = %v", typ.Name(), key, err)
			}
		}
	}
}

func TestHeaderAllRegistryCodes(t *testing.T) {
	for c, f := range requestHeaders {
		h := NewRequestHeader(c)
		if h == nil || reflect.TypeOf(h) != reflect.TypeOf(f()) {
			t.Fatalf("NewRequestHeader(%d) = %T", c, h)
		}
		if reflect.TypeOf(h).Elem().Size() > 0 && NewRequestHeader(c) == h {
			t.Fatalf("NewRequestHeader(%d) not fresh", c)
		}
	}
	if NewRequestHeader(34) != nil { // HEART_BEAT carries only a body
		t.Fatal("HEART_BEAT has no header")
	}
}

func TestHeaderAllCoversRegistry(t *testing.T) {
	listed := map[reflect.Type]bool{}
	for _, h := range allHeaders {
		listed[reflect.TypeOf(h)] = true
	}
	for c, f := range requestHeaders {
		if h := f(); !listed[reflect.TypeOf(h)] {
			t.Errorf("code %d header %T missing from allHeaders", c, h)
		}
	}
}
