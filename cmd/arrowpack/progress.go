package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar draws "label [=====>    ]  42%  12.0 MiB / 28.5 MiB" on one
// line of a terminal, redrawn at most ten times a second. A nil
// *progressBar draws nothing.
type progressBar struct {
	w     io.Writer
	label string
	clear string // erases the rest of the line on a terminal
	last  time.Time
	drawn bool
}

// progressMinSize is the input size from which convert shows a progress bar
// on a terminal by itself.
const progressMinSize = 32 << 20

// newProgressBar returns a bar writing to w, or nil when show is false. On
// a terminal (tty) it erases what a longer line left behind.
func newProgressBar(w io.Writer, label string, show, tty bool) *progressBar {
	if !show {
		return nil
	}
	p := &progressBar{w: w, label: label}
	if tty {
		p.clear = "\x1b[K"
	}
	return p
}

// update redraws the bar for pr, unless it was redrawn less than 100 ms
// ago.
func (p *progressBar) update(pr progress) {
	if p == nil {
		return
	}
	if now := time.Now(); p.drawn && now.Sub(p.last) < 100*time.Millisecond {
		return
	} else {
		p.last = now
	}
	p.draw(pr)
}

// count formats n of unit: bytes in KiB/MiB, rows and batches as numbers.
func count(n int64, unit string) string {
	if unit == "bytes" {
		return humanBytes(n)
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func (p *progressBar) draw(pr progress) {
	if pr.total < 0 {
		// A pipe: no total to go by.
		fmt.Fprintf(p.w, "\r%s %s%s", p.label, count(pr.done, pr.unit), p.clear)
		p.drawn = true
		return
	}
	const width = 30
	frac := 1.0
	if pr.total > 0 {
		frac = min(float64(pr.done)/float64(pr.total), 1)
	}
	filled := int(frac * width)
	bar := strings.Repeat("=", filled)
	if filled < width {
		bar += ">" + strings.Repeat(" ", width-filled-1)
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3.0f%%  %s / %s%s", p.label, bar, 100*frac,
		strings.TrimSuffix(count(pr.done, pr.unit), " "+pr.unit), count(pr.total, pr.unit), p.clear)
	p.drawn = true
}

// finish draws the bar at pr and ends its line.
func (p *progressBar) finish(pr progress) {
	if p == nil {
		return
	}
	p.draw(pr)
	fmt.Fprintln(p.w)
}

// abandon ends the bar's line where it stopped, before an error message.
func (p *progressBar) abandon() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprintln(p.w)
}
