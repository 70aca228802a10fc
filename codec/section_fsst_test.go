package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// fsstText returns n bytes of words drawn from a small vocabulary, like
// the comment columns of the benchmark batches.
func fsstText(rng *rand.Rand, n int) []byte {
	words := strings.Fields("the quick brown fox jumps over lazy dogs carefully final deposits sleep furiously among ironic requests packages accounts")
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.Bytes()[:n]
}

func TestFSSTRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := map[string][]byte{
		"empty": nil,
		"one":   []byte("a"),
		"short": []byte("abcabcab"),
		"text":  fsstText(rng, 100000),
		"zeros": make([]byte, 5000),
	}
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	inputs["random"] = random
	for name, data := range inputs {
		for _, tail := range []int{0, 5, 16} {
			t.Run(fmt.Sprintf("%s/%d", name, tail), func(t *testing.T) {
				raw := append(append([]byte(nil), data...), bytes.Repeat([]byte{7}, tail)...)
				tab := trainFSST(data)
				z := encodeFSST(make([]byte, fsstBound(len(data), tail)), raw, len(data), tab)
				got := make([]byte, len(raw))
				if err := decodeFSST(got, z); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, raw) {
					t.Fatalf("decoded differs")
				}
				if name == "text" && len(z) > len(raw)/2 {
					t.Errorf("text of %d bytes took %d, want under half", len(raw), len(z))
				}
				// Every shorter or longer section is refused.
				for _, cut := range []int{1, 2, len(z) / 2} {
					if cut <= len(z) && decodeFSST(got, z[:len(z)-cut]) == nil {
						t.Errorf("section cut by %d decoded", cut)
					}
				}
			})
		}
	}
}

// BenchmarkFSSTDecode times decoding an FSST section of text like the
// benchmark's comment columns.
func BenchmarkFSSTDecode(b *testing.B) {
	data := fsstText(rand.New(rand.NewPCG(3, 4)), 200000)
	tab := trainFSST(data)
	z := encodeFSST(make([]byte, fsstBound(len(data), 0)), data, len(data), tab)
	out := make([]byte, len(data))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := decodeFSST(out, z); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFSSTEncode times encoding it with a trained table.
func BenchmarkFSSTEncode(b *testing.B) {
	data := fsstText(rand.New(rand.NewPCG(3, 4)), 200000)
	tab := trainFSST(data)
	z := make([]byte, fsstBound(len(data), 0))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		encodeFSST(z, data, len(data), tab)
	}
}

// BenchmarkFSSTDecodeColumns times decoding the string data of the bench's
// utf8x3 and lineitem shapes, one column at a time, with the tables an
// encoder trains on them.
func BenchmarkFSSTDecodeColumns(b *testing.B) {
	eachFSSTColumn(b, func(b *testing.B, data []byte, tab *fsstTable) {
		z := encodeFSST(make([]byte, fsstBound(len(data), 0)), data, len(data), tab)
		out := make([]byte, len(data))
		for b.Loop() {
			if err := decodeFSST(out, z); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(z))/float64(len(data)), "ratio")
	})
}

// BenchmarkFSSTEncodeColumns times encoding the same columns as
// BenchmarkFSSTDecodeColumns, with the tables an encoder trains on them.
func BenchmarkFSSTEncodeColumns(b *testing.B) {
	eachFSSTColumn(b, func(b *testing.B, data []byte, tab *fsstTable) {
		z := make([]byte, fsstBound(len(data), 0))
		for b.Loop() {
			encodeFSST(z, data, len(data), tab)
		}
	})
}

// eachFSSTColumn runs f as a sub-benchmark of each string column of the
// bench's utf8x3 and lineitem shapes, with its data's bytes set and the
// table an encoder trains on it.
func eachFSSTColumn(b *testing.B, f func(*testing.B, []byte, *fsstTable)) {
	for _, name := range []string{"utf8x3-8192", "lineitem-8192"} {
		rec := benchShape(b, name)
		for i, col := range rec.Columns() {
			s, ok := col.(*array.String)
			if !ok {
				continue
			}
			data := s.ValueBytes()
			tab := trainFSST(data)
			b.Run(fmt.Sprintf("%s/%s", name, rec.ColumnName(i)), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				f(b, data, tab)
			})
		}
		rec.Release()
	}
}

