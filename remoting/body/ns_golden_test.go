package body

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenDir finds the shared golden set: env RMQ_GOLDEN_DIR or ../shared/golden
// from the repository root; tests skip when it is absent.
func goldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	for _, d := range []string{"../../../shared/golden", "../../shared/golden", "../shared/golden"} {
		if _, err := os.Stat(filepath.Join(d, "frames", "manifest.tsv")); err == nil {
			return d
		}
	}
	t.Skip("golden directory not found")
	return ""
}

// goldenFrame is one manifest row with its frame's body.
type goldenFrame struct {
	codeName, typ, note string
	body                []byte
	version             string
}

// goldenFrames returns the frames in one direction whose code name matches
// (for responses: the paired request's code name is in the note).
func goldenFrames(t *testing.T, direction string, match func(cols []string) bool) []goldenFrame {
	t.Helper()
	dir := goldenDir(t)
	f, err := os.Open(filepath.Join(dir, "frames", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenFrame
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 25 || cols[2] != direction || !match(cols) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, cols[0]))
		if err != nil {
			t.Fatal(err)
		}
		hl := int(binary.BigEndian.Uint32(raw[4:8]) & 0xFFFFFF)
		out = append(out, goldenFrame{codeName: cols[5], typ: cols[6], note: cols[12], body: raw[8+hl:], version: cols[24]})
	}
	return out
}

func TestBodyGoldenRouteDataRoundTrip(t *testing.T) {
	frames := goldenFrames(t, "namesrv->client", func(c []string) bool {
		return c[5] == "SUCCESS" && strings.Contains(c[12], "GET_ROUTEINFO_BY_TOPIC")
	})
	if len(frames) == 0 {
		t.Fatal("no golden route frames")
	}
	for _, fr := range frames {
		r, err := DecodeTopicRouteData(fr.body)
		if err != nil {
			t.Fatalf("decode %s: %v", fr.body, err)
		}
		standard := strings.Contains(string(fr.body), `{"0"`)
		if got := r.Encode(standard); string(got) != string(fr.body) {
			t.Fatalf("re-encode differs:\n got %s\nwant %s", got, fr.body)
		}
	}
}

func TestBodyGoldenClusterInfoRoundTrip(t *testing.T) {
	frames := goldenFrames(t, "namesrv->client", func(c []string) bool {
		return c[5] == "SUCCESS" && strings.Contains(c[12], "GET_BROKER_CLUSTER_INFO")
	})
	if len(frames) == 0 {
		t.Fatal("no golden cluster frames")
	}
	for _, fr := range frames {
		c, err := DecodeClusterInfo(fr.body)
		if err != nil {
			t.Fatalf("decode %s: %v", fr.body, err)
		}
		if got := c.Encode(); string(got) != string(fr.body) {
			t.Fatalf("re-encode differs:\n got %s\nwant %s", got, fr.body)
		}
	}
}

func TestBodyGoldenTopicListRoundTrip(t *testing.T) {
	frames := goldenFrames(t, "namesrv->client", func(c []string) bool {
		return c[5] == "SUCCESS" && strings.Contains(c[12], "GET_ALL_TOPIC_LIST_FROM_NAMESERVER")
	})
	if len(frames) == 0 {
		t.Fatal("no golden topic list frames")
	}
	for _, fr := range frames {
		l, err := DecodeTopicList(fr.body)
		if err != nil {
			t.Fatal(err)
		}
		// Scramble, then let the Java-order sort restore the name server's order.
		names := append([]string(nil), l.TopicList...)
		for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
			names[i], names[j] = names[j], names[i]
		}
		SortJavaHashOrder(names, JavaHashMapCapacity(len(names), 16), 1024)
		l.TopicList = names
		if got := l.Encode(); string(got) != string(fr.body) {
			t.Fatalf("re-encode differs:\n got %s\nwant %s", got, fr.body)
		}
	}
}

func TestBodyGoldenRegisterBodyRoundTrip(t *testing.T) {
	frames := goldenFrames(t, "broker->namesrv", func(c []string) bool {
		return c[5] == "REGISTER_BROKER" && c[11] != "0"
	})
	if len(frames) == 0 {
		t.Fatal("no golden register frames")
	}
	for _, fr := range frames {
		r, err := DecodeRegisterBrokerBody(fr.body, false)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		got, err := r.Encode(false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(fr.body) {
			t.Fatalf("re-encode differs:\n got %s\nwant %s", got, fr.body)
		}
	}
}

func TestBodyGoldenDataVersion(t *testing.T) {
	frames := goldenFrames(t, "namesrv->broker", func(c []string) bool {
		return c[5] == "SUCCESS" && strings.Contains(c[12], "QUERY_DATA_VERSION")
	})
	for _, fr := range frames {
		d, err := DecodeDataVersion(fr.body)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Encode(); string(got) != string(fr.body) {
			t.Fatalf("got %s want %s", got, fr.body)
		}
	}
}
