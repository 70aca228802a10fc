package codec

import (
	"encoding/binary"

	"github.com/klauspost/compress/huff0"
	"github.com/minio/minlz"
)

// The lightweight section codecs in FuzzStructured's grammar: a chunk of a
// Light block is any byte range of the raw body, which any of the codecs
// stores losslessly (the bytes read as integers of 4, 8 or 16 bytes, as
// floats, as text), and hostile choices break one header field or one
// stored byte of it in a way the format says a decoder refuses.

// lightChunk returns the codec and stored bytes of part as a lightweight
// section drawn from b's choices, possibly hostile: one of the four
// lightweight codecs, or a Huffman section of any inner section.
func (b *blockBuilder) lightChunk(part []byte) (Compression, []byte) {
	switch b.c.intn(8) {
	case 4:
		return b.huffChunk(part)
	case 5, 6, 7:
		if c, z, ok := b.repChunk(part); ok {
			return c, z
		}
		return codecBitpack, b.bitpackChunk(part)
	case 0:
		return codecBitpack, b.bitpackChunk(part)
	case 1:
		return codecALP, b.alpChunk(part)
	case 2:
		if b.c.intn(2) == 0 {
			if z := b.transposedChunk(part); z != nil {
				return codecTransposed, z
			}
		}
		return codecPlanes, b.planesChunk(part)
	}
	return codecFSST, b.fsstChunk(part)
}

// huffChunk returns part as a Huffman section of an inner section drawn
// from b's choices (raw, LZ4, MinLZ or a lightweight one, itself possibly
// hostile), or as that inner section when huff0 cannot code it.
func (b *blockBuilder) huffChunk(part []byte) (Compression, []byte) {
	var inner Compression
	var z []byte
	switch b.c.intn(4) {
	case 0:
		inner, z = None, part
	case 1:
		inner, z = LZ4, compressForTest(LZ4, part)
	case 2:
		inner = MinLZ
		var err error
		if z, err = minlz.Encode(nil, part, minlz.LevelFastest); err != nil {
			return None, cloneBytes(part)
		}
	default:
		inner, z = b.lightChunk(part)
	}
	if !huffInnerOK(inner) {
		return inner, z
	}
	streams := []int{1, 4}[b.c.intn(2)]
	hs := &huff0.Scratch{Reuse: huff0.ReusePolicyNone}
	compress := huff0.Compress1X
	if streams == 4 {
		compress = huff0.Compress4X
	}
	out, _, err := compress(z, hs)
	if err != nil {
		if inner == None {
			z = cloneBytes(z)
		}
		return inner, z
	}
	h := []byte{byte(inner), byte(streams), 0, 0}
	h = binary.LittleEndian.AppendUint32(h, uint32(len(z)))
	h = append(h, out...)
	switch b.c.hostile(8) {
	case 0:
		c := []byte{byte(Zstd), byte(codecHuff), byte(maxCodec + 1)}[b.c.intn(3)]
		b.markBad("huffman section of inner codec %d", c)
		h[0] = c
	case 1:
		b.markBad("huffman section in 2 streams")
		h[1] = 2
	case 2:
		b.markBad("huffman section with reserved bytes set")
		h[2+b.c.intn(2)] = byte(1 + b.c.intn(255))
	case 3:
		b.markBad("huffman section coding one byte more")
		binary.LittleEndian.PutUint32(h[4:], uint32(len(z)+1))
	case 4:
		b.markBad("huffman section coding one byte less")
		binary.LittleEndian.PutUint32(h[4:], uint32(len(z)-1))
	case 5:
		b.markBad("huffman section coding more than 8 bytes a stored byte")
		binary.LittleEndian.PutUint32(h[4:], uint32(8*(len(h)-huffHeader)+1))
	case 6:
		b.markOdd("a huffman byte changed")
		h[huffHeader+b.c.intn(len(h)-huffHeader)] ^= byte(1 + b.c.intn(255))
	case 7:
		b.markOdd("a huffman section a byte short")
		h = h[:len(h)-1]
	}
	return codecHuff, h
}

