package proxy

import (
	"bytes"
	"compress/zlib"
	"io"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// maxDecompressedBodyMB bounds an inflated message body.
const maxDecompressedBodyMB = 64

// toV2Message converts a stored message, as a POP answer returns it, into
// the v2 Message a gRPC consumer receives, filling the system properties as
// 5.x's GrpcConverter.buildMessage does. The receipt handle is taken from the
// POP_CK property, which the receive path sets to the full handle first.
//
// One deliberate difference: a body stored compressed (by a remoting
// producer, with zlib) is inflated here and sent with IDENTITY encoding,
// because 5.x would label those zlib bytes GZIP and a 5.x SDK would fail to
// decode them.
func toV2Message(m *message.MessageExt, now int64) *apiv2.Message {
	cp := *m
	if m.SysFlag&message.SysFlagCompressed != 0 {
		if b, err := inflate(m.Body); err == nil {
			cp.Body = b
			cp.SysFlag &^= message.SysFlagCompressed
		}
	}
	v := ProtoMessage(&cp)
	sp := v.SystemProperties
	if sp.MessageId == "" {
		sp.MessageId = messageIDOf(m)
	}
	// 5.x reports the born host's IP only (MessageExt.getBornHostString).
	if strings.TrimSpace(m.Properties[propBornHost]) == "" && m.BornHost.IsValid() {
		sp.BornHost = m.BornHost.Addr().Unmap().String()
	}
	if ms, ok := deliveryTimeOf(m.Properties, now); ok {
		sp.DeliveryTimestamp = timestamppb.New(time.UnixMilli(ms))
	}
	return v
}

// messageIDOf is the client's message id (UNIQ_KEY), else the offset id.
func messageIDOf(m *message.MessageExt) string {
	if id, ok := m.Properties[message.PropertyUniqClientMessageIDKeyidx]; ok {
		return id
	}
	if m.MsgID != "" {
		return m.MsgID
	}
	if m.StoreHost.IsValid() {
		return message.OffsetMsgID(m.StoreHost, m.CommitLogOffset)
	}
	return ""
}

// deliveryTimeOf is the delivery timestamp 5.x reports: now + TIMER_DELAY_SEC,
// else TIMER_DELIVER_MS. A value that does not parse gives none (5.x would
// fail the whole receive on it).
func deliveryTimeOf(props map[string]string, now int64) (int64, bool) {
	if s, ok := props[propTimerDelaySec]; ok {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		return now + sec*1000, true
	}
	if s, ok := props[propTimerDeliverMs]; ok {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		return ms, true
	}
	return 0, false
}

// inflate undoes the zlib compression of remoting producers, refusing
// bodies that grow past a bound.
func inflate(b []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, maxDecompressedBodyMB<<20))
}

// filterExpressionOf maps a v2 FilterExpression to the expression type and
// text of a POP_MESSAGE header: SQL → SQL92, anything else → TAG; an empty
// tag expression subscribes to everything ("*"), as FilterAPI.build does.
func filterExpressionOf(fe *apiv2.FilterExpression) (exprType, expr string) {
	expr = fe.GetExpression()
	if fe.GetType() == apiv2.FilterType_SQL {
		return "SQL92", expr
	}
	if expr == "" {
		expr = "*"
	}
	return "TAG", expr
}
