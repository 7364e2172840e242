package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	imetrics "github.com/rocketmq-go/rmq/internal/metrics"
)

// exported is every metric name a broker or name server serves.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{imetrics.RPCLatencyName: true}
	for _, n := range Names() {
		names[n] = true
	}
	exp, err := imetrics.NewExporter(imetrics.NewExporterConfig(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	fams, err := exp.Registry().Gather() // the Go runtime and process collectors
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		names[f.GetName()] = true
	}
	return names
}

var metricRef = regexp.MustCompile(`\b(?:rocketmq|go|process)_[a-z0-9_]+`)

// The dashboard queries only names we export (a histogram through its
// _bucket, _sum and _count series), so it cannot rot.
func TestMetricsDashboardUsesExportedNames(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard is not valid JSON: %v", err)
	}
	names := exported(t)
	var exprs []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		exprs = append(exprs, v.Definition)
	}
	used := 0
	for _, e := range exprs {
		for _, ref := range metricRef.FindAllString(e, -1) {
			used++
			base := ref
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(ref, suf); ok && names[b] {
					base = b
				}
			}
			if !names[base] {
				t.Errorf("dashboard queries %s, which is not exported (in %s)", ref, e)
			}
		}
	}
	if used == 0 {
		t.Fatal("no metric found in the dashboard's queries")
	}
}

// docs/metrics.md names every metric the broker exports.
func TestMetricsDocsListEveryName(t *testing.T) {
	raw, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(Names(), imetrics.RPCLatencyName) {
		if !strings.Contains(string(raw), "`"+n+"`") {
			t.Errorf("docs/metrics.md does not list %s", n)
		}
	}
}
