package namesrv

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// goldenDir finds the shared golden set (env RMQ_GOLDEN_DIR or ../shared/golden
// from the repository root); the test skips when it is absent.
func goldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	for _, d := range []string{"../../shared/golden", "../shared/golden"} {
		if _, err := os.Stat(filepath.Join(d, "frames", "manifest.tsv")); err == nil {
			return d
		}
	}
	t.Skip("golden directory not found")
	return ""
}

type goldenPair struct {
	file, respFile, direction string
}

// goldenNamesrvPairs lists, in capture order, every request sent to the name
// server in one session together with the file of its answer.
func goldenNamesrvPairs(t *testing.T, dir, session string) []goldenPair {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "frames", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenPair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 25 || c[13] != session || (c[2] != "client->namesrv" && c[2] != "broker->namesrv") {
			continue
		}
		out = append(out, goldenPair{file: c[0], respFile: c[14], direction: c[2]})
	}
	return out
}

func readGoldenFrame(t *testing.T, dir, file string) *codec.RemotingCommand {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := codec.Decode(raw)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cmd
}

// TestNamesrvGoldenReplay replays every request the Java brokers, clients and
// mqadmin sent to the 4.9.8 name server (session json), in order, and
// requires our answers to carry the same code, remark, extFields and body bytes.
func TestNamesrvGoldenReplay(t *testing.T) {
	dir := goldenDir(t)
	for _, session := range []string{"json", "rocketmq-client", "rocketmq-server"} {
		t.Run(session, func(t *testing.T) {
			ns := startNamesrv(t, nil)
			c := newClient(t)
			addr := ns.Addr().String()
			pairs := goldenNamesrvPairs(t, dir, session)
			if len(pairs) == 0 {
				t.Fatal("no golden name-server traffic")
			}
			compared := 0
			for _, p := range pairs {
				req := readGoldenFrame(t, dir, p.file)
				wantFile := p.respFile
				req.Flag = 0 // send oneway registrations two-way so replay stays ordered
				req.Opaque = 0
				got := invoke(t, c, addr, req)
				if !strings.HasSuffix(wantFile, ".bin") {
					continue
				}
				want := readGoldenFrame(t, dir, wantFile)
				compared++
				if got.Code != want.Code || got.Remark != want.Remark || string(got.Body) != string(want.Body) ||
					!maps.Equal(got.ExtFields, want.ExtFields) || (got.ExtFields == nil) != (want.ExtFields == nil) {
					t.Fatalf("%s: answer differs\n got code=%d remark=%q ext=%v body=%s\nwant code=%d remark=%q ext=%v body=%s",
						p.file, got.Code, got.Remark, got.ExtFields, got.Body, want.Code, want.Remark, want.ExtFields, want.Body)
				}
			}
			t.Logf("%d requests replayed, %d answers compared", len(pairs), compared)
		})
	}
}
