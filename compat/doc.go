// Package compat holds wire-compatibility tests against ground truth recorded
// from Apache RocketMQ 4.9.8: golden remoting frames (and, as the servers
// land, behaviour tests run in-process or against a Java server named by env).
//
// Golden frames come from /work/shared/golden (found as ../shared/golden next
// to the repository root, or at $RMQ_GOLDEN_DIR); a small representative
// subset is copied into testdata/frames so the codec checks run without it.
// Each frame must decode to the manifest's code, opaque, flag, serialize
// type, language, version, header and body lengths, and re-encode to the
// identical bytes.
//
// Nothing imports this package.
package compat
