package commitlog

// DispatchRequest is what the store's dispatchers (consume queue, index,
// message-arriving listener) need from one valid record (Java
// DispatchRequest). The store builds it while it parses records in place
// (package store, record.go), both in the reput service and in recovery.
type DispatchRequest struct {
	Topic                     string
	QueueID                   int32
	CommitLogOffset           int64
	MsgSize                   int32
	TagsCode                  int64
	StoreTimestamp            int64
	ConsumeQueueOffset        int64
	Keys                      string
	UniqKey                   string
	SysFlag                   int32
	PreparedTransactionOffset int64
	BornTimestamp             int64
	Properties                map[string]string // nil unless the listener needs it
}
