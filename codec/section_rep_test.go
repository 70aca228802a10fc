package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pierrec/lz4/v4"
)

// repBatch is a batch of n rows whose columns Light should store as
// run-length (sorted years: 32-bit and 64-bit), integer dictionary (few
// distinct wide values) and string dictionary sections (few distinct
// words, 32- and 64-bit lengths).
func repBatch(n int, seed uint64) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(seed, 1))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "year", Type: arrow.PrimitiveTypes.Int32},
		{Name: "day", Type: arrow.PrimitiveTypes.Int64},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "word", Type: arrow.BinaryTypes.String},
		{Name: "large", Type: arrow.BinaryTypes.LargeString},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	ids := make([]int64, 37)
	for i := range ids {
		ids[i] = r.Int64()
	}
	words := make([]string, 150)
	for i := range words {
		words[i] = fmt.Sprintf("%x-word-%d", r.Uint32(), i)
	}
	for i := range n {
		b.Field(0).(*array.Int32Builder).Append(int32(1900 + i/97))
		b.Field(1).(*array.Int64Builder).Append(int64(1e12) + int64(i/40)*int64(86400e3))
		b.Field(2).(*array.Int64Builder).Append(ids[r.IntN(len(ids))])
		b.Field(3).(*array.StringBuilder).Append(words[r.IntN(len(words))])
		b.Field(4).(*array.LargeStringBuilder).Append(words[r.IntN(len(words))])
	}
	return b.NewRecordBatch()
}

// TestRepeatSections checks that Light stores repBatch's columns with
// run-length, integer and string dictionary sections and decodes them.
func TestRepeatSections(t *testing.T) {
	rec := repBatch(8192, 1)
	defer rec.Release()
	light := roundTrip(t, rec, WithCompression(Light))
	lz4 := roundTrip(t, rec, WithCompression(LZ4))
	zstd := roundTrip(t, rec, WithCompression(Zstd))
	codecs := sectionCodecs(t, light)
	t.Logf("light %d bytes %v, lz4 %d, zstd %d", len(light), codecs, len(lz4), len(zstd))
	for _, c := range []Compression{codecRLE, codecDict, codecStrDict} {
		if codecs[c] == 0 {
			t.Errorf("no section of codec %d: %v", c, codecs)
		}
	}
	lightNotOverLZ4(t, "repBatch", light)
}

// rleSection encodes the run-length section of raw, whose first n values
// of w bytes are the runs r (as given: hostile ends are encoded as they
// are) and the rest the tail.
func rleSection(raw []byte, n, w int, r rleRuns) []byte {
	z, _ := encodeRLE(make([]byte, rleBound(len(r.vals)/w, w, len(raw)-n*w)), raw, n, w, r, nil)
	return z
}

// intDictSection encodes the integer dictionary section of raw with the
// dictionary vals and codes as given.
func intDictSection(raw []byte, n, w int, vals []byte, codes []uint32) []byte {
	z, _ := encodeIntDict(make([]byte, intDictBound(n, len(vals)/w, w, len(raw)-n*w)), raw, n, w, vals, codes, nil)
	return z
}

// strDictSection encodes the string dictionary section of p and tail with
// the dictionary's lengths, data and codes as given, its data as FSST
// (with a table trained on it) or else as the smaller of raw and LZ4.
func strDictSection(p strPiece, tail, lens, data []byte, codes []uint32, fsst bool) []byte {
	d := strDictParts{lens: lens, codes: codes, data: data, strData: strData{st: newFastLZ4()}}
	d.alt = make([]byte, lz4.CompressBlockBound(len(data)))
	if fsst {
		d.fsst = trainFSST(data)
	}
	k := len(lens) / p.w
	z, _ := encodeStrDict(make([]byte, strDictBound(p.w, p.n, len(p.gap), k, len(data), len(tail))), p, tail, d, nil)
	return z
}

