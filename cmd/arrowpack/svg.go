package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/arrowpack/arrowpack/internal/measure"
)

// The chart: a title, the machine, a legend, then two panels side by side,
// encode and decode throughput, with a pair of horizontal bars (arrowpack,
// IPC) per shape, in one section per compression. Each section of a panel
// has a linear scale of its own: compressed rates are a small fraction of
// uncompressed ones and would vanish on a shared scale. Plain SVG text, no
// scripts, no external resources.
const (
	svgWidth      = 1120
	svgHeadH      = 120 // title, subtitles, legend and panel titles
	svgBarH       = 11
	svgGroupH     = 2*svgBarH + 2 + 9
	svgSectionH   = 30 // a section's title and ticks, above its bars
	svgSectionGap = 14
	svgPanelGap   = 36
	svgValueRoom  = 44 // right of the longest bar, for its value
	svgCharW      = 7.0
	colArrowpack  = "#1f6feb"
	colIPC        = "#e07b39"
)

// svgSection is the results of one compression, in the order measured.
type svgSection struct {
	compression string
	results     []measure.Result
}

func svgSections(results []measure.Result) []svgSection {
	var secs []svgSection
	for _, r := range results {
		i := 0
		for i < len(secs) && secs[i].compression != r.Compression {
			i++
		}
		if i == len(secs) {
			secs = append(secs, svgSection{compression: r.Compression})
		}
		secs[i].results = append(secs[i].results, r)
	}
	return secs
}

func sectionTitle(c string) string {
	switch c {
	case "none":
		return "uncompressed"
	case "lz4":
		return "LZ4"
	}
	return c
}

// sectionLabel titles the section of results measured with arrowpack's
// codec c, naming IPC's where it is another (light against IPC's zstd).
func sectionLabel(sec svgSection) string {
	t := sectionTitle(sec.compression)
	if ipcC := sec.results[0].IPCCompression; ipcC != sec.compression {
		t += " (IPC: " + sectionTitle(ipcC) + ")"
	}
	return t
}

// writeSVG draws the throughputs of rep as a bar chart.
func writeSVG(w io.Writer, rep *benchReport) error {
	labelW := len("uncompressed")
	for _, r := range rep.Results {
		labelW = max(labelW, len(r.Shape))
	}
	left := 16 + int(float64(labelW)*svgCharW) + 28
	panelW := (svgWidth - left - svgPanelGap - 16) / 2
	secs := svgSections(rep.Results)
	height := svgHeadH + len(rep.Results)*svgGroupH + len(secs)*(svgSectionH+svgSectionGap) + 30

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	b.WriteString("<title>arrowpack vs Arrow IPC: encode and decode throughput</title>\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", svgWidth, height)
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="17" font-weight="bold">arrowpack vs Arrow IPC (arrow-go %s): throughput per record batch, GB/s (higher is better)</text>`+"\n", esc(rep.ArrowGo))
	sub := "machine: " + rep.Machine.String()
	if rep.Input != "" {
		sub = "input: " + rep.Input + "; " + sub
	}
	fmt.Fprintf(&b, `<text x="16" y="46" fill="#444">%s</text>`+"\n", esc(sub))
	fmt.Fprintf(&b, `<text x="16" y="63" fill="#444">GB/s of uncompressed arrowpack block bytes; IPC writes and reads one stream per batch; each timing the median of %d runs of %s; each section has its own scale</text>`+"\n", rep.Runs, esc(rep.BenchTime))
	fmt.Fprintf(&b, `<rect x="16" y="76" width="14" height="11" fill="%s"/><text x="35" y="86">arrowpack</text>`+"\n", colArrowpack)
	fmt.Fprintf(&b, `<rect x="110" y="76" width="14" height="11" fill="%s"/><text x="129" y="86">Arrow IPC</text>`+"\n", colIPC)
	for p, dir := range []string{"encode", "decode"} {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", left+p*(panelW+svgPanelGap), svgHeadH-8, dir)
	}

	y := svgHeadH
	for _, sec := range secs {
		fmt.Fprintf(&b, `<text x="16" y="%d" font-weight="bold">%s</text>`+"\n", y+18, esc(sectionLabel(sec)))
		fmt.Fprintf(&b, `<line x1="16" x2="%d" y1="%d" y2="%d" stroke="#999" stroke-width="0.8"/>`+"\n", svgWidth-16, y+2, y+2)
		top := y + svgSectionH
		for p, dir := range []string{"encode", "decode"} {
			drawPanel(&b, sec.results, dir, left+p*(panelW+svgPanelGap), panelW-svgValueRoom, top)
		}
		for i, r := range sec.results {
			fmt.Fprintf(&b, `<text x="16" y="%d">%s</text>`+"\n", top+i*svgGroupH+svgBarH+5, esc(r.Shape))
		}
		y = top + len(sec.results)*svgGroupH + svgSectionGap
	}
	if s, ok := sameCodec(rep.Results); ok {
		fmt.Fprintf(&b, `<text x="16" y="%d" fill="#444">geometric mean over the cases measured with the same codec in both formats, arrowpack / IPC: encode time %.2f, decode time %.2f, size %.2f</text>`+"\n",
			y+10, s.EncodeRatio, s.DecodeRatio, s.SizeRatio)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// drawPanel draws one direction's bars for results from (x0, top), the
// longest bar barW wide, under a row of ticks.
func drawPanel(b *strings.Builder, results []measure.Result, dir string, x0, barW, top int) {
	op := func(f measure.Format) measure.Op {
		if dir == "encode" {
			return f.Encode
		}
		return f.Decode
	}
	var most float64
	for _, r := range results {
		for _, f := range []measure.Format{r.Arrowpack, r.IPC} {
			if f.OK() {
				most = max(most, op(f).GBPerSec)
			}
		}
	}
	step := niceStep(most / 5)
	axis := step * math.Max(1, math.Ceil(most/step*(1-1e-9)))
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	bottom := top + len(results)*svgGroupH - 6
	for k := 0; float64(k)*step <= axis*(1+1e-9); k++ {
		v := float64(k) * step
		x := float64(x0) + v/axis*float64(barW)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#e2e2e2"/>`+"\n", x, x, top-4, bottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#666" font-size="10">%.*f</text>`+"\n", x, top-8, decimals, v)
	}
	for i, r := range results {
		y := top + i*svgGroupH
		for j, f := range []struct {
			name, color string
			f           measure.Format
		}{{"arrowpack", colArrowpack, r.Arrowpack}, {"IPC", colIPC, r.IPC}} {
			by := y + j*(svgBarH+2)
			if !f.f.OK() {
				fmt.Fprintf(b, `<text x="%d" y="%d" fill="#999" font-style="italic" font-size="10">%s failed</text>`+"\n", x0+2, by+svgBarH-2, f.name)
				continue
			}
			o := op(f.f)
			wd := 0.0
			if axis > 0 {
				wd = o.GBPerSec / axis * float64(barW)
			}
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
				x0, by, wd, svgBarH, f.color,
				esc(fmt.Sprintf("%s %s %s %s: %.3f GB/s, %.0f ns/block, %d bytes, %.0f allocs/block",
					f.name, dir, r.Shape, r.Compression, o.GBPerSec, o.NsPerBlock, f.f.Bytes, o.AllocsPerBlock)))
			fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="10" fill="#333">%s</text>`+"\n", float64(x0)+wd+3, by+svgBarH-2, fmtGB(o.GBPerSec))
		}
	}
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// fmtGB formats a throughput with about three significant digits.
func fmtGB(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// esc escapes s for XML text and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
