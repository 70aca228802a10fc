//go:build unix

package flight

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/durable"
)

// BenchmarkPutSync measures one DoPut of the DoGet benchmark's lineitem
// stream (benchBatches batches of benchRows rows) over loopback to a
// server storing with LZ4, with syncing (fsync of the file and of the
// directory before the answer) and without. Each put replaces the last.
// Compare the two in turns:
//
//	for i in 1 2 3 4 5 6; do go test -run '^$' -bench PutSync -count 1 ./flight; done | benchstat -col /sync -
func BenchmarkPutSync(b *testing.B) {
	set, recs := benchStream()
	defer batches.Release(set)
	for _, mode := range []struct {
		name   string
		noSync bool
	}{{"on", false}, {"off", true}} {
		b.Run("sync="+mode.name, func(b *testing.B) {
			ts0 := &timingSyncer{}
			s, err := NewServerWith(b.TempDir(), ServerOptions{Codec: []codec.Option{codec.WithCompression(codec.LZ4)}, Sync: ts0, NoSync: mode.noSync})
			if err != nil {
				b.Fatal(err)
			}
			ts := startServer(b, s)
			c := dial(b, ts.addr)
			ctx := Replace(testCtx(b, 10*time.Minute))
			var rows int64
			for _, r := range recs {
				rows += r.NumRows()
			}
			b.ResetTimer()
			for b.Loop() {
				if err := put(ctx, c, []string{"lineitem"}, recs[0].Schema(), recs, codec.WithCompression(codec.LZ4)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows*int64(b.N))/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(ts0.spent.Seconds()*1e3/float64(b.N), "sync-ms/op")
			if st, err := os.Stat(filepath.Join(s.dir, "lineitem.apk")); err == nil {
				b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
			}
		})
	}
}

// timingSyncer is durable.OS, timed.
type timingSyncer struct {
	mu    sync.Mutex
	spent time.Duration
}

func (t *timingSyncer) timed(f func() error) error {
	start := time.Now()
	err := f()
	t.mu.Lock()
	t.spent += time.Since(start)
	t.mu.Unlock()
	return err
}

func (t *timingSyncer) SyncFile(f *os.File) error {
	return t.timed(func() error { return durable.OS.SyncFile(f) })
}

func (t *timingSyncer) SyncDir(dir string) error {
	return t.timed(func() error { return durable.OS.SyncDir(dir) })
}

// BenchmarkListRows measures what ListFlights and GetFlightInfo pay to
// count the rows of the stored lineitem stream: the first time a server
// sees the file (reading it whole, every block decoded and checked), and
// afterwards (a stat, the cache).
func BenchmarkListRows(b *testing.B) {
	set, recs := benchStream()
	defer batches.Release(set)
	s, err := NewServerWith(b.TempDir(), ServerOptions{Codec: []codec.Option{codec.WithCompression(codec.LZ4)}, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	ts := startServer(b, s)
	if err := put(testCtx(b, 10*time.Minute), dial(b, ts.addr), []string{"lineitem"}, recs[0].Schema(), recs); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(s.dir, "lineitem.apk"))
	if err != nil {
		b.Fatal(err)
	}
	for _, cold := range []bool{true, false} {
		b.Run(map[bool]string{true: "first", false: "cached"}[cold], func(b *testing.B) {
			b.SetBytes(st.Size())
			for b.Loop() {
				if cold {
					s.stats.forget("lineitem")
				}
				e, err := s.describe("lineitem")
				if err != nil || e.rows != int64(benchBatches*benchRows) {
					b.Fatalf("%d rows, %v", e.rows, err)
				}
			}
		})
	}
}

// benchStream returns the DoGet benchmark's stream: benchBatches batches,
// the distinct ones of set repeated (release set, not recs).
func benchStream() (set, recs []arrow.RecordBatch) {
	set = benchBatchSet()
	for len(recs) < benchBatches {
		recs = append(recs, set...)
	}
	return set, recs
}