func (b *blockBuilder) planesChunk(part []byte) []byte {
	w := []int{4, 8}[b.c.intn(2)]
	n := len(part) / w
	p := planesChoice{w: w, n: n, lz4: uint8(b.c.intn(256)), packed: uint8(b.c.intn(256))}
	st := newFastLZ4()
	z := encodePlanes(st, new(lightScratch), make([]byte, planesBound(n, w, len(part)-n*w)), part, p)
	// The first packed plane's offset in z, if any.
	packedAt, at := -1, planesHeader+5*w
	for j := range w {
		if z[planesHeader+j] == planePacked && packedAt < 0 {
			packedAt = at
		}
		at += int(binary.LittleEndian.Uint32(z[planesHeader+w+4*j:]))
	}
	switch b.c.hostile(7) {
	case 0:
		b.markBad("byte-plane section of %d-byte values", 2)
		z[0] = 2
	case 1:
		j := b.c.intn(w)
		b.markBad("byte plane %d of codec 3", j)
		z[planesHeader+j] = 3
	case 2:
		j := b.c.intn(w)
		b.markBad("byte plane %d a byte longer", j)
		at := planesHeader + w + 4*j
		binary.LittleEndian.PutUint32(z[at:], binary.LittleEndian.Uint32(z[at:])+1)
	case 3:
		b.markBad("byte-plane section of one value more")
		binary.LittleEndian.PutUint32(z[4:], uint32(n+1))
	case 4:
		if len(z) > planesHeader+5*w {
			b.markOdd("a plane byte changed")
			z[planesHeader+5*w+b.c.intn(len(z)-planesHeader-5*w)] ^= byte(1 + b.c.intn(255))
		}
	case 5:
		if packedAt >= 0 {
			b.markBad("packed plane of one distinct byte")
			z[packedAt] = 0
		}
	case 6:
		if packedAt >= 0 && z[packedAt] < 255 {
			b.markBad("packed plane of one distinct byte more")
			z[packedAt]++
		}
	}
	return z
}

// transposedChunk returns part as a transposed LZ4 section drawn from b's
// choices, possibly hostile, or nil if part holds no value or LZ4 does not
// shrink its values.
func (b *blockBuilder) transposedChunk(part []byte) []byte {
	w := []int{4, 8}[b.c.intn(2)]
	n := len(part) / w
	z := encodeTransposed(newFastLZ4(), new(lightScratch), make([]byte, transposedBound(n, w, len(part)-n*w)), part, n, w)
	if z == nil {
		return nil
	}
	z = cloneBytes(z)
	switch b.c.hostile(6) {
	case 0:
		b.markBad("transposed section of %d-byte values", 2)
		z[0] = 2
	case 1:
		b.markBad("transposed section of one value more")
		binary.LittleEndian.PutUint32(z[4:], uint32(n+1))
	case 2:
		b.markBad("transposed section of one value fewer")
		binary.LittleEndian.PutUint32(z[4:], uint32(n-1))
	case 3:
		b.markBad("transposed section of no value")
		binary.LittleEndian.PutUint32(z[4:], 0)
	case 4:
		b.markBad("transposed section with a nonzero reserved byte")
		z[1+b.c.intn(3)] = 1
	case 5:
		if len(z) > transposedHeader {
			b.markOdd("a byte of the LZ4 block changed")
			z[transposedHeader+b.c.intn(len(z)-transposedHeader)] ^= byte(1 + b.c.intn(255))
		}
	}
	return z
}

