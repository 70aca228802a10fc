package codec

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestLightCopiedColumnNotOverLZ4 checks that a block holding a real
// string column twice (a name and its spelling in ASCII, mostly equal) is
// stored by Light in no more bytes than LZ4's block: Light compresses each
// column apart, LZ4 matches the copy into the column before it, so Light
// must notice the copy and try LZ4 on the block (lz4MayWin). A column of
// fewer than minCross bytes of text, which lz4MayWin does not look at, is
// left out.
func TestLightCopiedColumnNotOverLZ4(t *testing.T) {
	found := 0
	for _, file := range realDataFiles(t) {
		recs := readParquet(t, file)
		if len(recs) == 0 {
			continue
		}
		rec := recs[0]
		for i, f := range rec.Schema().Fields() {
			if f.Type.ID() != arrow.STRING && f.Type.ID() != arrow.LARGE_STRING && f.Type.ID() != arrow.BINARY {
				continue
			}
			col := rec.Column(i)
			if textBytes(col) < minCross {
				continue // under what lz4MayWin looks at (a column of nulls)
			}
			sc := arrow.NewSchema([]arrow.Field{f, {Name: f.Name + "_copy", Type: f.Type, Nullable: f.Nullable}}, nil)
			pair := array.NewRecordBatch(sc, []arrow.Array{col, col}, rec.NumRows())
			one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{col}, rec.NumRows())
			name := fmt.Sprintf("%s %s", filepath.Base(file), f.Name)
			lz := len(roundTrip(t, pair, WithCompression(LZ4)))
			if li := len(roundTrip(t, pair, WithCompression(Light))); li > lz {
				t.Errorf("%s and its copy: Light %d bytes, more than LZ4's %d", name, li, lz)
			}
			if lone := len(roundTrip(t, one, WithCompression(LZ4))); 3*lz < 4*lone {
				found++ // LZ4 stored the copy in under a third of the column
			}
			pair.Release()
			one.Release()
		}
		for _, r := range recs {
			r.Release()
		}
	}
	if found == 0 {
		t.Error("LZ4 matched no copy into its column, so the test tests nothing")
	}
	t.Logf("%d columns whose copy LZ4 found", found)
}

// textBytes returns the bytes of text (string or binary data) of col.
func textBytes(col arrow.Array) int {
	switch a := col.(type) {
	case *array.String:
		return len(a.ValueBytes())
	case *array.LargeString:
		return len(a.ValueBytes())
	case *array.Binary:
		return len(a.ValueBytes())
	}
	return 0
}
