package body

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrBadRegisterBody wraps every failure to read a compressed register body.
var ErrBadRegisterBody = errors.New("body: bad compressed register body")

// maxCompressedItem bounds one length-prefixed item of a compressed register
// body so a hostile length cannot allocate gigabytes.
const maxCompressedItem = 64 << 20

// DataVersion mirrors Java's DataVersion. StateVersion is 5.x only and is
// written only when non-zero.
type DataVersion struct {
	Timestamp    int64 `json:"timestamp"`
	Counter      int64 `json:"counter"`
	StateVersion int64 `json:"stateVersion,omitempty"`
}

// Encode writes {"counter":…,"timestamp":…}.
func (d *DataVersion) Encode() []byte {
	dst := append(make([]byte, 0, 48), `{"counter":`...)
	dst = strconv.AppendInt(dst, d.Counter, 10)
	if d.StateVersion != 0 {
		dst = append(dst, `,"stateVersion":`...)
		dst = strconv.AppendInt(dst, d.StateVersion, 10)
	}
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, d.Timestamp, 10)
	return append(dst, '}')
}

// DecodeDataVersion reads a DataVersion body.
func DecodeDataVersion(data []byte) (*DataVersion, error) {
	var d DataVersion
	if err := decodeFastjson(data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// TopicConfig mirrors Java's TopicConfig (4.9.8 fields).
type TopicConfig struct {
	TopicName       string `json:"topicName"`
	ReadQueueNums   int32  `json:"readQueueNums"`
	WriteQueueNums  int32  `json:"writeQueueNums"`
	Perm            int32  `json:"perm"`
	TopicFilterType string `json:"topicFilterType"`
	TopicSysFlag    int32  `json:"topicSysFlag"`
	Order           bool   `json:"order"`
}

// NewTopicConfig returns Java's defaults: 16/16 queues, perm RW, SINGLE_TAG.
func NewTopicConfig(name string) TopicConfig {
	return TopicConfig{TopicName: name, ReadQueueNums: 16, WriteQueueNums: 16, Perm: 6, TopicFilterType: "SINGLE_TAG"}
}

// AppendJSON writes the fastjson bean form (fields sorted).
func (t *TopicConfig) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"order":`...)
	dst = strconv.AppendBool(dst, t.Order)
	dst = append(dst, `,"perm":`...)
	dst = strconv.AppendInt(dst, int64(t.Perm), 10)
	dst = append(dst, `,"readQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(t.ReadQueueNums), 10)
	if t.TopicFilterType != "" {
		dst = append(dst, `,"topicFilterType":`...)
		dst = AppendString(dst, t.TopicFilterType, false)
	}
	if t.TopicName != "" {
		dst = append(dst, `,"topicName":`...)
		dst = AppendString(dst, t.TopicName, false)
	}
	dst = append(dst, `,"topicSysFlag":`...)
	dst = strconv.AppendInt(dst, int64(t.TopicSysFlag), 10)
	dst = append(dst, `,"writeQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(t.WriteQueueNums), 10)
	return append(dst, '}')
}

// EncodeCompact is TopicConfig.encode(): "name read write perm filterType".
func (t *TopicConfig) EncodeCompact() string {
	return t.TopicName + " " + strconv.Itoa(int(t.ReadQueueNums)) + " " + strconv.Itoa(int(t.WriteQueueNums)) +
		" " + strconv.Itoa(int(t.Perm)) + " " + t.TopicFilterType
}

// DecodeCompact parses the compact form; 5.x appends a sixth field
// (attributes JSON), which is accepted and ignored.
func DecodeCompact(s string) (TopicConfig, error) {
	f := strings.SplitN(s, " ", 6)
	if len(f) < 5 {
		return TopicConfig{}, fmt.Errorf("%w: topic config %q", ErrBadRegisterBody, s)
	}
	t := TopicConfig{TopicName: f[0], TopicFilterType: f[4]}
	for i, p := range []*int32{&t.ReadQueueNums, &t.WriteQueueNums, &t.Perm} {
		n, err := strconv.ParseInt(f[i+1], 10, 32)
		if err != nil {
			return TopicConfig{}, fmt.Errorf("%w: topic config %q", ErrBadRegisterBody, s)
		}
		*p = int32(n)
	}
	return t, nil
}

// TopicConfigSerializeWrapper mirrors Java's class of the same name.
// Order lists the topics in the order to write them (the broker's
// ConcurrentHashMap order); nil means Java hash order of the table.
type TopicConfigSerializeWrapper struct {
	TopicConfigTable map[string]TopicConfig `json:"topicConfigTable"`
	DataVersion      DataVersion            `json:"dataVersion"`
	Order            []string               `json:"-"`
}

// topicConfigTableCap is the table size of ConcurrentHashMap(1024), the
// broker's TopicConfigManager table.
const topicConfigTableCap = 2048

// Topics returns the topic names in write order.
func (w *TopicConfigSerializeWrapper) Topics() []string {
	if w.Order != nil {
		return w.Order
	}
	keys := nsKeys(w.TopicConfigTable)
	SortJavaHashOrder(keys, topicConfigTableCap)
	return keys
}

// AppendJSON writes {"dataVersion":…,"topicConfigTable":{…}}.
func (w *TopicConfigSerializeWrapper) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"dataVersion":`...)
	dst = append(dst, w.DataVersion.Encode()...)
	dst = append(dst, `,"topicConfigTable":{`...)
	for i, name := range w.Topics() {
		if i > 0 {
			dst = append(dst, ',')
		}
		tc := w.TopicConfigTable[name]
		dst = AppendKey(dst, name, false)
		dst = tc.AppendJSON(dst)
	}
	return append(dst, "}}"...)
}

// RegisterBrokerBody mirrors Java's RegisterBrokerBody.
type RegisterBrokerBody struct {
	TopicConfigSerializeWrapper TopicConfigSerializeWrapper `json:"topicConfigSerializeWrapper"`
	FilterServerList            []string                    `json:"filterServerList"`
}

// Encode writes the JSON form, or with compress the zlib form of 4.9.x
// (Deflater BEST_COMPRESSION; see package doc of the name server).
func (r *RegisterBrokerBody) Encode(compress bool) ([]byte, error) {
	if !compress {
		dst := append(make([]byte, 0, 512), `{"filterServerList":`...)
		dst = AppendStringList(dst, r.FilterServerList, false)
		dst = append(dst, `,"topicConfigSerializeWrapper":`...)
		dst = r.TopicConfigSerializeWrapper.AppendJSON(dst)
		return append(dst, '}'), nil
	}
	var raw bytes.Buffer
	putItem := func(b []byte) {
		_ = binary.Write(&raw, binary.BigEndian, int32(len(b)))
		raw.Write(b)
	}
	w := &r.TopicConfigSerializeWrapper
	putItem(w.DataVersion.Encode())
	topics := w.Topics()
	_ = binary.Write(&raw, binary.BigEndian, int32(len(topics)))
	for _, name := range topics {
		tc := w.TopicConfigTable[name]
		putItem([]byte(tc.EncodeCompact()))
	}
	putItem(AppendStringList(nil, r.FilterServerList, false))
	var out bytes.Buffer
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DecodeRegisterBrokerBody reads either form. Nothing in data can make it
// panic or allocate more than the data and maxCompressedItem allow.
func DecodeRegisterBrokerBody(data []byte, compressed bool) (*RegisterBrokerBody, error) {
	if !compressed {
		var r RegisterBrokerBody
		if err := decodeFastjson(data, &r); err != nil {
			lr, lerr := decodeRegisterBrokerBodyLenient(data)
			if lerr != nil {
				return nil, err
			}
			r = *lr
		}
		for name, tc := range r.TopicConfigSerializeWrapper.TopicConfigTable {
			if tc.TopicName == "" {
				tc.TopicName = name
				r.TopicConfigSerializeWrapper.TopicConfigTable[name] = tc
			}
		}
		return &r, nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRegisterBody, err)
	}
	defer zr.Close()
	return decodeCompressed(zr)
}

func decodeCompressed(zr io.Reader) (*RegisterBrokerBody, error) {
	dv, err := readItem(zr)
	if err != nil {
		return nil, err
	}
	r := &RegisterBrokerBody{}
	w := &r.TopicConfigSerializeWrapper
	if err := decodeFastjson(dv, &w.DataVersion); err != nil {
		return nil, err
	}
	n, err := readInt(zr)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: negative topic count", ErrBadRegisterBody)
	}
	w.TopicConfigTable = make(map[string]TopicConfig, min(n, 4096))
	for i := int32(0); i < n; i++ {
		item, err := readItem(zr)
		if err != nil {
			return nil, err
		}
		tc, err := DecodeCompact(string(item))
		if err != nil {
			return nil, err
		}
		w.TopicConfigTable[tc.TopicName] = tc
	}
	fs, err := readItem(zr)
	if err != nil {
		return nil, err
	}
	// Java logs and keeps an empty list when this part is unreadable.
	_ = decodeFastjson(fs, &r.FilterServerList)
	return r, nil
}

func readInt(r io.Reader) (int32, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadRegisterBody, err)
	}
	return int32(binary.BigEndian.Uint32(b[:])), nil
}

func readItem(r io.Reader) ([]byte, error) {
	n, err := readInt(r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > maxCompressedItem {
		return nil, fmt.Errorf("%w: item length %d", ErrBadRegisterBody, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRegisterBody, err)
	}
	return buf, nil
}

// RegisterBrokerResult mirrors Java's RegisterBrokerResult: what a broker
// learns from one name server (header masterAddr/haServerAddr, body KVTable).
type RegisterBrokerResult struct {
	HaServerAddr string
	MasterAddr   string
	KVTable      *KVTable
}
