package codec

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// realDataRows is the rows per batch the real tables are read in: a
// shuffle's block.
const realDataRows = 8192

// realDataFiles returns the Parquet files of the real tables kept beside
// the repository (../shared/realdata-dev) and of parquet-testing
// (PARQUET_TEST_DATA, or ../shared/parquet-testing/data), skipping the test
// when there are none.
func realDataFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	dirs := []string{filepath.Join("..", "..", "shared", "realdata-dev")}
	if d := os.Getenv("PARQUET_TEST_DATA"); d != "" {
		dirs = append(dirs, d)
	} else {
		dirs = append(dirs, filepath.Join("..", "..", "shared", "parquet-testing", "data"))
	}
	for _, d := range dirs {
		m, _ := filepath.Glob(filepath.Join(d, "*.parquet"))
		sort.Strings(m)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no real tables: ../shared/realdata-dev and PARQUET_TEST_DATA are absent")
	}
	return files
}

// readParquet returns the batches of realDataRows rows of the Parquet file
// at path (at most 64 of them), or nil when arrow-go cannot read it (some
// of parquet-testing's files are encrypted, malformed on purpose or use
// codecs arrow-go lacks).
func readParquet(t testing.TB, path string) []arrow.RecordBatch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil
	}
	defer pf.Close()
	mem := memory.NewGoAllocator()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: realDataRows}, mem)
	if err != nil {
		return nil
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil
	}
	defer rr.Release()
	var recs []arrow.RecordBatch
	for rr.Next() && len(recs) < 64 {
		r := rr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if rr.Err() != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil
	}
	return recs
}

// encodeAll returns the bytes of the blocks of recs with opts, checking
// that each decodes to its batch.
func encodeAll(t testing.TB, recs []arrow.RecordBatch, opts ...Option) (total int, blocks [][]byte) {
	t.Helper()
	for _, r := range recs {
		b := roundTrip(t, r, opts...)
		total += len(b)
		blocks = append(blocks, b)
	}
	return total, blocks
}

// goSourceLines returns the lines of Go's generated
// cmd/compile/internal/ssa/opGen.go, a real table of text that repeats
// kilobytes apart (none if the Go tree is absent).
func goSourceLines(t *testing.T) []string {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "cmd", "compile", "internal", "ssa", "opGen.go"))
	if err != nil {
		t.Logf("no Go sources: %v", err)
		return nil
	}
	return strings.Split(string(src), "\n")
}