func (b *blockBuilder) bitpackChunk(part []byte) []byte {
	w := []int{4, 8, 16}[b.c.intn(3)]
	n := len(part) / w
	if b.c.intn(4) == 0 {
		n = b.c.intn(n + 1) // a longer tail
	}
	if w == 16 {
		if _, ok := lowWords(part[:n*w], n, nil); !ok {
			w, n = 8, len(part)/8
		}
	}
	choice, _ := chooseBitpack(part[:n*w], w, nil)
	z, _ := encodeBitpack(make([]byte, choice.size(len(part)-n*w)), part, choice, nil)
	switch b.c.hostile(7) {
	case 0:
		b.markBad("bit-packed section of %d-byte values", 3)
		z[0] = 3
	case 1:
		bits := 8*min(w, 8) + 1 + b.c.intn(200)
		b.markBad("bit-packed section of %d bits", bits)
		z[2] = byte(bits)
	case 2:
		b.markBad("bit-packed section in mode 3")
		z[1] = 3
	case 3:
		b.markOdd("bit-packed section of one value more")
		binary.LittleEndian.PutUint32(z[4:], uint32(n+1))
	case 4:
		if len(z) > bitpackHeader {
			b.markBad("bit-packed section a byte short")
			z = z[:len(z)-1]
		}
	case 5:
		b.markBad("bit-packed section of 2^20+1 values")
		binary.LittleEndian.PutUint32(z[4:], lightMaxValues+1)
	case 6:
		if len(z) > bitpackHeader {
			b.markOdd("a packed byte changed")
			z[bitpackHeader+b.c.intn(len(z)-bitpackHeader)] ^= byte(1 + b.c.intn(255))
		}
	}
	return z
}

func (b *blockBuilder) alpChunk(part []byte) []byte {
	w := []int{4, 8}[b.c.intn(2)]
	n := len(part) / w
	a := chooseALP(part[:n*w], w, new(alpColumn))
	z, _ := encodeALP(make([]byte, alpBound(n, w, len(part)-n*w)), part, n, a, nil)
	x := int(binary.LittleEndian.Uint32(z[16:]))
	packed := alpHeader + len(z) - alpHeader - x*(4+w) - (len(part) - n*w)
	switch b.c.hostile(7) {
	case 0:
		b.markBad("alp exponent 19")
		z[1] = 19
	case 1:
		b.markBad("alp factor above the exponent")
		z[2] = z[1] + 1
	case 2:
		b.markBad("alp section of %d bits", 65)
		z[3] = 65
	case 3:
		if x > 0 {
			b.markBad("alp exception at value n")
			binary.LittleEndian.PutUint32(z[packed:], uint32(n))
		}
	case 4:
		if x > 1 {
			b.markBad("alp exceptions out of order")
			p0 := binary.LittleEndian.Uint32(z[packed:])
			binary.LittleEndian.PutUint32(z[packed+4:], p0)
		}
	case 5:
		b.markBad("alp section of one exception more")
		binary.LittleEndian.PutUint32(z[16:], uint32(x+1))
	case 6:
		if len(z) > alpHeader {
			b.markOdd("an alp byte changed")
			z[alpHeader+b.c.intn(len(z)-alpHeader)] ^= byte(1 + b.c.intn(255))
		}
	}
	return z
}

func (b *blockBuilder) fsstChunk(part []byte) []byte {
	m := len(part)
	if b.c.intn(4) == 0 {
		m = b.c.intn(m + 1)
	}
	t := trainFSST(part[:m])
	z := encodeFSST(make([]byte, fsstBound(m, len(part)-m)), part, m, t)
	k := int(z[fsstHeader])
	c := int(binary.LittleEndian.Uint32(z[4:]))
	switch b.c.hostile(6) {
	case 0:
		if k > 0 {
			i := b.c.intn(k)
			l := []byte{0, 9, 255}[b.c.intn(3)]
			b.markBad("fsst symbol %d of %d bytes", i, l)
			z[fsstHeader+1+i] = l
		}
	case 1:
		b.markBad("fsst section decoding to one byte more")
		binary.LittleEndian.PutUint32(z, uint32(m+1))
	case 2:
		if m > 0 {
			b.markBad("fsst section decoding to one byte less")
			binary.LittleEndian.PutUint32(z, uint32(m-1))
		}
	case 3:
		if c > 0 && k < 255 {
			// A code naming a symbol the table does not have.
			at := len(z) - (len(part) - m) - c
			if z[at] != fsstEscape {
				b.markBad("fsst code %d of a table of %d", k, k)
				z[at] = byte(k)
			}
		}
	case 4:
		if c > 0 {
			// The last code an escape with nothing after it.
			at := len(z) - (len(part) - m) - 1
			if at > 0 && z[at-1] != fsstEscape {
				b.markBad("fsst codes ending in an escape")
				z[at] = fsstEscape
			}
		}
	case 5:
		if len(z) > fsstHeader+1 {
			b.markOdd("an fsst byte changed")
			z[fsstHeader+1+b.c.intn(len(z)-fsstHeader-1)] ^= byte(1 + b.c.intn(255))
		}
	}
	return z
}

