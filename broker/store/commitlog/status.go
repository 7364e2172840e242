package commitlog

// PutMessageStatus is Java's PutMessageStatus; String gives the Java name.
type PutMessageStatus int

// PutMessageStatus values, in Java's declaration order.
const (
	PutOK PutMessageStatus = iota
	FlushDiskTimeout
	FlushSlaveTimeout
	SlaveNotAvailable
	ServiceNotAvailable
	CreateMappedFileFailed
	MessageIllegal
	PropertiesSizeExceeded
	OSPageCacheBusy
	UnknownError
	// InSyncReplicasNotEnough (5.x): a controller-mode SYNC_MASTER has
	// fewer in-sync replicas than minInSyncReplicas; nothing was written.
	InSyncReplicasNotEnough
)

var putStatusNames = [...]string{
	"PUT_OK", "FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE",
	"SERVICE_NOT_AVAILABLE", "CREATE_MAPEDFILE_FAILED", "MESSAGE_ILLEGAL",
	"PROPERTIES_SIZE_EXCEEDED", "OS_PAGECACHE_BUSY", "UNKNOWN_ERROR", "IN_SYNC_REPLICAS_NOT_ENOUGH",
}

func (s PutMessageStatus) String() string {
	if s >= 0 && int(s) < len(putStatusNames) {
		return putStatusNames[s]
	}
	return "UNKNOWN_ERROR"
}

// IsOK reports whether the message was stored (Java PutMessageResult.isOk:
// only PUT_OK; the timeouts still mean "stored, not yet confirmed").
func (s PutMessageStatus) IsOK() bool { return s == PutOK }

// AppendMessageStatus is Java's AppendMessageStatus.
type AppendMessageStatus int

// AppendMessageStatus values.
const (
	AppendPutOK AppendMessageStatus = iota
	AppendEndOfFile
	AppendMessageSizeExceeded
	AppendPropertiesSizeExceeded
	AppendUnknownError
)

var appendStatusNames = [...]string{"PUT_OK", "END_OF_FILE", "MESSAGE_SIZE_EXCEEDED", "PROPERTIES_SIZE_EXCEEDED", "UNKNOWN_ERROR"}

func (s AppendMessageStatus) String() string {
	if s >= 0 && int(s) < len(appendStatusNames) {
		return appendStatusNames[s]
	}
	return "UNKNOWN_ERROR"
}

// AppendMessageResult describes one append (Java AppendMessageResult).
type AppendMessageResult struct {
	Status         AppendMessageStatus
	WroteOffset    int64  // physical offset of the (first) record
	WroteBytes     int32  // bytes written (all records of a batch)
	MsgID          string // offsetMsgId; comma-joined for a batch
	StoreTimestamp int64
	LogicsOffset   int64 // queue offset of the (first) message
	MsgNum         int32 // messages written (1, or the batch size)
	PagecacheRT    int64 // ms spent under the append lock
}

// PutMessageResult is what PutMessage reports (Java PutMessageResult).
type PutMessageResult struct {
	Status PutMessageStatus
	Append AppendMessageResult
}
