package codec

import (
	"encoding/binary"
	"github.com/arrowpack/arrowpack"
	"math"
	"unsafe"
)

// The wire primitives. A block is a sequence of 8-byte little-endian words
// and buffers; a buffer is a word holding its byte length, then its bytes,
// then zero padding to the next multiple of 8. Every buffer therefore starts
// 8-byte aligned relative to the block start.

// maxLength bounds every array length in a block. Lengths above it are
// refused on both sides, so that int arithmetic on lengths and byte sizes
// never overflows, on 32-bit platforms too.
const maxLength = math.MaxInt32

// pad8 rounds n up to a multiple of 8.
func pad8(n int) int { return (n + 7) &^ 7 }

// bufferSize is the number of bytes a buffer of n bytes takes on the wire.
func bufferSize(n int) int { return 8 + pad8(n) }

// writer writes a block in one pass, growing it as it goes. A writer with a
// nil buf only counts: it advances pos and writes nothing, which is how an
// Encoder sizes a block without writing it.
type writer struct {
	// out is where the block goes, whole: out[:start] is what came before
	// it (an Append's dst), buf is out[start:], the block, of which pos
	// bytes are written and the rest is room. When the room runs out, out
	// moves to new memory (first of the size hint guesses, then twice as
	// large each time), with buf still 8-byte aligned: a slice reserve
	// returned before is then stale.
	out   []byte
	start int
	buf   []byte
	pos   int
	xf    flags // the transforms to apply (flagLengths, flagTranspose)
	hint  int   // the block's likely size, which the first growth makes room for
	grew  bool  // out is the writer's own memory
	// With marking set, reserve appends to marks where each buffer's bytes
	// start, relative to the body (after the header), and values where
	// each byte plane of transposed values starts: where a compressing
	// encoder may cut the body into sections.
	marking bool
	marks   []int
	// With marking set, hints[i] says what the buffer at marks[i] holds
	// (section_hint.go), from next, which the caller sets before it
	// reserves a buffer and reserve clears.
	hints []bufHint
	next  bufHint
}

// newWriter returns a writer of the block at out[start:], whose first byte
// must be 8-byte aligned unless there is no room there.
func newWriter(out []byte, start int) writer {
	var w writer
	w.init(out, start)
	return w
}

// init makes w, in place, a new writer of the block at out[start:] (see
// newWriter).
func (w *writer) init(out []byte, start int) {
	if out == nil {
		out = []byte{} // a nil buf would only count
	}
	*w = writer{out: out, start: start, buf: out[start:]}
}

func (w *writer) counting() bool { return w.buf == nil }

// room makes sure n more bytes fit in the block.
func (w *writer) room(n int) {
	if n > len(w.buf)-w.pos {
		w.grow(n)
	}
}

// grow moves the block to new memory with room for n more bytes.
func (w *writer) grow(n int) {
	need := w.start + w.pos + n
	if need < 0 || n < 0 {
		unsupportedf("a block of more than %d bytes", math.MaxInt)
	}
	size := max(need, w.start+w.hint, 4096)
	if d := 2 * len(w.out); d > size && w.grew {
		size = d
	}
	out := alignedAt(size, w.start)
	copy(out, w.out[:w.start+w.pos])
	w.out, w.buf, w.grew = out, out[w.start:], true
}

// block returns out extended by the block written.
func (w *writer) block() []byte { return w.out[:w.start+w.pos] }

func (w *writer) word(v uint64) {
	if !w.counting() {
		w.room(8)
		binary.LittleEndian.PutUint64(w.buf[w.pos:], v)
	}
	w.pos += 8
}

// reserve writes the length word of an n-byte buffer, zeroes its padding and
// returns its n bytes for the caller to fill (nil when counting). The bytes
// are valid until the next call that writes.
func (w *writer) reserve(n int) []byte {
	padded := pad8(n)
	if !w.counting() {
		w.room(8 + padded)
		binary.LittleEndian.PutUint64(w.buf[w.pos:], uint64(n))
	}
	start := w.pos + 8
	w.pos = start + padded
	if w.marking && n > 0 {
		w.marks = append(w.marks, start-headerSize)
		w.hints = append(w.hints, w.next.of(n))
	}
	w.next = bufHint{}
	if w.counting() {
		return nil
	}
	if w.pos > start+n {
		// Padding, fewer than 8 bytes: zero the buffer's last word,
		// which holds it, before the caller fills the n bytes.
		binary.LittleEndian.PutUint64(w.buf[w.pos-8:], 0)
	}
	return w.buf[start : start+n : start+n]
}

// at returns the n bytes at pos of the block, written earlier (nil when
// counting): for a buffer reserved before others that may have moved it.
func (w *writer) at(pos, n int) []byte {
	if w.counting() {
		return nil
	}
	return w.buf[pos : pos+n : pos+n]
}

// bytes writes b as a buffer.
func (w *writer) bytes(b []byte) {
	copy(w.reserve(len(b)), b)
}

