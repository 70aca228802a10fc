package codec

import (
	"os"
	"testing"
)

func TestDumpSections(t *testing.T) {
	f := os.Getenv("DUMPFILE")
	if f == "" {
		t.Skip()
	}
	recs := readParquet(t, f)
	t.Logf("schema %s", recs[0].Schema())
	for _, c := range []Compression{LZ4, Light} {
		_, blocks := encodeAll(t, recs[:1], WithCompression(c))
		b := blocks[0]
		h := must(parseHeader(b))
		t.Logf("%s block %d raw %d", c, len(b), h.raw)
		eachSection(b[headerSize:], h.raw, func(s sectionIn) error {
			t.Logf("  at %7d raw %7d codec %d stored %d", s.at, s.raw, s.codec, len(s.src))
			return nil
		})
	}
}