// repRaw is a raw piece for the hostile tests: 1000 values of w bytes in
// runs of 10 of 5 distinct values, then a tail of 12 bytes.
func repRaw(w int) []byte {
	raw := make([]byte, 1000*w+12)
	for i := range 1000 {
		x := uint64((i / 10) % 5 * 1000003)
		if w == 8 {
			binary.LittleEndian.PutUint64(raw[8*i:], x<<20)
		} else {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(x))
		}
	}
	for i := range 12 {
		raw[1000*w+i] = byte(i + 1)
	}
	return raw
}

// strRaw is a string column's piece for the hostile tests: 1500 strings
// of 7 distinct ones, their lengths (4 bytes), a gap of 12 bytes, the data
// and a tail of 5 bytes; it returns the piece and its parts.
func strRaw() ([]byte, strPiece, []byte) {
	words := []string{"", "a", "bb", "emoji-😀", strings.Repeat("the same words ", 20), "ccc", "iso3166"}
	n := 1500
	lens := make([]byte, 4*(n+1))
	var data []byte
	for i := range n {
		s := words[(i*i+3*i)%len(words)]
		binary.LittleEndian.PutUint32(lens[4*(i+1):], uint32(len(s)))
		data = append(data, s...)
	}
	gap := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	tail := []byte{0xa, 0xb, 0xc, 0xd, 0xe}
	raw := append(append(append(append([]byte{}, lens...), gap...), data...), tail...)
	p := strPiece{w: 4, n: n, lens: raw[:len(lens)], gap: raw[len(lens) : len(lens)+len(gap)]}
	p.data = raw[len(lens)+len(gap) : len(lens)+len(gap)+len(data)]
	return raw, p, raw[len(raw)-len(tail):]
}

// set32 returns a copy of b with the uint32 at at set to v.
func set32(b []byte, at int, v uint32) []byte {
	b = cloneBytes(b)
	binary.LittleEndian.PutUint32(b[at:], v)
	return b
}

// set8 returns a copy of b with the byte at at set to v.
func set8(b []byte, at int, v byte) []byte {
	b = cloneBytes(b)
	b[at] = v
	return b
}

// hostileCase is a section a decoder must refuse.
type hostileCase struct {
	name  string
	codec Compression
	r     int // raw bytes
	src   []byte
	want  []byte // a good section's raw bytes
}