// bits writes bits [off, off+n) of src as a buffer starting at bit 0.
func (w *writer) bits(src []byte, off, n int) {
	if dst := w.reserve((n + 7) / 8); dst != nil {
		arrowpack.CopyBits(dst, src, off, n)
	}
}

// values writes src, values of width bytes, byte-transposed when transpose
// is set and the writer applies flagTranspose.
func (w *writer) values(src []byte, width int, transpose bool) {
	if !transpose || w.xf&flagTranspose == 0 {
		w.bytes(src)
		return
	}
	if dst := w.reserve(len(src)); dst != nil {
		arrowpack.TransposeBytes(dst, src, width)
		w.markPlanes(len(src), width)
	}
}

// markPlanes notes, with marking set, where the byte planes after the first
// start in the n-byte buffer of transposed values of width bytes that was
// reserved last.
func (w *writer) markPlanes(n, width int) {
	if !w.marking || n == 0 {
		return
	}
	at, plane := w.marks[len(w.marks)-1], n/width
	for j := 1; j < width; j++ {
		w.marks = append(w.marks, at+j*plane)
		w.hints = append(w.hints, bufHint{})
	}
}

// offsets32 writes src rebased to start at 0; with flagLengths, a 0 then
// the lengths of the values instead.
func (w *writer) offsets32(src []int32) {
	writeOffsets(w, src, arrowpack.RebaseOffsets32, arrowpack.OffsetsToLengths32)
}

// offsets64 is offsets32 for 64-bit offsets.
func (w *writer) offsets64(src []int64) {
	writeOffsets(w, src, arrowpack.RebaseOffsets64, arrowpack.OffsetsToLengths64)
}

func writeOffsets[T int32 | int64](w *writer, src []T, rebase func(dst, src []T, base T), lengths func(dst, offsets []T)) {
	dst := view[T](w.reserve(int(unsafe.Sizeof(T(0))) * len(src)))
	switch {
	case dst == nil:
	case w.xf&flagLengths != 0:
		dst[0] = 0
		lengths(dst[1:], src)
	default:
		rebase(dst, src, src[0])
	}
}

// reader walks a block. Every length it reads is checked against the bytes
// left before anything is sliced or allocated from it.
type reader struct {
	buf []byte
	pos int
	xf  flags // the transforms the block's buffers went through
}

func (r *reader) word() (uint64, error) {
	if len(r.buf)-r.pos < 8 {
		return 0, corruptf("truncated at byte %d: want an 8-byte word, %d bytes left", r.pos, len(r.buf)-r.pos)
	}
	v := binary.LittleEndian.Uint64(r.buf[r.pos:])
	r.pos += 8
	return v, nil
}

// length reads an array length and checks it against maxLength.
func (r *reader) length() (int, error) {
	at := r.pos
	v, err := r.word()
	if err != nil {
		return 0, err
	}
	if v > maxLength {
		return 0, corruptf("length %d at byte %d is above the limit of %d", v, at, maxLength)
	}
	return int(v), nil
}

// buffer reads a buffer that must hold count values of width bytes each.
func (r *reader) buffer(count, width int, what string) ([]byte, error) {
	at := r.pos
	b, err := r.anyBuffer(what)
	if err != nil {
		return nil, err
	}
	if want := uint64(count) * uint64(width); uint64(len(b)) != want {
		return nil, corruptf("%s at byte %d holds %d bytes, want %d", what, at, len(b), want)
	}
	return b, nil
}

// anyBuffer reads a buffer of whatever length it says, if the block holds it.
func (r *reader) anyBuffer(what string) ([]byte, error) {
	at := r.pos
	v, err := r.word()
	if err != nil {
		return nil, err
	}
	left := uint64(len(r.buf) - r.pos)
	if v > left {
		return nil, corruptf("%s at byte %d says %d bytes, %d left", what, at, v, left)
	}
	n := int(v)
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	if p := pad8(n) - n; p > 0 {
		if len(r.buf)-r.pos < p {
			return nil, corruptf("%s at byte %d: padding truncated", what, at)
		}
		r.pos += p
	}
	return b, nil
}

// The casts below view a buffer as typed values. Buffers start 8-byte
// aligned in memory: writers and readers check the block start, and every
// buffer starts at a multiple of 8 from it.

// view returns b's bytes as values of T (whole values only).
func view[T int16 | int32 | int64 | uint16 | uint32 | uint64 | float32 | float64](b []byte) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// aligned reports whether b starts at an address that is a multiple of 8.
func aligned(b []byte) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0
}

// alignedAt returns n zeroed bytes whose byte at start is 8-byte
// aligned.
func alignedAt(n, start int) []byte {
	pad := (8 - start%8) % 8
	return unsafeBytes(make([]uint64, (pad+n+7)/8))[pad : pad+n]
}

// littleEndian reports whether this machine stores integers little-endian,
// as blocks do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// unsafeBytes views words as bytes; the result is 8-byte aligned.
func unsafeBytes(words []uint64) []byte {
	if len(words) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 8*len(words))
}
