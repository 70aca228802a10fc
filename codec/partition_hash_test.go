package codec

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"github.com/zeebo/xxh3"
)

// TestHashPartitionsFormula checks the ids against the documented formula,
// computed here from xxh3 directly, for two keys.
func TestHashPartitionsFormula(t *testing.T) {
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range 1000 {
		ib.Append(int64(i*7919 - 3000))
		sb.Append(string(rune('a'+i%26)) + "key")
	}
	ia, sa := ib.NewArray(), sb.NewArray()
	for _, p := range []int{1, 7, 200, 1000} {
		got, err := HashPartitions(nil, p, ia, sa)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], uint64(int64(i*7919-3000)))
			h := xxh3.HashSeed(b[:], 0)
			h = xxh3.HashSeed([]byte(sa.(*array.String).Value(i)), h)
			if want := uint32((h >> 32) * uint64(p) >> 32); got[i] != want || got[i] >= uint32(p) {
				t.Fatalf("P=%d row %d: %d, want %d", p, i, got[i], want)
			}
		}
	}
}

// TestHashPartitionsLayout checks that the id of a row depends on its
// values, not on how the arrays are laid out (sliced, other batches),
// and that null keys go to partition 0.
func TestHashPartitionsLayout(t *testing.T) {
	types := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64, arrow.FixedWidthTypes.Timestamp_us,
		&arrow.Decimal128Type{Precision: 20, Scale: 3}, &arrow.Decimal256Type{Precision: 40, Scale: -2},
		arrow.FixedWidthTypes.Boolean, &arrow.FixedSizeBinaryType{ByteWidth: 5}}
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range types {
		a := randbatch.Array(memory.DefaultAllocator, r, dt, 300, randbatch.Options{NullProb: 0.1, Slice: true})
		whole, err := HashPartitions(nil, 97, a)
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		for _, cut := range [][2]int64{{1, 300}, {7, 100}, {64, 65}} {
			s := array.NewSlice(a, cut[0], cut[1])
			part, err := HashPartitions(nil, 97, s)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range part {
				if q != whole[int(cut[0])+i] {
					t.Fatalf("%s slice %v row %d: %d, the whole array's %d", dt, cut, i, q, whole[int(cut[0])+i])
				}
			}
		}
		for i := range a.Len() {
			if a.IsNull(i) && whole[i] != 0 {
				t.Fatalf("%s: null row %d in partition %d", dt, i, whole[i])
			}
		}
		// The same value in two rows, wherever: the same partition.
		for i := range a.Len() {
			for j := i + 1; j < a.Len(); j++ {
				if array.SliceEqual(a, int64(i), int64(i+1), a, int64(j), int64(j+1)) && whole[i] != whole[j] {
					t.Fatalf("%s: rows %d and %d are equal but go to %d and %d", dt, i, j, whole[i], whole[j])
				}
			}
		}
	}
}

// TestHashPartitionsSpread checks that distinct keys fill the partitions
// about evenly: no partition gets more than 1.5x or less than 0.5x its
// share of 200,000 distinct integers or strings.
func TestHashPartitionsSpread(t *testing.T) {
	const n = 200000
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	db := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: 30, Scale: 2})
	for i := range n {
		ib.Append(int64(i))
		db.Append(decimal128.FromI64(int64(i) * 100))
	}
	for _, a := range []arrow.Array{ib.NewArray(), db.NewArray()} {
		for _, p := range []int{16, 200, 1000} {
			ids, err := HashPartitions(nil, p, a)
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]int, p)
			for _, q := range ids {
				counts[q]++
			}
			share := n / p
			for q, c := range counts {
				if 2*c < share || 2*c > 3*share {
					t.Fatalf("%s P=%d: partition %d has %d rows, its share %d", a.DataType(), p, q, c, share)
				}
			}
		}
	}
}

func TestHashPartitionsErrors(t *testing.T) {
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues([]int64{1, 2, 3}, nil)
	a := ib.NewArray()
	ib.AppendValues([]int64{1, 2}, nil)
	b := ib.NewArray()
	fb := array.NewFloat64Builder(memory.DefaultAllocator)
	fb.Append(1)
	f := fb.NewArray()
	if _, err := HashPartitions(nil, 4, a, b); !errors.Is(err, ErrInvalidBatch) {
		t.Errorf("keys of 3 and 2 rows: %v", err)
	}
	if _, err := HashPartitions(nil, 4, f); !errors.Is(err, ErrUnsupported) {
		t.Errorf("float key: %v", err)
	}
	if _, err := HashPartitions(nil, 0, a); !errors.Is(err, ErrUnsupported) {
		t.Errorf("P=0: %v", err)
	}
	if _, err := HashPartitions(nil, 4); !errors.Is(err, ErrUnsupported) {
		t.Errorf("no keys: %v", err)
	}
	// Offsets that decrease: an error, not a panic.
	bad := array.MakeFromData(array.NewData(arrow.BinaryTypes.String, 1, []*memory.Buffer{nil,
		memory.NewBufferBytes(int32Bytes([]int32{3, 1})), memory.NewBufferBytes([]byte("abcdef"))}, nil, 0, 0))
	if _, err := HashPartitions(nil, 4, bad); !errors.Is(err, ErrInvalidBatch) {
		t.Errorf("offsets that decrease: %v", err)
	}
}