// benchShape builds the bench shape of this name.
func benchShape(tb testing.TB, name string) arrow.RecordBatch {
	for _, s := range randbatch.BenchShapes() {
		if s.Name == name {
			return s.Build(memory.DefaultAllocator)
		}
	}
	tb.Fatalf("no shape %s", name)
	return nil
}

// fsstSection builds an FSST section by hand: the symbols, the codes, the
// decoded length m the header claims and the tail.
func fsstSection(syms []string, codes []byte, m int, tail []byte) []byte {
	z := binary.LittleEndian.AppendUint32(nil, uint32(m))
	z = binary.LittleEndian.AppendUint32(z, uint32(len(codes)))
	z = append(z, byte(len(syms)))
	for _, s := range syms {
		z = append(z, byte(len(s)))
	}
	for _, s := range syms {
		z = append(z, s...)
	}
	z = append(z, codes...)
	return append(z, tail...)
}

// fsstPlain decodes codes with syms as FSST defines it, one code at a
// time, and reports whether they are valid codes of the table (a code
// naming no symbol is skipped, so that a header can claim the length the
// others decode to).
func fsstPlain(syms []string, codes []byte) ([]byte, bool) {
	var out []byte
	valid := true
	for i := 0; i < len(codes); i++ {
		switch c := int(codes[i]); {
		case c == fsstEscape:
			if i+1 == len(codes) {
				return out, false
			}
			i++
			out = append(out, codes[i])
		case c < len(syms):
			out = append(out, syms[c]...)
		default:
			valid = false
		}
	}
	return out, valid
}

// TestFSSTDecodeCodes checks decodeFSST against fsstPlain on random code
// streams (escapes, codes naming no symbol and claimed lengths off by a
// little in every place a round of the fast loop can meet them), with
// tables of 0 to 255 symbols (the fast loop checks codes against the count
// one way under 128 and another from it), and that it never writes past
// the section's raw bytes.
func TestFSSTDecodeCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	nine := []string{"a", "bc", "def", "ghij", "klmno", "pqrstu", "vwxyz01", "23456789", "X"}
	for iter := range 20000 {
		syms := nine
		if iter%2 == 1 {
			syms = make([]string, []int{0, 1, 127, 128, 129, 254, 255, rng.IntN(256)}[iter/2%8])
			for i := range syms {
				b := make([]byte, 1+rng.IntN(8))
				for j := range b {
					b[j] = byte(rng.IntN(256))
				}
				syms[i] = string(b)
			}
		}
		n := rng.IntN(200)
		codes := make([]byte, n)
		for i := range codes {
			switch r := rng.IntN(100); {
			case r < 4:
				codes[i] = fsstEscape
			case r < 5 && iter%4 < 2 && len(syms) < fsstEscape:
				codes[i] = byte(len(syms) + rng.IntN(fsstEscape-len(syms))) // names no symbol
			case len(syms) == 0:
				codes[i] = fsstEscape
			case iter%5 == 0 && len(syms) > 7:
				codes[i] = 7 // the 8-byte symbol of nine: rounds of 64 bytes
			default:
				codes[i] = byte(rng.IntN(len(syms)))
			}
		}
		want, ok := fsstPlain(syms, codes)
		m := len(want)
		if iter%3 == 0 {
			m += rng.IntN(17) - 8 // a header that lies
			ok = ok && m == len(want)
		}
		if m < 0 {
			continue
		}
		tail := bytes.Repeat([]byte{0xee}, rng.IntN(80))
		z := fsstSection(syms, codes, m, tail)
		// raw sits between guard bytes the decoder must not touch.
		buf := bytes.Repeat([]byte{0xcc}, m+len(tail)+16)
		raw := buf[8 : 8+m+len(tail) : 8+m+len(tail)]
		err := decodeFSST(raw, z)
		if !bytes.Equal(buf[:8], bytes.Repeat([]byte{0xcc}, 8)) || !bytes.Equal(buf[8+len(raw):], bytes.Repeat([]byte{0xcc}, 8)) {
			t.Fatalf("iter %d: decode wrote outside raw", iter)
		}
		if !ok {
			if err == nil {
				t.Fatalf("iter %d: invalid codes %x (m %d, plain %d bytes) decoded", iter, codes, m, len(want))
			}
			continue
		}
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if !bytes.Equal(raw[:m], want) || !bytes.Equal(raw[m:], tail) {
			t.Fatalf("iter %d: decoded %x, want %x", iter, raw, append(want, tail...))
		}
	}
}

