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

// update redraws the bar for done of total bytes, unless it was redrawn
// less than 100 ms ago.
func (p *progressBar) update(done, total int64) {
	if p == nil {
		return
	}
	if now := time.Now(); p.drawn && now.Sub(p.last) < 100*time.Millisecond {
		return
	} else {
		p.last = now
	}
	p.draw(done, total)
}

func (p *progressBar) draw(done, total int64) {
	const width = 30
	frac := 1.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	filled := int(frac * width)
	bar := strings.Repeat("=", filled)
	if filled < width {
		bar += ">" + strings.Repeat(" ", width-filled-1)
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3.0f%%  %s / %s%s", p.label, bar, 100*frac, humanBytes(done), humanBytes(total), p.clear)
	p.drawn = true
}

// finish draws the bar at done of total and ends its line.
func (p *progressBar) finish(done, total int64) {
	if p == nil {
		return
	}
	p.draw(done, total)
	fmt.Fprintln(p.w)
}
