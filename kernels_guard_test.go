package arrowpack

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"testing"
)

// No path may read or write past either end of its slices. TestGuardKernels
// runs every kernel case with each of its slices right against an
// inaccessible page: ending exactly where the page starts (over-read) and
// starting exactly where it ends (under-read), in every combination. A
// kernel that touches one byte outside its slices kills the test binary
// with a fault, which trap turns into the failure of the case that ran.

// guardPos says where a slice is put in its guarded region.
type guardPos int

const (
	atEnd   guardPos = iota // the slice ends where an inaccessible page starts
	atStart                 // the slice starts where an inaccessible page ends
)

func (p guardPos) String() string {
	if p == atEnd {
		return "end"
	}
	return "start"
}

// guardMem puts slot i at pos[i] of its own guarded region, mapping a
// larger one when a slice does not fit.
type guardMem struct {
	t       *testing.T
	pos     []guardPos
	regions [][]byte
}

func (m *guardMem) get(slot, size int) []byte {
	for len(m.regions) <= slot {
		m.regions = append(m.regions, nil)
	}
	if len(m.regions[slot]) < size {
		m.regions[slot] = guarded(m.t, max(size, 1<<16))
	}
	return place(m.regions[slot], m.pos[slot], size)
}

// trap turns a fault on a guard page into a panic, for this goroutine, and
// reports it as the failure of the case *what describes. Use it as
//
//	var what string
//	defer trap(t, &what)()
func trap(t *testing.T, what *string) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if e := recover(); e != nil {
			if f, ok := e.(interface{ Addr() uintptr }); ok {
				t.Fatalf("%s: fault at %#x, outside the slices: %v", *what, f.Addr(), e)
			}
			t.Fatalf("%s: %v", *what, e)
		}
	}
}

// guarded returns at least size bytes of memory between two inaccessible
// pages, released when the test ends; the test skips where there is no mmap.
func guarded(t *testing.T, size int) []byte {
	t.Helper()
	data, unmap, err := mapGuarded(size)
	if err != nil {
		t.Skipf("no guard pages on this system: %v", err)
	}
	t.Cleanup(func() {
		if err := unmap(); err != nil {
			t.Errorf("munmap: %v", err)
		}
	})
	return data
}

// place returns the n bytes of region at pos, with a capacity that stops at
// the guard page for atEnd and at n for atStart.
func place(region []byte, pos guardPos, n int) []byte {
	if pos == atEnd {
		return region[len(region)-n:]
	}
	return region[:n:n]
}

// guardPlacements returns every combination of positions of slots slices.
func guardPlacements(slots int) [][]guardPos {
	ps := [][]guardPos{nil}
	for range slots {
		var next [][]guardPos
		for _, p := range ps {
			for _, q := range []guardPos{atEnd, atStart} {
				next = append(next, append(append([]guardPos(nil), p...), q))
			}
		}
		ps = next
	}
	return ps
}

func TestGuardKernels(t *testing.T) {
	for _, c := range kernelCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(caseSeed(c.name), 2))
			m := &guardMem{t: t}
			var what string
			defer trap(t, &what)()
			for _, im := range c.paths() {
				for _, n := range c.lengths() {
					for _, k := range c.kValues(n) {
						for _, pos := range guardPlacements(c.slots) {
							// At the start, bit offsets from 8 on drop whole
							// bytes before the kernel sees its input, which
							// then starts past the page: nothing new there.
							if c.bits && pos[0] == atStart && k >= 8 {
								continue
							}
							m.pos = pos
							what = fmt.Sprintf("%s %s n=%d k=%d slices at %v", im.name, c.name, n, k, pos)
							if err := im.run(&kin{n: n, k: k, g: &gen{r: r}, m: m}); err != nil {
								t.Fatalf("%s: %v", what, err)
							}
						}
					}
				}
			}
		})
	}
}
