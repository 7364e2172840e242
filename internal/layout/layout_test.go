package layout

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/rocketmq-go/rmq/"

// rule forbids packages under from (a prefix) to depend, directly or not, on
// any package under one of the prefixes in deny.
type rule struct {
	from string
	deny []string
}

var rules = []rule{
	{"remoting/code", []string{"remoting/codec", "remoting/header", "remoting/body", "remoting", "broker", "namesrv", "internal/"}},
	{"internal/message", []string{"remoting", "broker", "namesrv"}},
	{"remoting/codec", []string{"remoting/header", "remoting/body", "broker", "namesrv", "internal/", "go.uber.org/zap", "github.com/panjf2000/gnet"}},
	{"remoting/header", []string{"broker", "namesrv", "github.com/panjf2000/gnet"}},
	{"remoting/body", []string{"broker", "namesrv", "github.com/panjf2000/gnet"}},
	{"remoting", []string{"broker", "namesrv", "github.com/prometheus"}}, // metrics reach remoting only through RPCObserver
	{"internal/metrics", []string{"broker", "namesrv"}},
	{"broker/store", []string{"remoting", "namesrv", "broker/ha", "broker/client", "broker/filter", "broker/topic", "broker/offset", "broker/subscription", "broker/outapi", "broker/longpoll"}},
	{"broker/ha", []string{"namesrv", "broker/outapi", "broker/client"}},
	{"namesrv", []string{"broker", "controller"}},
	{"controller", []string{"broker", "namesrv"}},
	{"broker", []string{"namesrv"}},
}

func TestLayoutDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(fields[0], module)
		for _, dep := range fields[1:] {
			if strings.HasPrefix(dep, module+"compat") || strings.HasPrefix(dep, module+"integration") {
				t.Errorf("%s imports %s: nothing may import compat or integration", pkg, dep)
			}
		}
		for _, r := range rules {
			if !under(pkg, r.from) {
				continue
			}
			seen++
			for _, dep := range fields[1:] {
				d, ours := strings.CutPrefix(dep, module)
				for _, deny := range r.deny {
					external := strings.Contains(deny, ".")
					if external == ours { // our rules name our packages; external ones name modules
						continue
					}
					if under(d, deny) && !under(d, r.from) {
						t.Errorf("%s depends on %s (STYLE.md §2 forbids %s → %s)", pkg, d, r.from, deny)
					}
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no package matched any rule: the module path or layout changed")
	}
}

// under reports whether pkg is p itself or inside it; a prefix ending in "/"
// or naming a module path matches by plain prefix.
func under(pkg, p string) bool {
	if strings.HasSuffix(p, "/") || strings.Contains(p, ".") {
		return strings.HasPrefix(pkg, p)
	}
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// TestLayoutGoModTidy keeps go.mod honest: direct dependencies are listed as
// direct and nothing unused lingers (issue: every require was "// indirect").
func TestLayoutGoModTidy(t *testing.T) {
	cmd := exec.Command("go", "mod", "tidy", "-diff")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go mod tidy -diff reports changes (run go mod tidy): %v\n%s", err, out)
	}
}
