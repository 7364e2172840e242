// Package apiv2 holds the Go code generated from this directory's .proto
// files: the apache.rocketmq.v2 messages and the MessagingService stubs.
//
// Regenerate with `go generate ./proxy/apis/v2` from the repository root.
// Tools used for the committed code: protoc 3.21.12 (Debian
// protobuf-compiler), protoc-gen-go v1.36.12, protoc-gen-go-grpc v1.6.2.
// CI never runs protoc; the generated files are committed.
package apiv2

//go:generate protoc -I .. --go_out=.. --go_opt=paths=source_relative --go-grpc_out=.. --go-grpc_opt=paths=source_relative v2/definition.proto v2/service.proto
