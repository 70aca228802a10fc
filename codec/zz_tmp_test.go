package codec

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

func BenchmarkZZWriter16(b *testing.B) {
	mem := memory.NewGoAllocator()
	rec := randbatch.Lineitem(mem, 16000)
	var pieces []arrow.RecordBatch
	for i := int64(0); i < rec.NumRows(); i += 16 {
		sl := rec.NewSlice(i, min(i+16, rec.NumRows()))
		cols := make([]arrow.Array, sl.NumCols())
		for j := range cols {
			cols[j], _ = array.Concatenate([]arrow.Array{sl.Column(j)}, mem)
		}
		pieces = append(pieces, array.NewRecordBatch(rec.Schema(), cols, sl.NumRows()))
	}
	var buf bytes.Buffer
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			w, _ := NewWriter(&buf, rec.Schema(), WithBlockRows(8192))
			for _, p := range pieces {
				if err := w.Write(p); err != nil {
					b.Fatal(err)
				}
			}
			w.Close()
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			r, _ := NewReader(bytes.NewReader(buf.Bytes()))
			for r.Next() {
			}
			r.Release()
		}
	})
}

func BenchmarkZZFloor(b *testing.B) {
	const n = 2701336
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			blk := make([]byte, n/2)
			buf.Reset()
			for range 2 {
				copy(blk, src[:n/2])
				_ = crc32.Checksum(blk, crc32.MakeTable(crc32.Castagnoli))
				buf.Write(blk)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			r := bytes.NewReader(buf.Bytes())
			for range 2 {
				blk := make([]byte, n/2)
				io.ReadFull(r, blk)
				_ = crc32.Checksum(blk, crc32.MakeTable(crc32.Castagnoli))
			}
		}
	})
	b.Run("crc", func(b *testing.B) {
		tab := crc32.MakeTable(crc32.Castagnoli)
		for b.Loop() {
			_ = crc32.Checksum(src, tab)
		}
	})
}

// BenchmarkZZPieceCopy: copying the bytes of the pieces' buffers, column by
// column (no encoding), against the same for the whole batch.
func BenchmarkZZPieceCopy(b *testing.B) {
	mem := memory.NewGoAllocator()
	rec := randbatch.Lineitem(mem, 8192)
	for _, p := range []int64{16, 256, 8192} {
		var pieces []arrow.RecordBatch
		for i := int64(0); i < rec.NumRows(); i += p {
			sl := rec.NewSlice(i, min(i+p, rec.NumRows()))
			cols := make([]arrow.Array, sl.NumCols())
			for j := range cols {
				cols[j], _ = array.Concatenate([]arrow.Array{sl.Column(j)}, mem)
			}
			pieces = append(pieces, array.NewRecordBatch(rec.Schema(), cols, sl.NumRows()))
		}
		dst := make([]byte, 4<<20)
		b.Run(fmt.Sprint(p), func(b *testing.B) {
			for b.Loop() {
				at := 0
				for c := range int(rec.NumCols()) {
					for _, pc := range pieces {
						for _, buf := range pc.Column(c).Data().Buffers() {
							if buf != nil {
								at += copy(dst[at:], buf.Bytes())
							}
						}
					}
				}
			}
		})
	}
}
