package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// -mode versus-table prints the table of cmd/mqbench/versus.sh from its
// results directory: one file per measurement, <impl>.<point> (impl ours
// or apache; point 1x1 … 64x16, sync_flush, sync_master, pull) plus echo,
// each holding the RESULT line of a lean run. It then marks every aim of
// issue #11 that the run can judge as met or not met.

// result is one RESULT line's key=value pairs.
type result map[string]string

func (r result) num(k string) (float64, bool) {
	if r == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(r[k], 64)
	return v, err == nil && v >= 0
}

func parseResult(line string) result {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "RESULT ") {
		return nil
	}
	r := result{}
	for _, f := range strings.Fields(line)[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			r[k] = v
		}
	}
	return r
}

func readResult(dir, name string) result {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	return parseResult(string(b))
}

// versusRow is one point's results.
type versusRow struct {
	label          string
	apache, ours   result
	isPull, isSync bool
}

func pointLabel(p string) string {
	switch p {
	case "sync_flush":
		return "16 × 16 SYNC_FLUSH"
	case "sync_master":
		return "16 × 16 SYNC_MASTER"
	case "pull":
		return "pull backlog"
	case "wake":
		return "long-poll wake-up"
	}
	return strings.Replace(p, "x", " × ", 1)
}

// kilo formats a rate as 6.4k / 131k.
func kilo(v float64) string {
	if v >= 100_000 {
		return fmt.Sprintf("%.0fk", v/1000)
	}
	return fmt.Sprintf("%.1fk", v/1000)
}

