// Package message is the message format shared by the store, the broker and
// the HA code: the CommitLog record layout (Java MessageDecoder /
// CommitLog.DefaultAppendMessageCallback), the properties string, message ids,
// the SEND_BATCH_MESSAGE body, Java's String.hashCode and the stored body CRC.
// It imports only the standard library.
//
// CommitLog record (big-endian, IPv4 hosts; each IPv6 host adds 12 bytes and
// shifts every later field):
//
//	 0 TOTALSIZE      i32   whole record including this field
//	 4 MAGICCODE      i32   MagicCode (0xDAA320A7) or BlankMagicCode (0xCBD43194)
//	 8 BODYCRC        i32   crc32(body) & 0x7FFFFFFF
//	12 QUEUEID        i32
//	16 FLAG           i32
//	20 QUEUEOFFSET    i64   patched by the CommitLog under its append lock
//	28 PHYSICALOFFSET i64   patched by the CommitLog under its append lock
//	36 SYSFLAG        i32   SysFlag* bits; 0x10 / 0x20 say born / store host is IPv6
//	40 BORNTIMESTAMP  i64
//	48 BORNHOST       4+4 or 16+4 (ip, port i32)
//	56 STORETIMESTAMP i64   patched under the append lock (StoreTimestampPos)
//	64 STOREHOST      4+4 or 16+4
//	72 RECONSUMETIMES i32
//	76 PREPAREDTXOFF  i64
//	84 BODYLEN i32, BODY, TOPICLEN i8, TOPIC, PROPLEN i16, PROPERTIES
//
// The blank record that closes a CommitLog file is 8 bytes: TOTALSIZE = the
// bytes left in the file, MAGICCODE = BlankMagicCode.
//
// Invariants: EncodeRecord(DecodeRecord(b)) == b for every valid record b;
// decoding never panics on arbitrary input (FuzzDecodeMessage).
//
// Usage:
//
//	m := &message.MessageExt{...}
//	m.PropertiesString = message.MarshalProperties(props)
//	rec, err := message.EncodeRecord(nil, m)
//	back, err := message.DecodeRecord(rec, true)
package message
