package console

import (
	"bytes"
	"compress/zlib"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// A compressed body larger than the preview reports its real (inflated)
// size, so the page says "first 4 KiB of 10000 bytes", not "of 4097".
func TestConsoleMessageCompressedBodySize(t *testing.T) {
	plain := strings.Repeat("0123456789", 1000)
	m := &message.MessageExt{Message: message.Message{Topic: "T", Body: deflate(t, plain)},
		SysFlag: message.SysFlagCompressed | message.SysFlagCompressionZLIB}
	got := toMessage(m)
	if got.BodySize != len(plain) || !got.BodyTruncated || got.Body != plain[:bodyPreviewMax] || got.BodyEncoding != "text" {
		t.Fatalf("bodySize %d truncated %v encoding %q body %d bytes; want bodySize %d, the first %d bytes as text",
			got.BodySize, got.BodyTruncated, got.BodyEncoding, len(got.Body), len(plain), bodyPreviewMax)
	}
	small := toMessage(&message.MessageExt{Message: message.Message{Topic: "T", Body: deflate(t, "tiny")},
		SysFlag: message.SysFlagCompressed})
	if small.BodySize != 4 || small.BodyTruncated || small.Body != "tiny" {
		t.Fatalf("small compressed body: %+v", small)
	}
}

func deflate(t *testing.T, s string) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}
