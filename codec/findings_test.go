//go:build findings

package codec

// Regression tests for the bugs FuzzStructured and the resource tests
// found (issue 9). Each fails until its bug is fixed; CI leaves them out
// (build tag findings) until then. Run them with
//
//	go test -tags findings -run TestFinding ./codec
//
// When one passes, drop its knownBugs entry (structfuzz_test.go) and
// the test, or move it out from under the tag if no other test pins the
// fix. (Fixed already, and pinned by hardening_test.go and the resource
// tests: null map keys and entries, overlapping views, empty view data
// buffers, 64-bit run ends on 386, the fingerprint of deep schemas.)

import (
	"errors"
	"testing"
)

// TestFindingZstdBomb: a zstd chunk declaring 24 raw bytes that
// decompresses to 32 MiB more makes Decode allocate all of it before the
// length check (DecodeAll appends past raw's capacity,
// codec/decompress.go:154): a 3.6 KB block allocates 34 MB; six such chunks
// with WithConcurrency(2) allocate 200 MB, every chunk decompressing after
// the first failed (codec/decompress.go:114-116). knownBugs.zstdBombs.
func TestFindingZstdBomb(t *testing.T) {
	for _, chunks := range []int{1, 6} {
		schema, block := bombBlock(Zstd, chunks, 32<<20)
		r := decodeResource(t, schema, block, WithConcurrency(2))
		if !errors.Is(r.err, ErrCorrupt) {
			t.Errorf("%d chunks: %v, want ErrCorrupt", chunks, r.err)
		}
		if bound := decodeAllocBound(r.in, r.declared); r.allocated > bound {
			t.Errorf("%d chunks: a %d-byte bomb allocated %d bytes, the bound is %d", chunks, r.in, r.allocated, bound)
		}
	}
}
