// Package configfile is the Go analogue of Apache RocketMQ's ConfigManager
// (common/ConfigManager.java) and MixAll.string2File: how the broker keeps its
// small JSON metadata files (topics.json, subscriptionGroup.json,
// consumerOffset.json, delayOffset.json) on disk.
//
// Persist writes a new version safely:
//
//	<file>.tmp   <- new content, fsync'd
//	<file>.bak   <- previous content of <file> (if any), fsync'd
//	<file>       <- rename(<file>.tmp), then the directory is fsync'd
//
// Java does the same three steps without fsync and with a delete before the
// rename; here rename replaces atomically, so at every instant either the old
// or the new <file> is complete, and <file>.bak holds the version before it.
//
// Load reads <file>; when it is missing, empty, or the decoder rejects it, it
// falls back to <file>.bak, exactly like ConfigManager.load/loadBak. A missing
// .bak is not an error (first boot).
//
// Pretty turns compact fastjson output into fastjson's PrettyFormat layout
// (tabs, a newline before each string-keyed entry, none before non-string
// keys such as the unquoted integers of consumerOffset.json), which is what
// ConfigManager.persist writes with encode(true).
//
// LoadLogged and PersistPretty are the two steps every broker table
// (topics, subscription groups, consumer and delay offsets) runs around them,
// so that each manager only supplies its path, encoder and decoder.
//
// Invariants: Persist never leaves <file> truncated; decoders passed to Load
// must not modify caller state unless they return nil.
package configfile
