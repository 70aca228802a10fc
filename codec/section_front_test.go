package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pierrec/lz4/v4"
)

// sortedWords returns n distinct strings, sorted, that share long
// prefixes with their neighbours as a word list's or sorted keys' do, with
// some longer than 16 bytes and some not ASCII.
func sortedWords(n int) []string {
	stems := []string{"", "a", "ab", "abandon", "abandonment-of-the-long-prefix", "émoji-😀", "iso3166-2:fr", "zz"}
	ends := []string{"", "ed", "ing", "ment", "s", "-and-a-suffix-longer-than-sixteen"}
	seen := map[string]bool{}
	var ws []string
	for i := 0; len(ws) < n; i++ {
		w := fmt.Sprintf("%s%d%s", stems[i%len(stems)], i/len(stems)/3, ends[(i/7)%len(ends)])
		if i%97 == 1 && stems[i%len(stems)] != "" {
			w = stems[i%len(stems)]
		}
		if !seen[w] {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	sort.Strings(ws)
	return ws
}

// frontBatch is a batch of n rows of sorted words in a string and a large
// string column (lengths of 4 and 8 bytes), some of them null.
func frontBatch(n int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "word", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "large", Type: arrow.BinaryTypes.LargeString},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	ws := sortedWords(n)
	for i, w := range ws {
		if i%101 == 5 {
			b.Field(0).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(w)
		}
		b.Field(1).(*array.LargeStringBuilder).Append(w)
	}
	return b.NewRecordBatch()
}

// TestFrontSections checks that Light stores sorted words as front-coded
// sections, no larger than LZ4 stores them, and decodes them.
func TestFrontSections(t *testing.T) {
	for _, n := range []int{100, 8192} {
		rec := frontBatch(n)
		light := roundTrip(t, rec, WithCompression(Light))
		lz := roundTrip(t, rec, WithCompression(LZ4))
		codecs := sectionCodecs(t, light)
		t.Logf("%d rows: light %d bytes %v, lz4 %d", n, len(light), codecs, len(lz))
		if n >= minLightRows && codecs[codecFront] != 2 {
			t.Errorf("%d rows: %d front-coded sections, want 2: %v", n, codecs[codecFront], codecs)
		}
		lightNotOverLZ4(t, "frontBatch", light)
		rec.Release()
	}
}

// frontRaw is a string column's piece for the hostile tests: 1500 sorted
// words, their lengths (w bytes), a gap of 12 bytes, the data and a tail
// of 5 bytes; it returns the piece and its parts.
func frontRaw(w int) ([]byte, strPiece, []byte) {
	ws := sortedWords(1500)
	lens := make([]byte, w*(len(ws)+1))
	var data []byte
	for i, s := range ws {
		putValue(lens[w*(i+1):], uint64(len(s)), w)
		data = append(data, s...)
	}
	gap := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	tail := []byte{0xa, 0xb, 0xc, 0xd, 0xe}
	raw := append(append(append(append([]byte{}, lens...), gap...), data...), tail...)
	p := strPiece{w: w, n: len(ws), lens: raw[:len(lens)], gap: raw[len(lens) : len(lens)+len(gap)]}
	p.data = raw[len(lens)+len(gap) : len(lens)+len(gap)+len(data)]
	return raw, p, raw[len(raw)-len(tail):]
}

// putValue writes x as w little-endian bytes.
func putValue(b []byte, x uint64, w int) {
	if w == 8 {
		binary.LittleEndian.PutUint64(b, x)
	} else {
		binary.LittleEndian.PutUint32(b, uint32(x))
	}
}

// frontSection encodes the front-coded section of p and tail split as f
// (as given: hostile lengths are encoded as they are), its suffixes as
// FSST (a table trained on them) or else as the smaller of raw and LZ4.
func frontSection(p strPiece, tail []byte, f *frontCode, fsst bool) []byte {
	d := strData{st: newFastLZ4(), alt: make([]byte, lz4.CompressBlockBound(len(f.data)))}
	if fsst {
		d.fsst = trainFSST(f.data)
	}
	z, _ := encodeFront(make([]byte, frontBound(p.n, len(p.gap), len(f.data), len(tail))), p, tail, f, d, nil)
	return z
}

// TestFrontSectionsHostile checks that the front-coded decoder decodes good
// sections, built field by field, to their raw bytes and refuses, without
// writing a byte of raw, sections that break each rule FORMAT.md states:
// prefixes longer than the string before, lengths that pass the suffixes
// or raw, and every header field out of range.
func TestFrontSectionsHostile(t *testing.T) {
	var cs []hostileCase
	add := func(name string, r int, src []byte) {
		cs = append(cs, hostileCase{name: name, codec: codecFront, r: r, src: src})
	}
	for _, w := range []int{4, 8} {
		raw, p, tail := frontRaw(w)
		var f frontCode
		if !frontOf(&f, p) {
			t.Fatal("frontRaw's lengths pass its data")
		}
		for _, fsst := range []bool{false, true} {
			good := frontSection(p, tail, &f, fsst)
			cs = append(cs, hostileCase{name: fmt.Sprintf("good w=%d suffix codec %d", w, good[2]), codec: codecFront, r: len(raw), src: good, want: raw})
		}
		with := func(g func(f *frontCode)) *frontCode {
			h := frontCode{pre: append([]uint32(nil), f.pre...), suf: append([]uint32(nil), f.suf...), data: f.data}
			g(&h)
			return &h
		}
		// A string that shares one byte more than the string before has.
		at := 0
		for at = 1; at < len(f.pre) && f.pre[at] != f.pre[at-1]+f.suf[at-1]; at++ {
		}
		if at == len(f.pre) {
			t.Fatal("frontRaw has no string that is all prefix of the next")
		}
		name := fmt.Sprintf("w=%d: ", w)
		// One byte moved from a string's suffix to its prefix: the
		// lengths still sum to the suffixes' and the raw bytes.
		moved := func(i int) *frontCode {
			return with(func(f *frontCode) {
				a := 0
				for _, l := range f.suf[:i] {
					a += int(l)
				}
				f.data = append(append([]byte(nil), f.data[:a]...), f.data[a+1:]...)
				f.pre[i]++
				f.suf[i]--
			})
		}
		if f.suf[0] == 0 {
			t.Fatal("frontRaw's first string is empty")
		}
		add(name+"prefix past the string before", len(raw), frontSection(p, tail, moved(at), false))
		add(name+"first prefix 1", len(raw), frontSection(p, tail, moved(0), false))
		add(name+"prefix 2^32-1", len(raw), frontSection(p, tail, with(func(f *frontCode) { f.pre[9] = 1<<32 - 1 }), false))
		add(name+"suffix lengths past the suffixes", len(raw), frontSection(p, tail, with(func(f *frontCode) { f.suf[3]++ }), false))
		add(name+"suffix lengths short of the suffixes", len(raw), frontSection(p, tail, with(func(f *frontCode) { f.suf[len(f.suf)-1]-- }), false))
		// A prefix one longer, still within the string before, and its
		// suffix one shorter: only the suffixes' sum is wrong.
		in := 1
		for in < len(f.pre) && (f.suf[in] == 0 || f.pre[in] >= f.pre[in-1]+f.suf[in-1]) {
			in++
		}
		add(name+"suffix lengths sum one short", len(raw), frontSection(p, tail, with(func(f *frontCode) { f.pre[in]++; f.suf[in]-- }), false))
		add(name+"suffix 2^32-1", len(raw), frontSection(p, tail, with(func(f *frontCode) { f.suf[3] = 1<<32 - 1 }), false))
		add(name+"one string short", len(raw), frontSection(p, tail, with(func(f *frontCode) { f.pre, f.suf = f.pre[:len(f.pre)-1], f.suf[:len(f.suf)-1] }), false))
		good := frontSection(p, tail, &f, false)
		if good[2] != byte(LZ4) {
			t.Fatalf("frontRaw's suffixes stored with codec %d, want LZ4", good[2])
		}
		add(name+"0 strings", len(raw), set32(good, 4, 0))
		add(name+"2^20+1 strings", len(raw), set32(good, 4, lightMaxValues+1))
		add(name+"strings past raw", len(raw), set32(good, 4, uint32(len(raw))))
		add(name+"prefix part past the section", len(raw), set32(good, 8, 1<<32-1))
		add(name+"suffix part one byte longer", len(raw), set32(good, 12, binary.LittleEndian.Uint32(good[12:])+1))
		add(name+"suffixes of 2^32-1 bytes", len(raw), set32(good, 16, 1<<32-1))
		add(name+"suffixes one byte longer", len(raw), set32(good, 16, uint32(len(f.data)+1)))
		add(name+"LZ4 suffixes decoding to one byte more", len(raw), set32(good, 16, uint32(len(f.data)-1)))
		add(name+"data part past the section", len(raw), set32(good, 20, binary.LittleEndian.Uint32(good[20:])+uint32(len(tail))+1))
		add(name+"strings longer than raw", len(raw)-1, good)
		add(name+"a byte short", len(raw), good[:len(good)-1])
		add(name+"suffix codec 3", len(raw), set8(good, 2, 3))
		add(name+"flags set", len(raw), set8(good, 3, 1))
		add(name+"gap of 255", len(raw), set8(good, 1, 255))
		add(name+"2-byte lengths", len(raw), set8(good, 0, 2))
		add(name+"shorter than its header", len(raw), good[:frontHeader-1])
		raw0 := frontSection(p, tail, &f, false)
		raw0[2] = byte(None) // suffixes declared raw, stored as LZ4
		add(name+"raw suffixes of the wrong length", len(raw), raw0)
	}
	checkHostile(t, cs)
	if len(cs) < 50 || !strings.HasPrefix(cs[0].name, "good") {
		t.Fatalf("%d cases", len(cs))
	}
}

// TestSampleStrs checks the sampler of the string choices: dictChunks runs
// of step strings, each string the one at its index, the first of each run
// marked, and false where a length, sampled or skipped, passes the data.
func TestSampleStrs(t *testing.T) {
	for _, w := range []int{4, 8} {
		_, p, _ := frontRaw(w)
		starts := make([]int, p.n+1)
		for i := range p.n {
			starts[i+1] = starts[i] + p.strLen(i)
		}
		var got []int
		ok := sampleStrs(p, 16, func(s, prev []byte, first bool) {
			i := len(got)
			k := sort.SearchInts(starts, cap(p.data)-cap(s)) // s's index, from where it starts
			if string(s) != string(p.data[starts[k]:starts[k+1]]) || first != (i%16 == 0) || !first && string(prev) != string(p.data[starts[k-1]:starts[k]]) {
				t.Fatalf("w=%d: sampled string %d (%q, first %v) is not string %d", w, i, s, first, k)
			}
			got = append(got, k)
		})
		if !ok || len(got) != dictChunks*16 || got[0] != 0 || got[len(got)-1] != p.n-1 {
			t.Fatalf("w=%d: sampled %v (%v), want %d runs of 16 from the first string to the last", w, got, ok, dictChunks)
		}
		for _, at := range []int{1, p.n / 2, p.n} { // sampled, skipped, last
			bad := p
			bad.lens = append([]byte(nil), p.lens...)
			putValue(bad.lens[w*at:], uint64(len(p.data)+1), w)
			if sampleStrs(bad, 16, func(_, _ []byte, _ bool) {}) {
				t.Errorf("w=%d: length %d of string %d past the data sampled", w, len(p.data)+1, at-1)
			}
		}
		if w == 8 {
			bad := p
			bad.lens = append([]byte(nil), p.lens...)
			putValue(bad.lens[w*(p.n/2):], 1<<63, w)
			if sampleStrs(bad, 16, func(_, _ []byte, _ bool) {}) {
				t.Errorf("a skipped length of 2^63 sampled")
			}
		}
	}
}

// TestFrontOf checks frontOf's split against its definition on columns
// of strings sharing 0 to 40 bytes with the one before and of suffixes
// of 0 to 40 bytes, as 4- and 8-byte lengths, down to the last strings,
// whose compares and copies cannot read past them: each string's prefix is
// the most bytes it shares with the string before, its suffix the rest,
// and the suffixes follow one another. A length that passes the data is
// refused.
func TestFrontOf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var f frontCode
	for round := range 200 {
		var strs [][]byte
		var prev []byte
		for range r.IntN(60) {
			s := append([]byte(nil), prev[:min(len(prev), r.IntN(41))]...)
			for range r.IntN(41) {
				s = append(s, byte('a'+r.IntN(3)))
			}
			strs, prev = append(strs, s), s
		}
		w := 4 << (round % 2)
		lens := make([]byte, w*(len(strs)+1))
		var data []byte
		for i, s := range strs {
			putValue(lens[w*(i+1):], uint64(len(s)), w)
			data = append(data, s...)
		}
		p := strPiece{w: w, n: len(strs), lens: lens, data: data}
		if !frontOf(&f, p) {
			t.Fatalf("round %d: good lengths refused", round)
		}
		var want []byte
		for i, s := range strs {
			k := 0
			for i > 0 && k < len(s) && k < len(strs[i-1]) && s[k] == strs[i-1][k] {
				k++
			}
			if int(f.pre[i]) != k || int(f.suf[i]) != len(s)-k {
				t.Fatalf("round %d string %d: prefix %d suffix %d, want %d and %d", round, i, f.pre[i], f.suf[i], k, len(s)-k)
			}
			want = append(want, s[k:]...)
		}
		if !bytes.Equal(f.data, want) {
			t.Fatalf("round %d: suffixes %q, want %q", round, f.data, want)
		}
		if len(strs) > 0 {
			i := r.IntN(len(strs))
			putValue(lens[w*(i+1):], uint64(len(data)+1), w)
			if frontOf(&f, p) {
				t.Fatalf("round %d: string %d's length past the data accepted", round, i)
			}
		}
	}
}

