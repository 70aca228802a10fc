package codec_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/benchenv"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkPartition compares, side by side and interleaved, the ways to
// split batches into P partitions and encode each partition's rows:
//
//	take-ipc    compute.Take per partition, an ipc.Writer per partition
//	take-codec  compute.Take per partition, a codec.Writer per partition
//	sort-take   rows sorted by partition (a counting sort), one Take,
//	            a slice per partition, a codec.Writer per partition
//	partitioner codec.Partitioner, blocks to a RawWriter per partition
//	copy        a plain copy of the batch's buffers: the floor
//	loop        a plain Go loop scattering the first column (an int64)
//	            to per-partition slices, its time scaled to the whole
//	            batch's bytes: the floor for a scatter, per byte
//	loop-all    the same loop writing as much memory as the batch
//	            holds (the column scattered into as many sets of
//	            slices as the batch has columns' worth of bytes)
//
// Every writer coalesces to blocks of 8,192 rows and writes checksummed
// frames to io.Discard. Each way is set up once per case and warmed by an
// untimed round; a round writes the batches and flushes, so each way
// pays for all its blocks (in its steady state: buffers warm). Row i of batch k goes to partition
// splitmix64(k*rows+i) mod P. One round runs each way over the same
// batches in turn; the metrics are the median over the rounds of each
// way's ms per input batch, and its ratio to the copy's ("x-copy"). Run
// one pass of everything with
//
//	go test -run '^$' -bench BenchmarkPartition -benchtime 1x ./codec
//
// The batches are distinct copies of one batch, so that a round reads
// more memory than the caches hold, as a shuffle writer does (the issue's
// table used 64). PARTITION_ROUNDS (default 3) and PARTITION_BATCHES
// (default 32) set the rounds and the batches per round; PARTITION_WAYS
// (a comma-separated list of names, default all) picks the ways, the copy
// always among them.
func BenchmarkPartition(b *testing.B) {
	rounds, nb := envInt("PARTITION_ROUNDS", 3), envInt("PARTITION_BATCHES", 32)
	mem := memory.NewGoAllocator()
	shapes := []struct {
		name string
		rec  arrow.RecordBatch
	}{
		{"lineitem-8192", randbatch.Lineitem(mem, 8192)},
		{"narrow-8192", narrowBatch(mem, 8192)},
	}
	for _, sh := range shapes {
		defer sh.rec.Release()
		recs := distinctCopies(sh.rec, nb)
		defer releaseAll(recs)
		for _, p := range []int{1, 16, 200, 1000} {
			ids := make([][]uint32, nb)
			for k := range ids {
				ids[k] = make([]uint32, sh.rec.NumRows())
				for i := range ids[k] {
					ids[k][i] = uint32(splitmix64(uint64(k)*uint64(len(ids[k]))+uint64(i)) % uint64(p))
				}
			}
			for _, c := range []codec.Compression{codec.None, codec.LZ4} {
				b.Run(fmt.Sprintf("%s/P%d/%s", sh.name, p, c), func(b *testing.B) {
					for b.Loop() {
						benchPartitionWays(b, recs, ids, p, c, rounds)
					}
				})
			}
		}
	}
}

// A partitionWay is set up once per case (start), warmed by one untimed
// round, then timed round by round: each round writes the batches and
// flushes, so that it pays for all its blocks, as a long-running shuffle
// writer would in its steady state.
type partitionWay struct {
	name  string
	start func(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error)
}

// wayRun is a way set up for one case: round writes batch recs[k] with
// ids[k], for every k, and flushes; end closes.
type wayRun struct {
	round func(recs []arrow.RecordBatch, ids [][]uint32) error
	end   func() error
	scale func() float64 // when set, the round's time is multiplied by it
}

// distinctCopies returns n copies of rec, each in memory of its own.
func distinctCopies(rec arrow.RecordBatch, n int) []arrow.RecordBatch {
	recs := make([]arrow.RecordBatch, n)
	for k := range recs {
		cols := make([]arrow.Array, rec.NumCols())
		for i, col := range rec.Columns() {
			var err error
			if cols[i], err = array.Concatenate([]arrow.Array{col}, memory.DefaultAllocator); err != nil {
				panic(err)
			}
		}
		recs[k] = array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
		releaseAll(cols)
	}
	return recs
}

func releaseAll[T interface{ Release() }](xs []T) {
	for _, x := range xs {
		x.Release()
	}
}

// chosenWays returns the ways PARTITION_WAYS names (all by default), the
// copy first.
func chosenWays() []partitionWay {
	names := os.Getenv("PARTITION_WAYS")
	if names == "" {
		return partitionWays
	}
	var ws []partitionWay
	for _, w := range partitionWays {
		if w.name == "copy" || slices.Contains(strings.Split(names, ","), w.name) {
			ws = append(ws, w)
		}
	}
	return ws
}

