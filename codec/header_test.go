package codec

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// TestReadBlockInfo checks what ReadBlockInfo says of uncompressed,
// compressed and sectioned blocks, and that it refuses a bad section count.
func TestReadBlockInfo(t *testing.T) {
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 8192)
	defer rec.Release()
	for _, tc := range []struct {
		opts        []Option
		comp        Compression
		sections    int // at least
		transformed bool
		says        string
	}{
		{nil, None, 0, false, "8192 rows"},
		{[]Option{WithCompression(LZ4)}, LZ4, 1, true, "lz4 in "},
		{[]Option{WithCompression(Zstd), WithConcurrency(2)}, Zstd, 2, true, "zstd in "},
	} {
		block := must(must(NewEncoder(rec.Schema(), tc.opts...)).Append(nil, rec))
		info, err := ReadBlockInfo(block)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != 8192 || info.Size != len(block) || info.Compression != tc.comp ||
			info.Sections < tc.sections || info.Transformed != tc.transformed ||
			info.RawSections > info.Sections || info.RawBytes > info.RawSize {
			t.Fatalf("%s block: %+v, want %s with at least %d sections, transformed %v", tc.comp, info, tc.comp, tc.sections, tc.transformed)
		}
		if !strings.Contains(info.String(), tc.says) {
			t.Fatalf("%q does not say %q", info, tc.says)
		}
		if tc.comp == None {
			continue
		}
		for _, k := range []uint64{0, uint64(len(block))} {
			bad := append([]byte(nil), block...)
			binary.LittleEndian.PutUint64(bad[headerSize:], k)
			if _, err := ReadBlockInfo(bad); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s block claiming %d sections: %v, want ErrCorrupt", tc.comp, k, err)
			}
		}
	}
}
