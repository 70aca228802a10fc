package codec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Coalesced batches check a dictionary they share once, but every distinct
// dictionary still: a bad dictionary is refused in whichever batch it
// comes, shared or not, before or after good ones (the dictionary a check
// remembers is the very ArrayData that passed, not any dictionary of the
// column).
func TestAppendBatchesChecksEachDictionary(t *testing.T) {
	str := arrow.BinaryTypes.String
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: str}
	strs := func(offs []int32, data string) *array.Data {
		return array.NewData(str, len(offs)-1, []*memory.Buffer{nil, int32Buffer(offs...), bytesBuffer([]byte(data))}, nil, 0, 0)
	}
	good := strs([]int32{0, 1, 2}, "xy")
	good2 := strs([]int32{0, 1, 2}, "xy")     // equal to good, another ArrayData
	bad := strs([]int32{0, 1, 1 << 20}, "xy") // its last offset past its data: checked first
	piece := func(d *array.Data) rawBatch {
		return oneColumn(array.NewDataWithDictionary(dt, 3, []*memory.Buffer{nil, bytesBuffer([]byte{0, 1, 1})}, 0, 0, d))
	}
	for _, tc := range []struct {
		dicts []*array.Data
		bad   int // the batch named, -1: none
	}{
		{[]*array.Data{good, good, good}, -1},
		{[]*array.Data{good, good2, good}, -1},
		{[]*array.Data{bad, bad, bad}, 0},
		{[]*array.Data{good, good, bad}, 2},
		{[]*array.Data{good, bad, good}, 1},
		{[]*array.Data{good, good2, bad, good}, 2},
	} {
		recs := make([]arrow.RecordBatch, len(tc.dicts))
		for i, d := range tc.dicts {
			recs[i] = piece(d)
		}
		enc, err := NewEncoder(recs[0].Schema())
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 { // the second with the Encoder's pooled state
			_, err = enc.AppendBatches(nil, recs...)
			if tc.bad < 0 {
				if err != nil {
					t.Fatalf("%d: good dictionaries refused: %v", round, err)
				}
				continue
			}
			want := fmt.Sprintf("batch %d, column c", tc.bad)
			if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), want) {
				t.Fatalf("%d, bad dictionary in batch %d: %v, want ErrInvalidBatch saying %q", round, tc.bad, err, want)
			}
		}
	}
}
