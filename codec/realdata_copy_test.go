package codec

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestLightCopiedColumnNotOverLZ4 checks that a block holding a real
// string or number column twice (a name and its spelling in ASCII, mostly
// equal) is stored by Light in no more bytes than LZ4's block: Light
// compresses each column apart, LZ4 matches the copy into the column
// before it, so Light must notice the copy and try LZ4 on the block
// (lz4MayWin). Left out: columns of fewer than minCross bytes of text,
// which lz4MayWin does not look at; of numbers that Light stores in under
// 1 KiB, where a copy moves a few dozen bytes; and tables of under 1,024
// rows, which are written as with MinLZ (FORMAT.md).
func TestLightCopiedColumnNotOverLZ4(t *testing.T) {
	found := 0
	for _, file := range realDataFiles(t) {
		recs := readParquet(t, file)
		if len(recs) == 0 {
			continue
		}
		rec := recs[0]
		for i, f := range rec.Schema().Fields() {
			col := rec.Column(i)
			one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{col}, rec.NumRows())
			skip := true
			switch id := f.Type.ID(); {
			case id == arrow.STRING || id == arrow.LARGE_STRING || id == arrow.BINARY:
				// Under minCross: under what lz4MayWin looks at (a column of nulls).
				skip = len(col.(interface{ ValueBytes() []byte }).ValueBytes()) < minCross
			case arrow.IsInteger(id) || arrow.IsFloating(id):
				// A copy moves a few dozen bytes; or a MinLZ block.
				skip = len(roundTrip(t, one, WithCompression(Light))) < 1<<10 || rec.NumRows() < 1024
			}
			if skip {
				one.Release()
				continue
			}
			sc := arrow.NewSchema([]arrow.Field{f, {Name: f.Name + "_copy", Type: f.Type, Nullable: f.Nullable}}, nil)
			pair := array.NewRecordBatch(sc, []arrow.Array{col, col}, rec.NumRows())
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

// TestLightCopiedRunsNotOverLZ4 checks the same of emoji-en's gender, runs
// of a few values among nulls, whose Light block alone is under 1 KiB
// (so TestLightCopiedColumnNotOverLZ4 leaves it out) but was 1.68 times
// LZ4's with its copy: a parse of a sample cannot tell a copy of runs from
// runs, so Light must find that the second copies the first byte for
// byte.
func TestLightCopiedRunsNotOverLZ4(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "realdata-dev", "emoji-en.parquet")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no ../shared/realdata-dev/emoji-en.parquet")
	}
	recs := readParquet(t, path)
	if len(recs) == 0 {
		t.Fatal("emoji-en.parquet: no batches")
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	rec := recs[0]
	i := rec.Schema().FieldIndices("gender")
	if len(i) != 1 {
		t.Fatal("emoji-en.parquet has no column gender")
	}
	f, col := rec.Schema().Field(i[0]), rec.Column(i[0])
	sc := arrow.NewSchema([]arrow.Field{f, {Name: "gender_copy", Type: f.Type, Nullable: f.Nullable}}, nil)
	pair := array.NewRecordBatch(sc, []arrow.Array{col, col}, rec.NumRows())
	defer pair.Release()
	lz := len(roundTrip(t, pair, WithCompression(LZ4)))
	if li := len(roundTrip(t, pair, WithCompression(Light))); li > lz {
		t.Errorf("gender and its copy: Light %d bytes, more than LZ4's %d", li, lz)
	}
}
