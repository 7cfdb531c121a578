package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// All lists every scenario name in run order.
func All() []string {
	var names []string
	for _, s := range allScenarios() {
		names = append(names, s.name)
	}
	return names
}

func allScenarios() []scenario {
	var all []scenario
	all = append(all, blobScenarios()...)
	all = append(all, queueScenarios()...)
	all = append(all, expiringScenarios()...)
	all = append(all, tableScenarios()...)
	all = append(all, fileScenarios()...)
	all = append(all, growthScenarios()...)
	all = append(all, dfsScenarios()...)
	return all
}

func scenarioByName(name string) (scenario, bool) {
	for _, s := range allScenarios() {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

// Print writes results as a table.
func Print(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tscenario\tops/s\tMB/s\tp50 ms\tp99 ms\tp99.9 ms\tclient cpu µs/op\tserver cpu µs/op\tserver rss MB\terrors\t")
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\tskipped: %s\t\n", r.Target, r.Scenario, r.Skipped)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\t%.0f\t%s\t%s\t%s\t\n", r.Target, r.Scenario, formatRate(r.OpsPerSec), r.MBPerSec,
			r.P50ms, r.P99ms, r.P999ms, r.CPUusPerOp, formatServerCPU(r), formatServerRSS(r), formatErrors(r.Errors))
	}
	tw.Flush()
}

// formatRate prints operations per second, whole above 10 and to two
// decimals below, where an operation takes seconds (a rename of 100,000
// paths) and a whole number would print 0.
func formatRate(perSec float64) string {
	if perSec < 10 {
		return fmt.Sprintf("%.2f", perSec)
	}
	return fmt.Sprintf("%.0f", perSec)
}

// formatServerCPU prints the server's CPU per operation, or "-" when the
// server process is not known to the benchmark.
func formatServerCPU(r Result) string {
	if r.ServerCPUusPerOp == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.ServerCPUusPerOp)
}

// formatServerRSS prints the server's resident memory, or "-" when the
// server process is not known to the benchmark.
func formatServerRSS(r Result) string {
	if r.ServerRSSMB == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.ServerRSSMB)
}

func formatErrors(errs map[string]int64) string {
	if len(errs) == 0 {
		return "-"
	}
	var keys []string
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s x%d", k, errs[k]))
	}
	return strings.Join(parts, ", ")
}

// Comparison is the outcome of alternating two targets on one scenario.
type Comparison struct {
	Scenario string    `json:"scenario"`
	A, B     string    `json:"-"`
	OpsA     []float64 `json:"ops_per_sec_a"`
	OpsB     []float64 `json:"ops_per_sec_b"`
	// Ratio is median(A) / median(B).
	Ratio float64 `json:"ratio"`
}

// Compare runs each scenario on a and b alternately for rounds rounds.
func Compare(ctx context.Context, a, b Target, names []string, opts Options, rounds int, progress io.Writer) ([]Comparison, []Result, error) {
	var out []Comparison
	var all []Result
	for _, name := range names {
		c := Comparison{Scenario: name, A: a.Name, B: b.Name}
		for round := 0; round < rounds; round++ {
			for _, t := range []Target{a, b} {
				res, err := Run(ctx, t, []string{name}, opts)
				if err != nil {
					return out, all, err
				}
				all = append(all, res...)
				Print(progress, res)
				if t.Name == a.Name {
					c.OpsA = append(c.OpsA, res[0].OpsPerSec)
				} else {
					c.OpsB = append(c.OpsB, res[0].OpsPerSec)
				}
			}
		}
		if mb := median(c.OpsB); mb > 0 {
			c.Ratio = median(c.OpsA) / mb
		}
		out = append(out, c)
	}
	return out, all, nil
}

// PrintComparisons writes the ratio table.
func PrintComparisons(w io.Writer, cs []Comparison) {
	if len(cs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\t%s ops/s (median)\t%s ops/s (median)\tratio\t\n", cs[0].A, cs[0].B)
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%s\t\n", c.Scenario, median(c.OpsA), median(c.OpsB), formatRatio(c))
	}
	tw.Flush()
}

// formatRatio prints the ratio, or says that one side completed nothing
// (a ratio of 0 or infinity would read as a measurement).
func formatRatio(c Comparison) string {
	a, b := median(c.OpsA), median(c.OpsB)
	switch {
	case b == 0 && a == 0:
		return "neither completed an operation"
	case b == 0:
		return c.B + " completed none"
	}
	return fmt.Sprintf("%.2fx", c.Ratio)
}

// WriteJSON writes every result and comparison to path.
func WriteJSON(path string, results []Result, comparisons []Comparison, disk *DiskRate) error {
	doc := struct {
		Results     []Result     `json:"results"`
		Comparisons []Comparison `json:"comparisons,omitempty"`
		Disk        *DiskRate    `json:"disk,omitempty"`
	}{results, comparisons, disk}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// DiskRate is the measured sequential write rate of the data disk.
type DiskRate struct {
	Dir      string  `json:"dir"`
	MBPerSec float64 `json:"mb_per_sec"`
}

// MeasureDisk writes 256 MiB sequentially in 8 MiB writes to a file in dir,
// fsyncs it, and reports the rate: the ceiling for durable large uploads.
func MeasureDisk(dir string) (*DiskRate, error) {
	f, err := os.CreateTemp(dir, "lazuli-disk-probe-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := payload(8 * mib)
	start := time.Now()
	for i := 0; i < 32; i++ {
		if _, err := f.Write(buf); err != nil {
			return nil, err
		}
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	abs, _ := filepath.Abs(dir)
	return &DiskRate{Dir: abs, MBPerSec: 256 * mib / secs / 1e6}, nil
}
