package codec

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"

	"github.com/arrowpack/arrowpack"
)

// ALP (Afroozeh, Kuffo and Boncz, SIGMOD 2024): a float that came from a
// decimal, x, is stored as the integer d = round(x * 10^e * 10^-f), which
// decodes to exactly x as float(d) * 10^f * 10^-e (arrowpack.ALPDecode64
// and 32); the integers are then bit-packed with a frame of reference.
// Values that do not come back exactly (and NaN, infinities, -0) are
// exceptions, stored as their position and their raw bytes; their integer
// slot holds another value's, so they cost no bits. The exponent e and
// factor f are searched for on a sample of the column, and the best few
// are kept per column across blocks (alpColumn), as ALP does per row group.
//
// The section's bytes, after which come the tail's:
//
//	0   uint8   w: bytes per value, 4 (float32) or 8 (float64)
//	1   uint8   e: 0..18 (w = 8) or 0..10 (w = 4)
//	2   uint8   f: 0..e
//	3   uint8   b: bits per packed integer, 0..8w
//	4   uint32  n: values
//	8   uint64  base: the reference added to every packed integer (low 4 bytes for w = 4)
//	16  uint32  x: exceptions, at most n
//	20  uint32  0
//	24  the packed integers: arrowpack.PackedLen(n, b) bytes
//	    x positions (uint32), strictly increasing, each below n
//	    x exception values of w bytes each
//	    the tail: the r - n*w raw bytes after the values
const alpHeader = 24

// alpMaxExp is the largest exponent: 10^18 times a decimal of a few digits
// still rounds exactly for float64, 10^10 for float32.
const (
	alpMaxExp64 = 18
	alpMaxExp32 = 10
)

var (
	alpPow64, alpInv64 = func() (p, q [alpMaxExp64 + 1]float64) {
		for i := range p {
			p[i], q[i] = math.Pow10(i), 1/math.Pow10(i)
		}
		return
	}()
	alpPow32, alpInv32 = func() (p, q [alpMaxExp32 + 1]float32) {
		for i := range p {
			p[i], q[i] = float32(math.Pow10(i)), float32(1/math.Pow10(i))
		}
		return
	}()
)

// alpCombo is an exponent and a factor.
type alpCombo struct{ e, f uint8 }

// alpFloat is what the ALP encoder is written over: float32 with int32
// integers, float64 with int64.
type alpFloat interface{ ~float32 | ~float64 }

// isF32 reports whether F is float32. Sizeof folds to a constant in each
// shape's code; comparing interfaces, as this did, called the runtime for
// every value alpEncode1 encoded.
func isF32[F alpFloat]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// alpPows returns 10^e, 10^-e tables for F.
func alpPows[F alpFloat]() (pow, inv []F) {
	if isF32[F]() {
		p, q := any(alpPow32[:]).([]F), any(alpInv32[:]).([]F)
		return p, q
	}
	return any(alpPow64[:]).([]F), any(alpInv64[:]).([]F)
}

// alpEncode1 returns x's integer with combo c, and whether it decodes back
// to exactly x's bits.
func alpEncode1[F alpFloat](x F, c alpCombo, pow, inv []F) (int64, bool) {
	return alpByOf(c, pow, inv).encode(x)
}

// alpBy is a combo's factors 10^e, 10^-f, 10^f and 10^-e, and F's
// rounding constants, looked up once for loops over many values; its
// encode inlines into them, which keeps them in registers across values.
type alpBy[F alpFloat] struct{ pe, fi, pf, ei, magic, limit F }

// alpByOf returns the factors of combo c from the tables pow and inv.
func alpByOf[F alpFloat](c alpCombo, pow, inv []F) alpBy[F] {
	a := alpBy[F]{pe: pow[c.e], fi: inv[c.f], pf: pow[c.f], ei: inv[c.e]}
	if isF32[F]() {
		a.magic, a.limit = 12582912, 1<<22 // 2^23 + 2^22
	} else {
		a.magic, a.limit = 6755399441055744, 1<<51 // 2^52 + 2^51
	}
	return a
}

