package message

// MessageSysFlag bits (Java org.apache.rocketmq.common.sysflag.MessageSysFlag).
const (
	SysFlagCompressed      int32 = 0x1
	SysFlagMultiTags       int32 = 0x2
	SysFlagTransactionNot  int32 = 0x0
	SysFlagTransPrepared   int32 = 0x4
	SysFlagTransCommit     int32 = 0x8
	SysFlagTransRollback   int32 = 0xC
	SysFlagBornHostV6      int32 = 0x10
	SysFlagStoreHostV6     int32 = 0x20
	SysFlagNeedUnwrap      int32 = 0x40
	SysFlagInnerBatch      int32 = 0x80
	SysFlagCompressionLZ4  int32 = 0x100
	SysFlagCompressionZSTD int32 = 0x200
	SysFlagCompressionZLIB int32 = 0x300
	SysFlagCompressionMask int32 = 0x700
	sysFlagTransactionMask int32 = 0xC
)

// TransactionType returns the transaction bits of sysFlag (one of
// SysFlagTransactionNot, SysFlagTransPrepared, SysFlagTransCommit,
// SysFlagTransRollback), like MessageSysFlag.getTransactionValue.
func TransactionType(sysFlag int32) int32 { return sysFlag & sysFlagTransactionMask }

// ResetTransactionType replaces the transaction bits of sysFlag with t.
func ResetTransactionType(sysFlag, t int32) int32 {
	return sysFlag&^sysFlagTransactionMask | t&sysFlagTransactionMask
}