// repHostileCases builds, field by field, run-length, integer dictionary
// and string dictionary sections that break each rule FORMAT.md states
// for them, and returns them with a good section of each first (named
// "good ...").
func repHostileCases(t *testing.T) []hostileCase {
	var cs []hostileCase
	add := func(name string, c Compression, r int, src []byte) {
		cs = append(cs, hostileCase{name: name, codec: c, r: r, src: src})
	}
	addGood := func(name string, c Compression, raw, src []byte) {
		cs = append(cs, hostileCase{name: "good " + name, codec: c, r: len(raw), src: src, want: raw})
	}
	for _, w := range []int{4, 8} {
		raw := repRaw(w)
		n := 1000
		runs := runsOf(rleRuns{}, raw[:n*w], w)
		good := rleSection(raw, n, w, runs)
		addGood(fmt.Sprintf("run-length w=%d", w), codecRLE, raw, good)
		with := func(f func(e []uint32)) rleRuns {
			e := append([]uint32(nil), runs.ends...)
			f(e)
			return rleRuns{vals: runs.vals, ends: e}
		}
		add("run ends out of order", codecRLE, len(raw), rleSection(raw, n, w, with(func(e []uint32) { e[3], e[4] = e[4], e[3] })))
		add("run ends equal", codecRLE, len(raw), rleSection(raw, n, w, with(func(e []uint32) { e[4] = e[3] })))
		add("run end at n", codecRLE, len(raw), rleSection(raw, n, w, with(func(e []uint32) { e[len(e)-1] = uint32(n) })))
		add("run end past n", codecRLE, len(raw), rleSection(raw, n, w, with(func(e []uint32) { e[len(e)-1] = 1 << 30 })))
		add("run end 0", codecRLE, len(raw), rleSection(raw, n, w, with(func(e []uint32) { e[0] = 0 })))
		add("runs: one end short", codecRLE, len(raw), rleSection(raw, n, w, rleRuns{vals: runs.vals, ends: runs.ends[1:]}))
		add("runs: 0 runs", codecRLE, len(raw), set32(good, 8, 0))
		add("runs: more runs than values", codecRLE, len(raw), set32(good, 8, uint32(n+1)))
		add("runs: 2^20+1 values", codecRLE, len(raw), set32(good, 4, lightMaxValues+1))
		add("runs: 2^32-1 values", codecRLE, len(raw), set32(good, 4, 1<<32-1))
		add("runs: values past raw", codecRLE, len(raw), set32(good, 4, uint32(n+4)))
		add("runs: 0 values", codecRLE, len(raw), set32(good, 4, 0))
		add("runs: values part past the section", codecRLE, len(raw), set32(good, 12, uint32(len(good))))
		add("runs: values part of 2^32-1 bytes", codecRLE, len(raw), set32(good, 12, 1<<32-1))
		add("runs: a byte short", codecRLE, len(raw), good[:len(good)-1])
		add("runs: 16-byte values", codecRLE, len(raw), set8(good, 0, 16))
		add("runs: flags set", codecRLE, len(raw), set8(good, 2, 1))
		one := rleSection(raw[:4*w], 4, w, rleRuns{vals: raw[:w]})
		addGood("one run", codecRLE, raw[:4*w], one)
		add("one run with a values part of w+1", codecRLE, 4*w, set32(one, 12, uint32(w+1)))

		var dt dictTable
		codes, ok := intDict(&dt, raw[:n*w], w, nil)
		if !ok {
			t.Fatal("repRaw has too many distinct values")
		}
		vals := dictValues(&dt, w, nil)
		good = intDictSection(raw, n, w, vals, codes)
		addGood(fmt.Sprintf("dictionary w=%d", w), codecDict, raw, good)
		c2 := append([]uint32(nil), codes...)
		c2[7] = uint32(len(vals) / w)
		add("code = dictionary size", codecDict, len(raw), intDictSection(raw, n, w, vals, c2))
		c2[7] = 1<<32 - 1
		add("code 2^32-1", codecDict, len(raw), intDictSection(raw, n, w, vals, c2))
		add("dictionary of 0 entries", codecDict, len(raw), set32(good, 8, 0))
		add("dictionary of 1 entry", codecDict, len(raw), set32(good, 8, 1))
		add("dictionary larger than the values", codecDict, len(raw), set32(good, 8, uint32(n+1)))
		add("dictionary: 2^20+1 values", codecDict, len(raw), set32(good, 4, lightMaxValues+1))
		add("dictionary: one code short", codecDict, len(raw), intDictSection(raw, n, w, vals, codes[1:]))
		add("dictionary: one entry short", codecDict, len(raw), intDictSection(raw, n, w, vals[w:], codes[:n]))
	}

	raw, p, tail := strRaw()
	var dt dictTable
	codes, ok := strDict(&dt, p, nil)
	if !ok {
		t.Fatal("strRaw has too many distinct strings")
	}
	lens, data := dictLengths(&dt, 4, nil), dt.strs
	k := len(lens) / 4
	for _, fsst := range []bool{false, true} {
		good := strDictSection(p, tail, lens, data, codes, fsst)
		addGood(fmt.Sprintf("string dictionary (data codec %d)", good[2]), codecStrDict, raw, good)
	}
	good := strDictSection(p, tail, lens, data, codes, false)
	c2 := append([]uint32(nil), codes...)
	c2[9] = uint32(k)
	add("string code = dictionary size", codecStrDict, len(raw), strDictSection(p, tail, lens, data, c2, false))
	add("string dictionary of 0 entries", codecStrDict, len(raw), set32(good, 8, 0))
	add("string dictionary of 1 entry", codecStrDict, len(raw), set32(good, 8, 1))
	add("string dictionary: 2^20+1 strings", codecStrDict, len(raw), set32(good, 4, lightMaxValues+1))
	add("string dictionary: strings past raw", codecStrDict, len(raw), set32(good, 4, uint32(len(raw))))
	add("string dictionary: data of 2^32-1 bytes", codecStrDict, len(raw), set32(good, 16, 1<<32-1))
	add("string dictionary: data one byte longer", codecStrDict, len(raw), set32(good, 16, uint32(len(data)+1)))
	add("string dictionary: lengths part past the section", codecStrDict, len(raw), set32(good, 12, 1<<32-1))
	add("string dictionary: codes part one byte longer", codecStrDict, len(raw), set32(good, 24, binary.LittleEndian.Uint32(good[24:])+1))
	l2 := cloneBytes(lens)
	binary.LittleEndian.PutUint32(l2[4:], binary.LittleEndian.Uint32(l2[4:])+1)
	add("string dictionary: lengths sum past the data", codecStrDict, len(raw), strDictSection(p, tail, l2, data, codes, false))
	add("string dictionary: strings longer than raw", codecStrDict, len(raw)-1, good)
	add("string dictionary: a byte short", codecStrDict, len(raw), good[:len(good)-1])
	add("string dictionary data codec 3", codecStrDict, len(raw), set8(good, 2, 3))
	add("string dictionary gap of 255", codecStrDict, len(raw), set8(good, 1, 255))
	add("string dictionary of 2-byte lengths", codecStrDict, len(raw), set8(good, 0, 2))
	if good[2] != byte(LZ4) {
		t.Fatalf("strRaw's dictionary data stored with codec %d, want LZ4", good[2])
	}
	add("string dictionary: LZ4 data decoding to one byte more", codecStrDict, len(raw), set32(good, 16, uint32(len(data)-1)))
	return cs
}

