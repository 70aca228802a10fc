package arrowpack

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// scatterPath is one implementation of a scatter kernel, by name.
type scatterPath[T uint32 | uint64] struct {
	name string
	run  func(cur []Cursor, src []T, parts []uint32)
}

// scatterExtra32 and scatterExtra64 list the variants that no impl uses
// but the harness tests all the same (the write-combining scatter on
// amd64, scatter_amd64_test.go).
var (
	scatterExtra32 []scatterPath[uint32]
	scatterExtra64 []scatterPath[uint64]
)

// scatterParts are the partition counts the scatter cases try, one per k.
var scatterParts = []int{1, 3, 17, 200}

func scatterCases() []*kcase {
	return []*kcase{
		scatterCase("scatter32", func(im *impl) func([]Cursor, []uint32, []uint32) { return im.scatter32 }, &scatterExtra32),
		scatterCase("scatter64", func(im *impl) func([]Cursor, []uint64, []uint32) { return im.scatter64 }, &scatterExtra64),
	}
}

// scatterCase tests a scatter: n rows of random values to P = scatterParts[k]
// partitions, each row's partition random, or, for every other length,
// in runs, so that partitions fill whole 64-byte lines (the write-combining
// path's non-temporal stores) as well as parts of them. The partitions'
// regions lie back to back in one slice in the order of the partitions,
// so that their cursors start at every alignment and a value written past
// a region lands in the next one or in the guard bytes.
func scatterCase[T uint32 | uint64](name string, get func(*impl) func([]Cursor, []T, []uint32), extra *[]scatterPath[T]) *kcase {
	var zero T
	w := int(unsafe.Sizeof(zero))
	c := &kcase{name: name, elem: w, ks: len(scatterParts), slots: 3}
	c.own = func() []kpath {
		var ps []kpath
		for _, im := range impls {
			ps = append(ps, scatterKPath(scatterPath[T]{im.name, get(im)}, w))
		}
		for _, p := range *extra {
			ps = append(ps, scatterKPath(p, w))
		}
		return ps
	}
	return c
}

func scatterKPath[T uint32 | uint64](p scatterPath[T], w int) kpath {
	return kpath{p.name, func(in *kin) error {
		np := scatterParts[in.k]
		src := take[T](in, 0, in.n)
		fill(in.g, src)
		parts := take[uint32](in, 1, in.n)
		runs := in.n%2 == 1
		for r := range parts {
			if runs && r > 0 && in.g.intn(16) != 0 {
				parts[r] = parts[r-1]
			} else {
				parts[r] = uint32(in.g.intn(np))
			}
		}
		dst := take[T](in, 2, in.n)
		clear(dst)
		cnt := make([]int, np)
		for _, q := range parts {
			cnt[q]++
		}
		at := make([]int, np) // q's first element in dst
		for q := 1; q < np; q++ {
			at[q] = at[q-1] + cnt[q-1]
		}
		want := make([]T, in.n)
		next := slices.Clone(at)
		for r, q := range parts {
			want[next[q]] = src[r]
			next[q]++
		}
		cur := make([]Cursor, np)
		for q := range cur {
			cur[q] = Cursor{unsafe.Pointer(unsafe.SliceData(dst)), at[q] * w}
		}
		p.run(cur, src, parts)
		for i := range want {
			if dst[i] != want[i] {
				return fmt.Errorf("P=%d: element %d is %#x, want %#x", np, i, dst[i], want[i])
			}
		}
		for q := range cur {
			if cur[q].At != next[q]*w {
				return fmt.Errorf("P=%d: cursor %d at byte %d, want %d", np, q, cur[q].At, next[q]*w)
			}
		}
		return nil
	}}
}

// TestScatterBadPartition checks that every path panics at a row whose
// partition is out of range, with the rows before it written.
func TestScatterBadPartition(t *testing.T) {
	paths := []scatterPath[uint64]{}
	for _, im := range impls {
		paths = append(paths, scatterPath[uint64]{im.name, im.scatter64})
	}
	paths = append(paths, scatterExtra64...)
	for _, p := range paths {
		const n, bad = 100, 37
		src := make([]uint64, n)
		parts := make([]uint32, n)
		for r := range parts {
			src[r] = uint64(r + 1)
			parts[r] = uint32(r % 2)
		}
		parts[bad] = 2
		dst := make([]uint64, n)
		cur := []Cursor{{unsafe.Pointer(&dst[0]), 0}, {unsafe.Pointer(&dst[0]), 8 * n / 2}}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic for partition 2 of 2", p.name)
				}
			}()
			p.run(cur, src, parts)
		}()
		for r := range bad {
			if got := dst[r%2*n/2+r/2]; got != uint64(r+1) {
				t.Fatalf("%s: row %d, before the bad one, is %d in its partition, want %d", p.name, r, got, r+1)
			}
		}
		if cur[0].At != 8*(bad/2+1) || cur[1].At != 8*(n/2+bad/2) {
			t.Fatalf("%s: cursors at %d, %d after the bad row", p.name, cur[0].At, cur[1].At)
		}
	}
}