// TestLightFarRepeatsNotOverLZ4 checks FORMAT.md's rule on text that
// repeats only kilobytes apart, as generated code does (Go's
// ssa/opGen.go; farRepeats). A sample of the piece sees few of the
// repeats, so a bound from it alone would keep FSST's section, 5.5 times
// what LZ4 stores.
func TestLightFarRepeatsNotOverLZ4(t *testing.T) {
	rec := farRepeats(40)
	defer rec.Release()
	li := roundTrip(t, rec, WithCompression(Light))
	lightNotOverLZ4(t, "far repeats", li)
	lz := roundTrip(t, rec, WithCompression(LZ4))
	if len(li) > len(lz) {
		t.Errorf("Light %d bytes, more than LZ4's %d", len(li), len(lz))
	}
	text := rec.Column(0).Data().Buffers()[2].Bytes()
	if least := lz4LeastOf(matchSavings(text), len(text)); least < len(text)/10 || 2*len(lz) > least {
		t.Errorf("a sample of the text bounds LZ4 at %d of %d bytes, LZ4 takes %d: the test tests nothing", least, len(text), len(lz))
	}
}

// TestFarRepeatsCompressed checks that LZ4 and MinLZ compress text whose
// repeats lie kilobytes apart (farRepeats with a larger vocabulary), which
// a sample alone finds not worth compressing.
func TestFarRepeatsCompressed(t *testing.T) {
	rec := farRepeats(300)
	defer rec.Release()
	text := rec.Column(0).Data().Buffers()[2].Bytes()
	if s := matchSavings(text); s >= DefaultMinSavings+lzSlack {
		t.Fatalf("a sample of the text saves %.2f: the test tests nothing", s)
	}
	raw := len(roundTrip(t, rec))
	for _, c := range []Compression{LZ4, MinLZ} {
		if n := len(roundTrip(t, rec, WithCompression(c))); 4*n > raw {
			t.Errorf("%v: %d bytes of %d raw", c, n, raw)
		}
	}
}

// farRepeats returns a batch of 8192 lines in paragraphs of 64 lines of 3
// to 6 words from a vocabulary of random words, each paragraph the one
// before with one line changed: repeats 2 KiB apart.
func farRepeats(vocab int) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(28, 3))
	words := make([]string, vocab)
	for i := range words {
		w := make([]byte, 3+r.IntN(6))
		for j := range w {
			w[j] = "etaoinshrdlucmfwypvbgk"[r.IntN(22)]
		}
		words[i] = string(w)
	}
	para := make([]string, 64)
	line := func() string {
		var sb strings.Builder
		for range 3 + r.IntN(4) {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	for i := range para {
		para[i] = line()
	}
	lines := make([]string, 8192)
	for i := range lines {
		if i%len(para) == 0 {
			para[r.IntN(len(para))] = line()
		}
		lines[i] = para[i%len(para)]
	}
	return lineBatches(lines)[0]
}

// lineBatches returns lines as batches of 8192 rows of one string column.
func lineBatches(lines []string) []arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "line", Type: arrow.BinaryTypes.String}}, nil)
	var recs []arrow.RecordBatch
	for at := 0; at < len(lines); at += 8192 {
		b := array.NewStringBuilder(memory.NewGoAllocator())
		b.AppendValues(lines[at:min(len(lines), at+8192)], nil)
		col := b.NewArray()
		b.Release()
		recs = append(recs, array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len())))
		col.Release()
	}
	return recs
}