// encode returns x's integer, rounded the way the encoder rounds (adding
// and taking away magic, exact while under limit; NaN is not), and
// whether it decodes back to exactly x's bits.
func (a alpBy[F]) encode(x F) (int64, bool) {
	y := F(x*a.pe) * a.fi
	if !(y < a.limit && y > -a.limit) {
		return 0, false
	}
	d := int64(F(y+a.magic) - a.magic)
	// Equal bits: equal values of the same sign (x is not NaN, or the
	// rounding would have failed), as float32 widens exactly.
	z := F(F(d)*a.pf) * a.ei
	return d, math.Float64bits(float64(z)) == math.Float64bits(float64(x))
}

// alpSampleSize is how many values an exponent search reads.
const alpSampleSize = 32

// alpCost is the bits combo c is estimated to take per value on sample:
// the width its integers need, plus an exception's position and value
// for each exception.
func alpCost[F alpFloat](sample []F, c alpCombo, pow, inv []F) (bits float64, exceptions int) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, x := range sample {
		d, ok := alpEncode1(x, c, pow, inv)
		if !ok {
			exceptions++
			continue
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	w := 0
	if hi >= lo {
		w = widthOf(uint64(hi - lo))
	}
	size := 8 * 4
	if !isF32[F]() {
		size = 8 * 8
	}
	return float64(w) + float64(exceptions*(32+size))/float64(len(sample)), exceptions
}

// alpKeep is how many combos an ALP column keeps from a full search.
const alpKeep = 5

// alpColumn is what an encoder keeps of one float column across blocks:
// the best combos of the last full search.
type alpColumn struct {
	mu     sync.Mutex
	combos []alpCombo
}

// alpChoice is how a piece of floats is encoded with ALP.
type alpChoice struct {
	w     int
	combo alpCombo
	bits  float64 // estimated bits per value, exceptions included
	exc   float64 // the sample's share of exceptions
}

// chooseALP searches for the exponent and factor of the n floats of w
// bytes in b on a sample: among the column's kept combos, or all of them
// when it has none or the kept ones leave more than an eighth of the
// sample as exceptions.
func chooseALP(b []byte, w int, col *alpColumn) alpChoice {
	if w == 8 {
		return chooseALPOf(view[float64](b)[:len(b)/8], col)
	}
	return chooseALPOf(view[float32](b)[:len(b)/4], col)
}

func chooseALPOf[F alpFloat](v []F, col *alpColumn) alpChoice {
	var sample [alpSampleSize]F
	k := min(len(v), alpSampleSize)
	for i := range k {
		sample[i] = v[i*len(v)/k]
	}
	s := sample[:k]
	pow, inv := alpPows[F]()
	w, maxE := 8, alpMaxExp64
	if isF32[F]() {
		w, maxE = 4, alpMaxExp32
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	best := alpChoice{w: w, bits: math.Inf(1)}
	for _, c := range col.combos {
		bits, exc := alpCost(s, c, pow, inv)
		if bits < best.bits {
			best.combo, best.bits, best.exc = c, bits, float64(exc)/float64(k)
		}
	}
	if len(col.combos) > 0 && best.exc <= 1.0/8 {
		return best
	}
	// The full search: keep the alpKeep best.
	type scored struct {
		c    alpCombo
		bits float64
		exc  int
	}
	var top [alpKeep]scored
	nt := 0
	for e := maxE; e >= 0; e-- {
		for f := 0; f <= e; f++ {
			c := alpCombo{uint8(e), uint8(f)}
			bits, exc := alpCost(s, c, pow, inv)
			i := nt
			for i > 0 && top[i-1].bits > bits {
				i--
			}
			if i == alpKeep {
				continue
			}
			if nt < alpKeep {
				nt++
			}
			copy(top[i+1:nt], top[i:nt-1])
			top[i] = scored{c, bits, exc}
		}
	}
	col.combos = col.combos[:0]
	for _, t := range top[:nt] {
		col.combos = append(col.combos, t.c)
	}
	return alpChoice{w: w, combo: top[0].c, bits: top[0].bits, exc: float64(top[0].exc) / float64(k)}
}

// alpBound is the most bytes an ALP section of n values of w bytes and a
// tail of tail bytes takes.
func alpBound(n, w, tail int) int {
	// The last 4n bytes hold the exceptions' positions while the
	// integers are packed.
	return alpHeader + arrowpack.PackedLen(n, 8*w) + n*(4+w) + tail + 4*n
}

// encodeALP writes into dst (of at least alpBound bytes) the ALP section of
// raw, whose first n values of c.w bytes are encoded with c.combo and the
// rest is the tail, with scratch for the integers (grown as needed), and
// returns the section and scratch.
func encodeALP(dst, raw []byte, n int, c alpChoice, scratch []uint64) ([]byte, []uint64) {
	if cap(scratch) < n {
		scratch = make([]uint64, n)
	}
	var o int
	if c.w == 8 {
		o = encodeALPOf(dst, view[float64](raw[:8*n])[:n], c.combo, view[int64](unsafeBytes(scratch[:n])))
	} else {
		o = encodeALPOf(dst, view[float32](raw[:4*n])[:n], c.combo, view[int32](unsafeBytes(scratch[:(n+1)/2]))[:n])
	}
	o += copy(dst[o:], raw[c.w*n:])
	return dst[:o], scratch
}

// encodeALPOf writes the section's header, packed integers and exceptions
// for v into dst, with ints (len(v) of them) as room, and returns the bytes
// written.
func encodeALPOf[F alpFloat, I int32 | int64](dst []byte, v []F, c alpCombo, ints []I) int {
	pow, inv := alpPows[F]()
	n := len(v)
	// The exceptions' positions go after the packed integers, whose size
	// is known only once they are all encoded: note them at the end of
	// dst first.
	w := 8
	if isF32[F]() {
		w = 4
	}
	pos := view[uint32](dst[len(dst)-4*n:])
	x := 0
	var fill I
	filled := false
	by := alpByOf(c, pow, inv)
	for i, f := range v {
		d, ok := by.encode(f)
		if !ok {
			pos[x] = uint32(i)
			x++
			continue
		}
		ints[i] = I(d)
		if !filled {
			fill, filled = I(d), true
		}
	}
	for _, p := range pos[:x] {
		ints[p] = fill
	}
	dst[0], dst[1], dst[2] = byte(w), c.e, c.f
	binary.LittleEndian.PutUint32(dst[4:], uint32(n))
	binary.LittleEndian.PutUint32(dst[16:], uint32(x))
	binary.LittleEndian.PutUint32(dst[20:], 0)
	o := alpHeader
	if w == 8 {
		iv := any(ints).([]int64)
		lo, hi := arrowpack.MinMaxInt64(iv)
		b := widthOf(uint64(hi) - uint64(lo))
		if n == 0 {
			lo, b = 0, 0
		}
		dst[3] = byte(b)
		binary.LittleEndian.PutUint64(dst[8:], uint64(lo))
		o += arrowpack.BitPack64(dst[o:], view[uint64](asBytes(iv)), uint64(lo), b)
	} else {
		iv := any(ints).([]int32)
		lo, hi := arrowpack.MinMaxInt32(iv)
		b := widthOf(uint64(uint32(hi) - uint32(lo)))
		if n == 0 {
			lo, b = 0, 0
		}
		dst[3] = byte(b)
		binary.LittleEndian.PutUint64(dst[8:], uint64(uint32(lo)))
		o += arrowpack.BitPack32(dst[o:], view[uint32](asBytes(iv)), uint32(lo), b)
	}
	// The positions move from the end of dst to after the packed
	// integers (never overlapping: dst has room for every value as an
	// exception besides), then the exceptions' values.
	o += copy(dst[o:], asBytes(pos[:x]))
	for _, p := range pos[:x] {
		o += copy(dst[o:], asBytes(v[p:p+1]))
	}
	return o
}
