package codec

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// TestAppendGrows checks the one-pass writer's room handling: whatever room
// dst has (none, too little, exactly enough, more) and wherever the block
// starts in it, Append writes the same block after dst's bytes, keeps them,
// and allocates only when the block does not fit.
func TestAppendGrows(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, s := range randbatch.BenchShapes() {
		rec := s.Build(mem)
		enc, err := NewEncoder(rec.Schema())
		if err != nil {
			t.Fatal(err)
		}
		want, err := enc.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, prefix := range []int{0, 3, 8} {
			for _, room := range []int{0, 1, 100, len(want) / 2, len(want) - 1, len(want), len(want) + 13} {
				dst := make([]byte, prefix, prefix+room)
				for i := range dst {
					dst[i] = byte(i + 1)
				}
				out, err := enc.Append(dst, rec)
				if err != nil {
					t.Fatalf("%s, prefix %d, room %d: %v", s.Name, prefix, room, err)
				}
				if !bytes.Equal(out[:prefix], dst) || !bytes.Equal(out[prefix:], want) {
					t.Fatalf("%s, prefix %d, room %d: Append wrote another block, or lost dst's bytes", s.Name, prefix, room)
				}
				fits := room >= len(want)
				if inPlace := cap(out) == cap(dst) && (cap(dst) == 0 || &out[:1][0] == &dst[:1][0]); fits && prefix%8 == 0 && !inPlace {
					t.Errorf("%s, prefix %d, room %d: the block fits, yet Append moved dst", s.Name, prefix, room)
				}
			}
		}
		if allocs := testing.AllocsPerRun(10, func() {
			if _, err := enc.Append(make([]byte, 0, len(want))[:0:len(want)], rec); err != nil {
				t.Fatal(err)
			}
		}); allocs > 1 { // the make
			t.Errorf("%s: Append into exactly enough room allocates %.0f times", s.Name, allocs-1)
		}
		rec.Release()
	}
}

// TestAppendSliceRoom checks that the room a writer makes for a block is
// guessed from the rows written, not from the buffers of the arrays they
// are cut from: 16 rows sliced from a large batch allocate about what
// their block takes.
func TestAppendSliceRoom(t *testing.T) {
	mem := memory.NewGoAllocator()
	full := randbatch.Lineitem(mem, 1<<16)
	defer full.Release()
	enc, err := NewEncoder(full.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{0, 1 << 15} {
		rec := full.NewSlice(at, at+16)
		block, err := enc.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 20
		for range n {
			if _, err := enc.Append(nil, rec); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		per := int(after.TotalAlloc-before.TotalAlloc) / n
		if limit := 4*len(block) + 16<<10; per > limit {
			t.Errorf("rows %d+16: Append(nil) allocated %d bytes for a block of %d (limit %d)", at, per, len(block), limit)
		}
		rec.Release()
	}
}