// repChunk returns part as a run-length, integer dictionary or string
// dictionary section, possibly hostile, or false when part cannot be one
// (too short; a string dictionary needs part to start with a 0 and lengths
// of at least 2 distinct strings inside it).
func (b *blockBuilder) repChunk(part []byte) (Compression, []byte, bool) {
	w := []int{4, 8}[b.c.intn(2)]
	n := len(part) / w
	if b.c.intn(4) == 0 {
		n = b.c.intn(n + 1) // a longer tail
	}
	if n < 2 {
		return 0, nil, false
	}
	vals := part[:n*w]
	switch b.c.intn(3) {
	case 0:
		chunk := b.strDictChunk
		if b.c.oneIn(2) {
			chunk = b.frontChunk
		}
		if c, z, ok := chunk(part, w); ok {
			return c, z, true
		}
		fallthrough
	case 1:
		var t dictTable
		t.reset(n)
		codes := make([]uint32, n)
		for i := range n {
			codes[i] = uint32(t.intCode(intAt(vals, i, w)))
		}
		k := len(t.vals)
		if k < 2 {
			break
		}
		dv := dictValues(&t, w, nil)
		switch b.c.hostile(4) {
		case 0:
			b.markBad("dictionary code %d of %d entries", k, k)
			codes[b.c.intn(n)] = uint32(k)
		case 1:
			b.markBad("dictionary of 0 entries")
			z := intDictSection(part, n, w, dv, codes)
			binary.LittleEndian.PutUint32(z[8:], 0)
			return codecDict, z, true
		case 2:
			b.markBad("dictionary of more entries than values")
			z := intDictSection(part, n, w, dv, codes)
			binary.LittleEndian.PutUint32(z[8:], uint32(n+1))
			return codecDict, z, true
		case 3:
			b.markOdd("dictionary entry changed")
			dv[b.c.intn(len(dv))] ^= 1
		}
		return codecDict, intDictSection(part, n, w, dv, codes), true
	}
	r := runsOf(rleRuns{}, vals, w)
	k := len(r.vals) / w
	switch b.c.hostile(5) {
	case 0:
		if k > 2 {
			j := b.c.intn(k - 2)
			b.markBad("run ends %d and %d swapped", j, j+1)
			r.ends[j], r.ends[j+1] = r.ends[j+1], r.ends[j]
		}
	case 1:
		if k > 1 {
			b.markBad("run end at n")
			r.ends[k-2] = uint32(n)
		}
	case 2:
		b.markBad("run-length section of 2^20+1 values")
		z := rleSection(part, n, w, r)
		binary.LittleEndian.PutUint32(z[4:], lightMaxValues+1)
		return codecRLE, z, true
	case 3:
		b.markBad("run-length section of 0 runs")
		z := rleSection(part, n, w, r)
		binary.LittleEndian.PutUint32(z[8:], 0)
		return codecRLE, z, true
	case 4:
		b.markOdd("a run value changed")
		r.vals[b.c.intn(len(r.vals))] ^= 1
	}
	return codecRLE, rleSection(part, n, w, r), true
}