// msec formats a latency in ms with two significant digits below 10.
func msec(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.2f ms", v)
	case v < 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func usec(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func tpsCell(r result, pull bool) string {
	t, ok := r.num("tps")
	if !ok || r["ok"] == "0" {
		return "–"
	}
	if pull {
		return kilo(t) + "/s"
	}
	p, _ := r.num("p99_ms")
	return kilo(t) + " / " + msec(p)
}

// ratio returns ours/apache of key k (NaN when either is missing).
func ratio(ours, apache result, k string) float64 {
	o, ok1 := ours.num(k)
	a, ok2 := apache.num(k)
	if !ok1 || !ok2 || a == 0 {
		return math.NaN()
	}
	return o / a
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

func cpuCell(a, o result) string {
	av, aok := a.num("cpu_us_per_msg")
	ov, ook := o.num("cpu_us_per_msg")
	ac, oc := "–", "–"
	if aok {
		ac = usec(av)
	}
	if ook {
		oc = usec(ov)
	}
	return ac + " / " + oc + " µs"
}

func mib(r result, k string) string {
	v, ok := r.num(k)
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f", v/1024)
}

// writeVersusTable prints the tables and the aims for the points (in
// order; "pull" is always last) found in dir.
func writeVersusTable(w io.Writer, dir string, points []string) {
	var rows []versusRow
	for _, p := range append(points, "pull") {
		if p == "" {
			continue
		}
		rows = append(rows, versusRow{label: p, apache: readResult(dir, "apache."+p), ours: readResult(dir, "ours."+p),
			isPull: p == "pull", isSync: strings.HasPrefix(p, "sync_")})
	}
	echo := readResult(dir, "echo")
	fmt.Fprintln(w, "| load | Apache TPS / p99 | ours TPS / p99 | ratio | server CPU per message, Apache / ours |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", pointLabel(r.label), tpsCell(r.apache, r.isPull), tpsCell(r.ours, r.isPull),
			fmtRatio(ratio(r.ours, r.apache, "tps")), cpuCell(r.apache, r.ours))
	}
	if echo != nil {
		fmt.Fprintf(w, "| echo server 16 × 16 | | %s | | – / %s µs |\n", tpsCell(echo, false), usec(must(echo.num("cpu_us_per_msg"))))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| load | Apache RSS MiB (anon / file) | ours RSS MiB (anon / file) |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s (%s / %s) | %s (%s / %s) |\n", pointLabel(r.label), mib(r.apache, "rss_kb"), mib(r.apache, "anon_kb"),
			mib(r.apache, "file_kb"), mib(r.ours, "rss_kb"), mib(r.ours, "anon_kb"), mib(r.ours, "file_kb"))
	}
	fmt.Fprintln(w)
	writeAims(w, rows, echo, readResult(dir, "apache.wake"), readResult(dir, "ours.wake"))
}

func must(v float64, _ bool) float64 { return v }

// aim is one line of the aims list: worst is the worst ratio over the
// rows it covers, met when it is on the right side of limit.
type aim struct {
	text       string
	limit      float64
	atLeast    bool
	worst      float64
	worstLabel string
}

func (a *aim) see(v float64, label string) {
	if math.IsNaN(v) {
		return
	}
	if math.IsNaN(a.worst) || (a.atLeast && v < a.worst) || (!a.atLeast && v > a.worst) {
		a.worst, a.worstLabel = v, label
	}
}

func (a *aim) String() string {
	if math.IsNaN(a.worst) {
		return "- " + a.text + ": not measured"
	}
	met := a.worst >= a.limit
	if !a.atLeast {
		met = a.worst <= a.limit
	}
	verdict := "NOT MET"
	if met {
		verdict = "met"
	}
	return fmt.Sprintf("- %s: %s (worst %.2f at %s)", a.text, verdict, a.worst, pointLabel(a.worstLabel))
}

func writeAims(w io.Writer, rows []versusRow, echo, apacheWake, oursWake result) {
	nan := math.NaN()
	tps := &aim{text: "produce ≥ 3× Apache's TPS at every load", limit: 3, atLeast: true, worst: nan}
	p99 := &aim{text: "produce p99 ≤ ½ Apache's at every load", limit: 0.5, worst: nan}
	cpu := &aim{text: "server CPU per message ≤ ¼ Apache's", limit: 0.25, worst: nan}
	pull := &aim{text: "pull ≥ 3× Apache's drain rate", limit: 3, atLeast: true, worst: nan}
	anon := &aim{text: "anonymous RSS ≤ 1/10 of Apache's", limit: 0.1, worst: nan}
	file := &aim{text: "file-backed RSS ≤ Apache's on the same data (pull backlog row)", limit: 1, worst: nan}
	sync := &aim{text: "SYNC_FLUSH and SYNC_MASTER ≥ 2× Apache's TPS at 16 × 16", limit: 2, atLeast: true, worst: nan}
	ceil := &aim{text: "produce at 16 × 16 ≥ 40 % of the echo server's request rate", limit: 0.4, atLeast: true, worst: nan}
	for _, r := range rows {
		switch {
		case r.isPull:
			pull.see(ratio(r.ours, r.apache, "tps"), r.label)
			cpu.see(ratio(r.ours, r.apache, "cpu_us_per_msg"), r.label)
		case r.isSync:
			sync.see(ratio(r.ours, r.apache, "tps"), r.label)
		default:
			tps.see(ratio(r.ours, r.apache, "tps"), r.label)
			p99.see(ratio(r.ours, r.apache, "p99_ms"), r.label)
			cpu.see(ratio(r.ours, r.apache, "cpu_us_per_msg"), r.label)
		}
		anon.see(ratio(r.ours, r.apache, "anon_kb"), r.label)
		if r.isPull { // the produce rows store different amounts; the backlog is the same data
			file.see(ratio(r.ours, r.apache, "file_kb"), r.label)
		}
		if r.label == "16x16" && echo != nil {
			ceil.see(ratio(r.ours, echo, "tps"), r.label)
		}
	}
	fmt.Fprintln(w, "Aims (ratio ours / Apache unless stated):")
	for _, a := range []*aim{tps, p99, cpu, pull, anon, file, ceil, sync} {
		fmt.Fprintln(w, a)
	}
	wake := &aim{text: "long-poll wake-up p99 ≤ 2 ms (ours; send → held pull answered)", limit: 2, worst: nan}
	if v, ok := oursWake.num("p99_ms"); ok {
		wake.see(v, "wake")
	}
	line := wake.String()
	if v, ok := apacheWake.num("p99_ms"); ok {
		line += fmt.Sprintf("; Apache %s", msec(v))
	}
	fmt.Fprintln(w, line)
	fmt.Fprintln(w, "- recovery of a 4 GiB store < 5 s, header round trip: not measured by versus.sh")
}
