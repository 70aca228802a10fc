package codec

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealDataSizes logs, per real table, Light's bytes against LZ4's and
// zstd's and Light's bytes by section codec (go test -v -run RealDataSizes).
func TestRealDataSizes(t *testing.T) {
	for _, f := range realDataFiles(t) {
		recs := readParquet(t, f)
		if len(recs) == 0 {
			continue
		}
		lz, _ := encodeAll(t, recs, WithCompression(LZ4))
		zs, _ := encodeAll(t, recs, WithCompression(Zstd))
		li, blocks := encodeAll(t, recs, WithCompression(Light))
		by := map[Compression]int{}
		for _, b := range blocks {
			h := must(parseHeader(b))
			if h.compression == None {
				by[None] += len(b)
				continue
			}
			eachSection(b[headerSize:], h.raw, func(s sectionIn) error {
				by[s.codec] += len(s.src)
				return nil
			})
		}
		t.Logf("%-40s light/lz4 %.3f light/zstd %.3f (light %d lz4 %d zstd %d) %v", filepath.Base(f),
			float64(li)/float64(lz), float64(li)/float64(zs), li, lz, zs, by)
	}
}

// BenchmarkRealData encodes the batches of each real table with LZ4, zstd
// and Light (go test -bench RealData -run XXX ./codec; REALDATA_FILE picks
// one file by its base name).
func BenchmarkRealData(b *testing.B) {
	for _, f := range realDataFiles(b) {
		if w := os.Getenv("REALDATA_FILE"); w != "" && w != filepath.Base(f) {
			continue
		}
		recs := readParquet(b, f)
		if len(recs) == 0 {
			continue
		}
		for _, c := range []Compression{LZ4, Zstd, Light} {
			enc := must(NewEncoder(recs[0].Schema(), WithCompression(c)))
			var buf []byte
			b.Run(filepath.Base(f)+"/"+c.String(), func(b *testing.B) {
				for b.Loop() {
					for _, r := range recs {
						buf = must(enc.Append(buf[:0], r))
					}
				}
			})
		}
	}
}