// TestRepeatSectionsHostile checks that the decoders of run-length and
// dictionary sections decode the good sections repHostileCases builds to
// their raw bytes and refuse each hostile one with an error wrapping
// ErrCorrupt, without writing a byte of raw (nor panicking), and that
// checkSection allows no section more raw bytes than lightMaxRaw says.
func TestRepeatSectionsHostile(t *testing.T) {
	checkHostile(t, repHostileCases(t))
}

// checkHostile decodes each case: a good one must give its raw bytes, a
// hostile one an error wrapping ErrCorrupt with no byte of raw written.
func checkHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	d := &decompressor{maxBlock: DefaultMaxBlockSize, concurrency: 1, pool: &blockPool{}}
	for _, c := range cases {
		raw := make([]byte, c.r)
		for i := range raw {
			raw[i] = 0xa5
		}
		err := d.decompressBody(raw, c.src, c.codec)
		if strings.HasPrefix(c.name, "good") {
			t.Logf("%s: %d bytes", c.name, len(c.src))
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if !bytes.Equal(raw, c.want) {
				t.Errorf("%s: decodes to other bytes", c.name)
			}
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want an error wrapping ErrCorrupt", c.name, err)
			continue
		}
		for i, b := range raw {
			if b != 0xa5 {
				t.Errorf("%s: refused (%v) after writing raw byte %d", c.name, err, i)
				break
			}
		}
	}
}

// TestSumLens checks sumLens, which reads two 4-byte lengths a load,
// against a sum one length at a time, for every span of a few lengths and
// both widths: the sum, false where a length is over the most, and true
// where no length has a bit the most lacks.
func TestSumLens(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 11))
	for _, w := range []int{4, 8} {
		lens := make([]byte, 12*w)
		vals := make([]uint64, 12)
		for i := range vals {
			vals[i] = uint64(r.IntN(1000))
			if w == 4 {
				binary.LittleEndian.PutUint32(lens[4*i:], uint32(vals[i]))
			} else {
				binary.LittleEndian.PutUint64(lens[8*i:], vals[i])
			}
		}
		for j := range 12 {
			for k := j; k <= 12; k++ {
				want, big, or := 0, 0, 0
				for _, v := range vals[j:k] {
					want, big, or = want+int(v), max(big, int(v)), or|int(v)
				}
				for _, most := range []int{big, max(big-1, 0), or, 1023} {
					got, ok := sumLens(lens, w, j, k, most)
					if got != want || big > most && ok || or <= most && !ok {
						t.Fatalf("w %d: sumLens(%d, %d, most %d) = %d, %v; want %d (longest %d, bits %d)", w, j, k, most, got, ok, want, big, or)
					}
				}
			}
		}
	}
}
