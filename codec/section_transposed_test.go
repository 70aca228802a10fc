package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// mirroredRaw returns n integers of w bytes, each one random byte
// repeated (so their byte planes equal one another), then a tail of tail
// bytes.
func mirroredRaw(r *rand.Rand, n, w, tail int) []byte {
	raw := make([]byte, n*w+tail)
	for i := range n {
		b := byte(r.IntN(256))
		for j := range w {
			raw[i*w+j] = b
		}
	}
	for i := range tail {
		raw[n*w+i] = byte(i)
	}
	return raw
}

// TestTransposedRoom checks encodeTransposed as notOverLZ4's trials use
// it: with full room it writes a section that decodes exactly, smaller
// than its byte planes each LZ4 (which match no plane against another);
// with any less room it writes the same section when that fits and
// returns nil when it does not.
func TestTransposedRoom(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	st, ls := newFastLZ4(), new(lightScratch)
	for _, w := range []int{4, 8} {
		n, tail := 700, 5
		raw := mirroredRaw(r, n, w, tail)
		bound := transposedBound(n, w, tail)
		full := encodeTransposed(st, ls, make([]byte, bound), raw, n, w)
		planes := encodePlanes(st, new(lightScratch), make([]byte, planesBound(n, w, tail)), raw, planesChoice{w: w, n: n, lz4: 1<<w - 1})
		if len(full) >= len(planes) {
			t.Errorf("w=%d: transposed section of %d bytes, byte planes %d", w, len(full), len(planes))
		}
		checkRoom(t, fmt.Sprintf("w=%d", w), raw, bound, 100, decodeTransposed,
			func(dst []byte) []byte { return encodeTransposed(st, ls, dst, raw, n, w) })
	}
	// Values LZ4 does not shrink, in room short of transposedBound, or
	// none, give no section.
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	if z := encodeTransposed(st, ls, make([]byte, len(noise)), noise, 512, 8); z != nil {
		t.Errorf("random values: a section of %d bytes", len(z))
	}
	if z := encodeTransposed(st, ls, make([]byte, 64), noise[:3], 0, 4); z != nil {
		t.Errorf("no values: a section of %d bytes", len(z))
	}
}

// TestTransposedHostile builds, field by field, transposed LZ4 sections
// that break each rule FORMAT.md states for them: each must be refused
// before a raw byte is written, and the good ones decode exactly.
func TestTransposedHostile(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var cs []hostileCase
	add := func(name string, rlen int, src []byte) {
		cs = append(cs, hostileCase{name: name, codec: codecTransposed, r: rlen, src: src})
	}
	section := func(w, n int, block, tail []byte) []byte {
		z := make([]byte, transposedHeader, transposedHeader+len(block)+len(tail))
		z[0] = byte(w)
		binary.LittleEndian.PutUint32(z[4:], uint32(n))
		return append(append(z, block...), tail...)
	}
	for _, w := range []int{4, 8} {
		n, tail := 300, 3
		raw := mirroredRaw(r, n, w, tail)
		good := bytes.Clone(encodeTransposed(newFastLZ4(), new(lightScratch), make([]byte, transposedBound(n, w, tail)), raw, n, w))
		cs = append(cs, hostileCase{name: fmt.Sprintf("good w=%d", w), codec: codecTransposed, r: len(raw), src: good, want: raw})
		block := good[transposedHeader : len(good)-tail]
		mod := func(name string, f func(z []byte) []byte) {
			add(fmt.Sprintf("w=%d %s", w, name), len(raw), f(bytes.Clone(good)))
		}
		add(fmt.Sprintf("w=%d shorter than its header", w), len(raw), good[:transposedHeader-1])
		mod("2-byte values", func(z []byte) []byte { z[0] = 2; return z })
		mod("16-byte values", func(z []byte) []byte { z[0] = 16; return z })
		mod("reserved byte set", func(z []byte) []byte { z[2] = 1; return z })
		mod("no value", func(z []byte) []byte { binary.LittleEndian.PutUint32(z[4:], 0); return z })
		mod("2^20+1 values", func(z []byte) []byte { binary.LittleEndian.PutUint32(z[4:], lightMaxValues+1); return z })
		mod("2^32-1 values", func(z []byte) []byte { binary.LittleEndian.PutUint32(z[4:], 1<<32-1); return z })
		mod("one value more", func(z []byte) []byte { binary.LittleEndian.PutUint32(z[4:], uint32(n+1)); return z })
		mod("one value fewer", func(z []byte) []byte { binary.LittleEndian.PutUint32(z[4:], uint32(n-1)); return z })
		add(fmt.Sprintf("w=%d more values than the raw bytes hold", w), n*w-1, good)
		add(fmt.Sprintf("w=%d an empty LZ4 block", w), len(raw), section(w, n, nil, raw[n*w:]))
		add(fmt.Sprintf("w=%d a tail byte short", w), len(raw), good[:len(good)-1])
		// A block of a few bytes cannot make 255 times as many.
		add(fmt.Sprintf("w=%d a block too short for its values", w), lightMaxValues*w, section(w, lightMaxValues, block[:8], nil))
		// LZ4 blocks that decode to fewer or more bytes than n*w, or not.
		short := make([]byte, lz4.CompressBlockBound(n*w))
		k, _ := lz4.CompressBlock(raw[:n*w-1], short, nil)
		add(fmt.Sprintf("w=%d a block a byte short", w), len(raw), section(w, n, short[:k], raw[n*w:]))
		long := make([]byte, lz4.CompressBlockBound(n*w+1))
		k, _ = lz4.CompressBlock(append(bytes.Clone(raw[:n*w]), 7), long, nil)
		add(fmt.Sprintf("w=%d a block a byte long", w), len(raw), section(w, n, long[:k], raw[n*w:]))
		add(fmt.Sprintf("w=%d a block of a bad offset", w), len(raw), section(w, n, []byte{0x0f, 0xff, 0xff, 0, 0, 0}, raw[n*w:]))
	}
	checkHostile(t, cs)
}
