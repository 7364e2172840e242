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
// The "clients" golden set (C++ client, ali-ons, ACL-signed Java clients)
// is decoded frame by frame (clients_golden_test.go), and its C++ and
// ali-ons sessions are replayed byte for byte against an in-process name
// server and broker, our answers compared with Apache's
// (clients_replay_test.go).
//
// Nothing imports this package.
package compat
