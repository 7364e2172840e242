// Package header holds the typed RocketMQ custom headers: one Go struct per
// Java CommandCustomHeader class, named exactly as the Java class, that
// converts to and from a RemotingCommand's extFields map.
//
// Wire form. A header travels as the command's extFields, a flat JSON object
// of string to string (inside the JSON header) or the equivalent key/value
// list of the ROCKETMQ binary header:
//
//	{"code":105,"extFields":{"topic":"TopicTest"},...}
//	            └──────── one key per non-null Java field ───────┘
//
// Keys are the Java field names, byte for byte (SEND_MESSAGE_V2 uses the
// one-letter keys a..n; the Go fields are named for their meaning). Values
// are Java's toString: decimal integers ("3", "-1"), booleans "true"/"false".
//
// Field conventions (struct tag `ext:"javaKey[,required]"`):
//
//   - required marks a @CFNotNull field. FromExtFields fails with a
//     *MissingFieldError whose text is Java's
//     "the custom field <name> is null" when it is absent.
//   - A Java primitive (int, long, boolean) or a boxed field Java always
//     initialises (Integer bodyCrc32 = 0, Boolean order = false) is a plain
//     Go value and is always written.
//   - A nullable boxed Integer/Long/Boolean is a Go pointer (*int32, *int64,
//     *bool); nil means null and is not written. Int32, Int64, Bool and
//     String build such pointers.
//   - A nullable String is a plain string, written only when non-empty, so
//     "" and null are the same on the way out. Where an empty value must
//     still be sent the field is a *string (GetKVConfigResponseHeader.Value).
//   - Headers whose Java class extends RpcRequestHeader (4.9.8) carry its
//     `bname` key in a Bname field.
//
// Decoding mirrors RemotingCommand.decodeCommandCustomHeader: the struct is
// reset, unknown keys are ignored, strings are kept as sent (no trimming),
// booleans follow Boolean.parseBoolean (only "true" in any case is true,
// never an error) and numbers follow Integer.parseInt / Long.parseLong: a
// value they would reject yields a *BadValueError (Java's fast-path headers
// throw NumberFormatException there; its reflective path leaves the field
// null, which the processor then trips over).
//
// Java itself is lenient here: 4.9.8's reflective decoder throws the
// "is null" exception inside its own try/catch, logs it and carries on with
// a null field (FastCodesHeader.getAndCheckNotNull likewise only logs), so
// the Java processor later fails on the null, usually with SYSTEM_ERROR.
// This package reports the problem at decode time instead; processors turn
// the error into their answer.
//
// The per-message headers (SendMessageRequestHeader, SendMessageRequestHeaderV2,
// SendMessageResponseHeader, PullMessageRequestHeader, PullMessageResponseHeader)
// have hand-written codecs, like Java's FastCodesHeader; every other header
// uses one reflective codec driven by the struct tags (plans cached per
// type). Tests hold the two to identical results.
//
// NewRequestHeader(code) gives a fresh header of the type a request code
// carries; DecodeSendMessageRequestHeader reads any of the five send codes
// into the V1 form, as Java's send processors do.
//
// Invariants: ToExtFields never returns nil and never writes a key whose
// value is null; for any header h, FromExtFields(h.ToExtFields()) restores h
// (modulo nullable strings, where "" and null coincide); a failed
// FromExtFields leaves the header zero; no input makes it panic (fuzzed).
//
// Usage:
//
//	var h header.GetRouteInfoRequestHeader
//	if err := h.FromExtFields(req.ExtFields); err != nil {
//		return nil, err // SYSTEM_ERROR with Java's text
//	}
//	resp.ExtFields = (&header.PullMessageResponseHeader{...}).ToExtFields()
package header