// strPieceIn reads part as a string column's piece, if it can be one: a
// 0 and the most lengths of w bytes whose data fits after them and a gap
// drawn from b, at least 2 strings; it returns the piece and where its
// data ends (the tail follows).
func (b *blockBuilder) strPieceIn(part []byte, w int) (strPiece, int, bool) {
	if len(part) < 3*w || intAt(part, 0, w) != 0 {
		return strPiece{}, 0, false
	}
	g := b.c.intn(16)
	n, sum := 0, uint64(0)
	for (n+2)*w+g <= len(part) {
		l := intAt(part, n+1, w)
		if l > uint64(len(part)) || uint64((n+2)*w+g)+sum+l > uint64(len(part)) {
			break
		}
		n, sum = n+1, sum+l
	}
	if n < 2 {
		return strPiece{}, 0, false
	}
	at := (n+1)*w + g
	return strPiece{w: w, n: n, lens: part[:(n+1)*w], gap: part[(n+1)*w : at], data: part[at : at+int(sum)]}, at + int(sum), true
}

// frontChunk returns part as a front-coded string section, possibly
// hostile, if part can be read as a string column's piece.
func (b *blockBuilder) frontChunk(part []byte, w int) (Compression, []byte, bool) {
	p, end, ok := b.strPieceIn(part, w)
	if !ok {
		return 0, nil, false
	}
	var f frontCode
	frontOf(&f, p)
	switch b.c.hostile(4) {
	case 0:
		if i := b.c.intn(p.n); f.suf[i] > 0 {
			b.markBad("front-coded string %d sharing a byte more than the string before", i)
			prev := uint32(0)
			if i > 0 {
				prev = f.pre[i-1] + f.suf[i-1]
			}
			f.pre[i], f.suf[i] = prev+1, f.pre[i]+f.suf[i]-prev-1
		}
	case 1:
		b.markBad("front-coded suffix lengths one past the suffixes")
		f.suf[b.c.intn(p.n)]++
	case 2:
		z := frontSection(p, part[end:], &f, b.c.oneIn(2))
		b.markBad("front-coded suffix codec 2")
		z[2] = 2
		return codecFront, z, true
	case 3:
		z := frontSection(p, part[end:], &f, b.c.oneIn(2))
		b.markBad("front-coded suffixes one byte longer")
		binary.LittleEndian.PutUint32(z[16:], binary.LittleEndian.Uint32(z[16:])+1)
		return codecFront, z, true
	}
	return codecFront, frontSection(p, part[end:], &f, b.c.oneIn(2)), true
}

// strDictChunk returns part as a string dictionary section when it starts
// with a lengths buffer of lengths of w bytes (a 0, then lengths whose
// strings fit part after a gap of 0 to 15 bytes) of at least 2 distinct
// strings, possibly hostile.
func (b *blockBuilder) strDictChunk(part []byte, w int) (Compression, []byte, bool) {
	p, end, ok := b.strPieceIn(part, w)
	if !ok {
		return 0, nil, false
	}
	n, at, sum := p.n, end-len(p.data), len(p.data)
	var t dictTable
	t.reset(n)
	codes := make([]uint32, n)
	off := 0
	for i := range n {
		l := p.strLen(i)
		codes[i] = uint32(t.strCode(p.data[off : off+l]))
		off += l
	}
	k := len(t.offs) - 1
	if k < 2 {
		return 0, nil, false
	}
	lens := dictLengths(&t, w, nil)
	z := strDictSection(p, part[at+int(sum):], lens, t.strs, codes, b.c.oneIn(2))
	switch b.c.hostile(4) {
	case 0:
		b.markBad("string dictionary code %d of %d entries", k, k)
		codes[b.c.intn(n)] = uint32(k)
		z = strDictSection(p, part[at+int(sum):], lens, t.strs, codes, false)
	case 1:
		b.markBad("string dictionary of 1 entry")
		binary.LittleEndian.PutUint32(z[8:], 1)
	case 2:
		b.markBad("string dictionary data codec 2")
		z[2] = 2
	case 3:
		b.markBad("string dictionary data one byte longer")
		binary.LittleEndian.PutUint32(z[16:], binary.LittleEndian.Uint32(z[16:])+1)
	}
	return codecStrDict, z, true
}