var partitionWays = []partitionWay{
	{"copy", copyWay},
	{"take-ipc", takeIPCWay},
	{"take-codec", takeCodecWay},
	{"sort-take", sortTakeWay},
	{"partitioner", partitionerWay},
	{"scatter", func(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
		return partitionerPath(schema, p, c, false)
	}},
	{"gather", func(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
		return partitionerPath(schema, p, c, true)
	}},
	{"loop", loopWay},
	{"loop-all", loopAllWay},
}

// benchPartitionWays runs the ways in turn, rounds times, and reports the
// median ms per batch of each, its ratio to the copy's, and the
// partitioner's allocations per batch.
func benchPartitionWays(b *testing.B, recs []arrow.RecordBatch, ids [][]uint32, p int, c codec.Compression, rounds int) {
	ways := chosenWays()
	rec := recs[0]
	runs := make([]wayRun, len(ways))
	for w, way := range ways {
		var err error
		if runs[w], err = way.start(rec.Schema(), p, c); err != nil {
			b.Fatal(err)
		}
		if err := runs[w].round(recs, ids); err != nil {
			b.Fatalf("%s: %v", way.name, err)
		}
	}
	times := make([][]float64, len(ways))
	var allocs []float64
	for range rounds {
		for w, way := range ways {
			runtime.GC()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			start := time.Now()
			if err := runs[w].round(recs, ids); err != nil {
				b.Fatalf("%s: %v", way.name, err)
			}
			el := time.Since(start)
			runtime.ReadMemStats(&ms1)
			ms := float64(el.Nanoseconds()) / 1e6 / float64(len(ids))
			if runs[w].scale != nil {
				ms *= runs[w].scale()
			}
			times[w] = append(times[w], ms)
			if way.name == "partitioner" {
				allocs = append(allocs, float64(ms1.Mallocs-ms0.Mallocs)/float64(len(ids)))
			}
		}
	}
	for w, way := range ways {
		if err := runs[w].end(); err != nil {
			b.Fatalf("%s: %v", way.name, err)
		}
	}
	floor := median(times[0])
	for w, way := range ways {
		m := median(times[w])
		b.ReportMetric(m, "ms/batch-"+way.name)
		if w > 0 {
			b.ReportMetric(m/floor, "x-copy-"+way.name)
		}
		b.Logf("%-12s median %.3f ms/batch (%.3f..%.3f), %.1fx copy", way.name, m, slices.Min(times[w]), slices.Max(times[w]), m/floor)
	}
	if len(allocs) > 0 {
		b.ReportMetric(median(allocs), "allocs/batch-partitioner")
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

var (
	envInt     = benchenv.Int
	splitmix64 = benchenv.Splitmix64
)

// narrowBatch is a batch of an int64 key and an int32 value.
func narrowBatch(mem memory.Allocator, rows int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int32}}, nil)
	kb, vb := array.NewInt64Builder(mem), array.NewInt32Builder(mem)
	defer kb.Release()
	defer vb.Release()
	for i := range rows {
		kb.Append(int64(splitmix64(uint64(i)) >> 20))
		vb.Append(int32(i))
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	return array.NewRecordBatch(schema, []arrow.Array{k, v}, int64(rows))
}

func noEnd() error { return nil }

// copyWay copies every buffer of each batch, at every level, to memory
// of that batch's kept from round to round: the floor.
func copyWay(*arrow.Schema, int, codec.Compression) (wayRun, error) {
	var dsts [][]byte
	return wayRun{round: func(recs []arrow.RecordBatch, ids [][]uint32) error {
		if len(dsts) < len(recs) {
			dsts = make([][]byte, len(recs))
		}
		for k, rec := range recs {
			at := 0
			for _, col := range rec.Columns() {
				at = copyBuffers(&dsts[k], at, col.Data())
			}
		}
		return nil
	}, end: noEnd}, nil
}

func copyBuffers(dst *[]byte, at int, d arrow.ArrayData) int {
	for _, buf := range d.Buffers() {
		if buf == nil {
			continue
		}
		if need := at + buf.Len(); need > len(*dst) {
			*dst = append(*dst, make([]byte, need-len(*dst))...)
		}
		at += copy((*dst)[at:], buf.Bytes())
	}
	for _, c := range d.Children() {
		at = copyBuffers(dst, at, c)
	}
	return at
}

// byPartition returns the rows of each partition, in order.
func byPartition(ids []uint32, p int) [][]int32 {
	rows := make([][]int32, p)
	for i, q := range ids {
		rows[q] = append(rows[q], int32(i))
	}
	return rows
}

