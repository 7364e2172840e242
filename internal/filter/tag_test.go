package filter

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestFilterParseTags(t *testing.T) {
	cases := []struct {
		in    string
		sub   string
		tags  []string
		codes []int32
	}{
		{"", SubAll, nil, nil},
		{"*", SubAll, nil, nil},
		{"TagA", "TagA", []string{"TagA"}, []int32{2598919}},
		{"TagA || TagB", "TagA || TagB", []string{"TagA", "TagB"}, []int32{2598919, 2598920}},
		{" TagA ||TagA|| ||", " TagA ||TagA|| ||", []string{"TagA"}, []int32{2598919}},
		{"a|||b", "a|||b", []string{"a", "|b"}, []int32{97, 3942}},
		{"\tx\n", "\tx\n", []string{"x"}, []int32{120}},
		{" * ", " * ", []string{"*"}, []int32{42}},
	}
	for _, c := range cases {
		got := ParseTags(c.in)
		if got.SubString != c.sub || !reflect.DeepEqual(got.Tags, c.tags) || !reflect.DeepEqual(got.Codes, c.codes) {
			t.Errorf("ParseTags(%q) = %+v, want sub=%q tags=%v codes=%v", c.in, got, c.sub, c.tags, c.codes)
		}
	}
}

func TestFilterMatchTagsCode(t *testing.T) {
	ts := ParseTags("TagA || TagB")
	if !MatchTagsCode(ts.SubString, ts.Codes, 2598919) || !MatchTagsCode(ts.SubString, ts.Codes, 2598920) {
		t.Fatal("TagA/TagB codes must match")
	}
	if MatchTagsCode(ts.SubString, ts.Codes, 2598921) || MatchTagsCode(ts.SubString, ts.Codes, 0) {
		t.Fatal("TagC and no-tag must not match")
	}
	// Java compares tagsCode.intValue(): the high 32 bits are ignored.
	if !MatchTagsCode(ts.SubString, ts.Codes, 1<<32|2598919) {
		t.Fatal("tagsCode must be truncated to int32")
	}
	all := ParseTags("*")
	if !MatchTagsCode(all.SubString, all.Codes, 12345) {
		t.Fatal("* matches everything")
	}
	if !IsTagType("") || !IsTagType("TAG") || IsTagType("SQL92") || IsTagType("tag") {
		t.Fatal("IsTagType")
	}
}

// goldenDir finds the shared golden set: $RMQ_GOLDEN_DIR or ../shared/golden
// from the repository root.
func goldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skip("no working directory")
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			g := filepath.Join(dir, "..", "shared", "golden")
			if _, err := os.Stat(g); err != nil {
				t.Skip("golden dir absent")
			}
			return g
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found")
		}
		dir = parent
	}
}

func readTSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("golden file absent: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var head []string
	var rows []map[string]string
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if head == nil {
			head = cols
			continue
		}
		row := map[string]string{}
		for i, h := range head {
			if i < len(cols) {
				row[h] = cols[i]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestFilterGoldenTagsCode checks that the tag hash of every stored message
// equals the tagsCode the Java broker wrote into its consume queue.
func TestFilterGoldenTagsCode(t *testing.T) {
	dir := filepath.Join(goldenDir(t), "store-clean")
	msgs := readTSV(t, filepath.Join(dir, "messages.tsv"))
	cq := readTSV(t, filepath.Join(dir, "consumequeue.tsv"))
	codeAt := map[string]string{}
	for _, r := range cq {
		codeAt[r["topic"]+"/"+r["physical_offset"]] = r["tags_code"]
	}
	checked := 0
	for _, m := range msgs {
		if m["tags"] == "" || m["topic"] == "SCHEDULE_TOPIC_XXXX" || m["in_consume_queue"] != "yes" {
			continue
		}
		want, ok := codeAt[m["topic"]+"/"+m["physical_offset"]]
		if !ok {
			continue
		}
		ts := ParseTags(m["tags"])
		if len(ts.Codes) != 1 || strconv.Itoa(int(ts.Codes[0])) != want {
			t.Errorf("%s@%s tags %q: codes %v, consume queue has %s", m["topic"], m["physical_offset"], m["tags"], ts.Codes, want)
		}
		wantCode, _ := strconv.ParseInt(want, 10, 64)
		if !MatchTagsCode(ts.SubString, ts.Codes, wantCode) {
			t.Errorf("subscription %q does not match its own code %d", m["tags"], wantCode)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d golden messages checked", checked)
	}
}
