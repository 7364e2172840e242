package console

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/internal/message"
)

// bodyPreviewMax bounds the body bytes a message answer carries.
const bodyPreviewMax = 4096

// Message is one message of /api/message.
type Message struct {
	Topic           string            `json:"topic"`
	MsgID           string            `json:"msgId"` // offsetMsgId
	UniqKey         string            `json:"uniqKey"`
	Tags            string            `json:"tags"`
	Keys            string            `json:"keys"`
	QueueID         int32             `json:"queueId"`
	QueueOffset     int64             `json:"queueOffset"`
	CommitLogOffset int64             `json:"commitLogOffset"`
	BornHost        string            `json:"bornHost"`
	StoreHost       string            `json:"storeHost"`
	BornTimestamp   int64             `json:"bornTimestamp"`
	StoreTimestamp  int64             `json:"storeTimestamp"`
	ReconsumeTimes  int32             `json:"reconsumeTimes"`
	Properties      map[string]string `json:"properties"`
	BodySize        int               `json:"bodySize"`
	Body            string            `json:"body"`         // preview, at most bodyPreviewMax bytes
	BodyEncoding    string            `json:"bodyEncoding"` // "text", "base64" or "" (compressed, not shown)
	BodyTruncated   bool              `json:"bodyTruncated"`
}

func (c *Console) messageAPI(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	topic, id, key := q.Get("topic"), q.Get("id"), q.Get("key")
	a := c.admin()
	var msgs []*message.MessageExt
	switch {
	case id != "":
		m, err := a.ViewMessage(ctx, topic, id)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	case key != "" && topic != "":
		var err error
		if msgs, err = a.QueryMessageByKey(ctx, topic, key, admin.DefaultQueryMaxNum); err != nil {
			return nil, err
		}
	default:
		return nil, badRequest("give topic and id, or topic and key")
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = toMessage(m)
	}
	return map[string]any{"messages": out}, nil
}

func toMessage(m *message.MessageExt) Message {
	props := m.Properties
	if props == nil {
		props = map[string]string{}
	}
	out := Message{Topic: m.Topic, MsgID: m.MsgID, UniqKey: m.Property(message.PropertyUniqClientMessageIDKeyidx),
		Tags: m.Tags(), Keys: m.Keys(), QueueID: m.QueueID, QueueOffset: m.QueueOffset, CommitLogOffset: m.CommitLogOffset,
		BornHost: m.BornHost.String(), StoreHost: m.StoreHost.String(), BornTimestamp: m.BornTimestamp,
		StoreTimestamp: m.StoreTimestamp, ReconsumeTimes: m.ReconsumeTimes, Properties: props}
	b := m.Body
	if m.SysFlag&message.SysFlagCompressed != 0 {
		var ok bool
		if b, ok = inflate(m.Body, m.SysFlag); !ok {
			out.BodySize = len(m.Body)
			return out
		}
	}
	out.BodySize = len(b)
	if len(b) > bodyPreviewMax {
		b, out.BodyTruncated = b[:bodyPreviewMax], true
	}
	if utf8.Valid(b) || out.BodyTruncated && utf8.Valid(b[:max(len(b)-utf8.UTFMax, 0)]) {
		out.Body, out.BodyEncoding = string(b), "text"
	} else {
		out.Body, out.BodyEncoding = base64.StdEncoding.EncodeToString(b), "base64"
	}
	return out
}

// inflate undoes zlib compression (4.9.8's only kind), reading at most one
// byte past the preview so a huge body is never expanded in memory.
func inflate(b []byte, sysFlag int32) ([]byte, bool) {
	if t := sysFlag & message.SysFlagCompressionMask; t != 0 && t != message.SysFlagCompressionZLIB {
		return nil, false
	}
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, bodyPreviewMax+1))
	if err != nil {
		return nil, false
	}
	return out, true
}
