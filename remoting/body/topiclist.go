package body

// TopicList mirrors Java's TopicList. Topics are written in slice order; the
// name server orders them as Java's HashSet would.
type TopicList struct {
	TopicList  []string `json:"topicList"`
	BrokerAddr string   `json:"brokerAddr,omitempty"`
}

// Encode writes {"brokerAddr":…,"topicList":[…]} with a null brokerAddr omitted.
func (t *TopicList) Encode() []byte {
	dst := make([]byte, 0, 64+16*len(t.TopicList))
	dst = append(dst, '{')
	if t.BrokerAddr != "" {
		dst = append(dst, `"brokerAddr":`...)
		dst = AppendString(dst, t.BrokerAddr, false)
		dst = append(dst, ',')
	}
	dst = append(dst, `"topicList":`...)
	dst = AppendStringList(dst, t.TopicList, false)
	return append(dst, '}')
}

// DecodeTopicList reads a TopicList body.
func DecodeTopicList(data []byte) (*TopicList, error) {
	var t TopicList
	if err := decodeFastjson(data, &t); err != nil {
		return nil, err
	}
	return &t, nil
}
