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
// little in every place a round of the fast loop can meet them), and that
// it never writes past the section's raw bytes.
func TestFSSTDecodeCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	syms := []string{"a", "bc", "def", "ghij", "klmno", "pqrstu", "vwxyz01", "23456789", "X"}
	for iter := range 20000 {
		n := rng.IntN(200)
		codes := make([]byte, n)
		for i := range codes {
			switch r := rng.IntN(100); {
			case r < 4:
				codes[i] = fsstEscape
			case r < 5 && iter%4 == 0:
				codes[i] = byte(len(syms) + rng.IntN(fsstEscape-len(syms))) // names no symbol
			case iter%5 == 0:
				codes[i] = 7 // the 8-byte symbol: rounds of 64 bytes
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