func takeRecord(rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i, col := range rec.Columns() {
		var err error
		if cols[i], err = compute.TakeArray(context.Background(), col, ia); err != nil {
			return nil, err
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// takeEach hands write the Take of each partition's rows of each batch.
func takeEach(recs []arrow.RecordBatch, ids [][]uint32, p int, write func(q int, t arrow.RecordBatch) error) error {
	for k, bid := range ids {
		rec := recs[k]
		for q, rows := range byPartition(bid, p) {
			if len(rows) == 0 {
				continue
			}
			t, err := takeRecord(rec, rows)
			if err != nil {
				return err
			}
			err = write(q, t)
			t.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func takeIPCWay(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
	var opts []ipc.Option
	if c == codec.LZ4 {
		opts = append(opts, ipc.WithLZ4())
	}
	ws := make([]*ipc.Writer, p)
	for q := range ws {
		ws[q] = ipc.NewWriter(io.Discard, append(opts, ipc.WithSchema(schema))...)
	}
	return wayRun{round: func(recs []arrow.RecordBatch, ids [][]uint32) error {
		// ipc.Writer writes each batch as it comes: nothing to flush.
		return takeEach(recs, ids, p, func(q int, t arrow.RecordBatch) error { return ws[q].Write(t) })
	}, end: func() error {
		for _, w := range ws {
			if err := w.Close(); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

// codecWriters returns a coalescing codec.Writer per partition, and the
// way's flush and end over them.
func codecWriters(schema *arrow.Schema, p int, c codec.Compression) ([]*codec.Writer, func() error, func() error, error) {
	ws := make([]*codec.Writer, p)
	for q := range ws {
		var err error
		if ws[q], err = codec.NewWriter(io.Discard, schema, codec.WithCompression(c), codec.WithBlockRows(8192)); err != nil {
			return nil, nil, nil, err
		}
	}
	each := func(f func(w *codec.Writer) error) func() error {
		return func() error {
			for _, w := range ws {
				if err := f(w); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return ws, each((*codec.Writer).Flush), each((*codec.Writer).Close), nil
}

func takeCodecWay(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
	ws, flush, end, err := codecWriters(schema, p, c)
	if err != nil {
		return wayRun{}, err
	}
	return wayRun{round: func(recs []arrow.RecordBatch, ids [][]uint32) error {
		if err := takeEach(recs, ids, p, func(q int, t arrow.RecordBatch) error { return ws[q].Write(t) }); err != nil {
			return err
		}
		return flush()
	}, end: end}, nil
}

func sortTakeWay(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
	ws, flush, end, err := codecWriters(schema, p, c)
	if err != nil {
		return wayRun{}, err
	}
	counts := make([]int, p+1)
	var perm []int32
	return wayRun{round: func(recs []arrow.RecordBatch, ids [][]uint32) error {
		for k, bid := range ids {
			rec := recs[k]
			perm = slices.Grow(perm[:0], int(rec.NumRows()))[:rec.NumRows()]
			clear(counts)
			for _, q := range bid {
				counts[q+1]++
			}
			for q := 1; q <= p; q++ {
				counts[q] += counts[q-1]
			}
			starts := slices.Clone(counts)
			for i, q := range bid {
				perm[counts[q]] = int32(i)
				counts[q]++
			}
			sorted, err := takeRecord(rec, perm)
			if err != nil {
				return err
			}
			for q := range p {
				if starts[q] == starts[q+1] {
					continue
				}
				s := sorted.NewSlice(int64(starts[q]), int64(starts[q+1]))
				err := ws[q].Write(s)
				s.Release()
				if err != nil {
					return err
				}
			}
			sorted.Release()
		}
		return flush()
	}, end: end}, nil
}

// partitionerWay is the Partitioner as it is; partitionerPath with its
// flat columns scattered (gather false) or gathered, whatever P.
func partitionerWay(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
	return newPartitionerWay(schema, p, c, nil)
}

func partitionerPath(schema *arrow.Schema, p int, c codec.Compression, gather bool) (wayRun, error) {
	return newPartitionerWay(schema, p, c, &gather)
}

func newPartitionerWay(schema *arrow.Schema, p int, c codec.Compression, gather *bool) (wayRun, error) {
	rws := make([]*codec.RawWriter, p)
	for q := range rws {
		var err error
		if rws[q], err = codec.NewRawWriter(io.Discard, schema); err != nil {
			return wayRun{}, err
		}
	}
	pt, err := codec.NewPartitioner(schema, p, codec.RawWriterSink(rws), codec.WithCompression(c), codec.WithBlockRows(8192))
	if err != nil {
		return wayRun{}, err
	}
	if gather != nil {
		codec.SetGather(pt, *gather)
	}
	return wayRun{round: func(recs []arrow.RecordBatch, ids [][]uint32) error {
		for k, bid := range ids {
			if err := pt.Write(recs[k], bid); err != nil {
				return err
			}
		}
		return pt.Flush()
	}, end: func() error {
		if err := pt.Close(); err != nil {
			return err
		}
		for _, w := range rws {
			if err := w.Close(); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

// loopWay scatters the first column, an int64, with a plain loop into a
// slice per partition, its time scaled to the whole batch's bytes.
func loopWay(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
	return plainScatter(schema, p, false)
}

// loopAllWay is loopWay writing as much memory as the batch has bytes:
// the column is scattered k times, into k sets of slices, k the batch's
// bytes over the column's. loopWay's slices hold one column and stay in
// the caches; a Partitioner's pending buffers hold every column.
func loopAllWay(schema *arrow.Schema, p int, c codec.Compression) (wayRun, error) {
	return plainScatter(schema, p, true)
}

func plainScatter(schema *arrow.Schema, p int, all bool) (wayRun, error) {
	if schema.Field(0).Type.ID() != arrow.INT64 {
		return wayRun{}, fmt.Errorf("loop: the first column is %s, not int64", schema.Field(0).Type)
	}
	var dst [][][]int64 // [copy][partition]
	scale := 0.0
	return wayRun{round: func(recs []arrow.RecordBatch, ids [][]uint32) error {
		if scale == 0 { // once, in the untimed round
			bytes, buf := 0, []byte(nil)
			for _, col := range recs[0].Columns() {
				bytes = copyBuffers(&buf, bytes, col.Data())
			}
			per := float64(bytes) / float64(8*recs[0].NumRows())
			k := 1
			if all {
				k = max(1, int(per+0.5))
			}
			dst = make([][][]int64, k)
			for j := range dst {
				dst[j] = make([][]int64, p)
			}
			scale = per / float64(k)
		}
		for _, d := range dst {
			for q := range d {
				d[q] = d[q][:0]
			}
		}
		for k, rec := range recs {
			vals := rec.Column(0).(*array.Int64).Int64Values()
			for _, d := range dst {
				for i, q := range ids[k] {
					d[q] = append(d[q], vals[i])
				}
			}
		}
		return nil
	}, end: noEnd, scale: func() float64 { return scale }}, nil
}

// BenchmarkPartitioner times the Partitioner alone on lineitem, to
// profile it: b.N batches, then Close.
func BenchmarkPartitioner(b *testing.B) {
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 8192)
	defer rec.Release()
	for _, p := range []int{1, 16, 200, 1000} {
		ids := make([]uint32, rec.NumRows())
		for i := range ids {
			ids[i] = uint32(splitmix64(uint64(i)) % uint64(p))
		}
		b.Run(fmt.Sprintf("P%d", p), func(b *testing.B) {
			pt, err := codec.NewPartitioner(rec.Schema(), p, func(int, []byte) error { return nil }, codec.WithBlockSize(envInt("PARTITION_BLOCK", 1<<20)))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := pt.Write(rec, ids); err != nil {
					b.Fatal(err)
				}
			}
			if err := pt.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkPartitionMemory writes 64 lineitem batches of 8,192 rows to
// 200 partitions under WithMemoryLimit(16 MiB), blocks of up to 8,192
// rows, and reports the heap the Partitioner adds: live (after a
// collection, sampled after every 4th batch) and the largest HeapAlloc
// seen after any batch without forcing a collection (garbage included),
// each over the limit. The input batch and the baseline heap are not
// counted.
func BenchmarkPartitionMemory(b *testing.B) {
	const p, limit, nb = 200, 16 << 20, 64
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 8192)
	defer rec.Release()
	ids := make([]uint32, rec.NumRows())
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		pt, err := codec.NewPartitioner(rec.Schema(), p, func(int, []byte) error { return nil },
			codec.WithBlockRows(8192), codec.WithMemoryLimit(limit))
		if err != nil {
			b.Fatal(err)
		}
		var live, peak uint64
		for k := range nb {
			for i := range ids {
				ids[i] = uint32(splitmix64(uint64(k*len(ids)+i)) % p)
			}
			if err := pt.Write(rec, ids); err != nil {
				b.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-base)
			if k%4 == 3 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				live = max(live, ms.HeapAlloc-base)
			}
		}
		if err := pt.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(live)/limit, "live/limit")
		b.ReportMetric(float64(peak)/limit, "peak/limit")
		b.ReportMetric(float64(pt.Held()), "held-after-close")
	}
}