// TestPutFrontStrings checks that putFrontStrings rebuilds random columns
// from their prefixes and suffixes, with strings of up to 9 bytes (where
// frontShort keeps one word: a string of 8 may follow one of up to 8
// sharing all its bytes) and of up to 40, in room for them and a tail of
// 0 to 20 bytes (which the caller writes after them), and writes no byte
// past that room.
func TestPutFrontStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var f frontCode
	for round := range 400 {
		most := 10
		if round%2 == 1 {
			most = 41
		}
		var strs [][]byte
		var prev []byte
		for range r.IntN(80) {
			s := append([]byte(nil), prev[:min(len(prev), r.IntN(most))]...)
			for range r.IntN(most - len(s)) {
				s = append(s, byte('a'+r.IntN(3)))
			}
			strs, prev = append(strs, s), s
		}
		lens := make([]byte, 4*(len(strs)+1))
		var data []byte
		for i, s := range strs {
			putValue(lens[4*(i+1):], uint64(len(s)), 4)
			data = append(data, s...)
		}
		if !frontOf(&f, strPiece{w: 4, n: len(strs), lens: lens, data: data}) {
			t.Fatalf("round %d: good lengths refused", round)
		}
		room := len(data) + r.IntN(21)
		out := bytes.Repeat([]byte{0xee}, room+64)
		sufs := append(append([]byte(nil), f.data...), make([]byte, strSlack)...)
		lens32 := make([]uint32, len(strs))
		for i, s := range strs {
			lens32[i] = uint32(len(s))
		}
		putFrontStrings(out[:room], sufs, f.pre, lens32)
		if !bytes.Equal(out[:len(data)], data) {
			t.Fatalf("round %d: strings %q, want %q", round, out[:len(data)], data)
		}
		if g := out[room:]; !bytes.Equal(g, bytes.Repeat([]byte{0xee}, len(g))) {
			t.Fatalf("round %d: bytes past the room written: %x", round, g)
		}
	}
}
