// Package measure times arrowpack against arrow-go's IPC on the same record
// batches, side by side in one run: encode and decode, uncompressed and with
// LZ4 and zstd, reporting for each the time per block, the throughput, the
// bytes per block and the allocations per block. The arrowpack bench command
// prints its results; benchmarks can use it too.
//
// One block is one record batch. arrowpack encodes a batch with
// codec.Encoder.Append into a reused buffer and decodes it with
// codec.Decoder.Decode (zero-copy) and Release. IPC encodes a batch as a
// self-contained stream (schema message, dictionaries, batch, end-of-stream
// marker) with ipc.NewWriter, Write and Close into a reused bytes.Buffer, and
// decodes it with ipc.NewReader, Next and Release: what a shuffle that used
// IPC per block would do. Throughput is always counted in bytes of the
// uncompressed arrowpack block, whatever the format and compression, so that
// every rate compares with every other.
//
// The timings run a fixed count of blocks a run, found once (timing.go).
// They include the garbage collector's work, which depends on the live heap
// as well as on what a timing allocates: with a tiny live heap the collector
// runs very often and weighs on allocation-heavy timings (IPC's most). The
// bench command, like the codec package's benchmarks, keeps all its batches
// in memory for the whole run.
package measure

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
)

// DefaultBenchTime is how long each run of a timing lasts when
// Options.BenchTime is 0, and DefaultRuns how many runs a timing has when
// Options.Runs is 0: short enough that the command's default measurement
// (7 shapes x 3 compressions x 4 timings) ends well within a minute, long
// enough for stable numbers. Results are the median of the runs, with
// their range.
const (
	DefaultBenchTime = 50 * time.Millisecond
	DefaultRuns      = 3
)

// Compressions lists the compressions measured by default, in order: none,
// LZ4 and zstd. IPC uses the same codec as arrowpack in each case.
var Compressions = []codec.Compression{codec.None, codec.LZ4, codec.Zstd}

// Options control a measurement.
type Options struct {
	// BenchTime is how long each of a case's four timings runs, as go test's
	// -benchtime; 0 means DefaultBenchTime.
	BenchTime time.Duration
	// Iterations, when above 0, runs each timing for exactly that many blocks
	// instead of for BenchTime, as -benchtime=Nx does.
	Iterations int
	// Runs is how many times each timing runs, the four timings of a case
	// taking turns; results are the median of the runs, with the smallest
	// and largest. 0 means DefaultRuns.
	Runs int
	// Concurrency is how many goroutines one compressed block may use, for
	// both formats: codec.WithConcurrency and ipc.WithCompressConcurrency.
	// 0 or 1 keeps each block on one goroutine.
	Concurrency int
}

// runs returns o.Runs, or DefaultRuns if it is not above 0.
func (o Options) runs() int {
	if o.Runs > 0 {
		return o.Runs
	}
	return DefaultRuns
}

// String describes the duration of each run of a timing in go test's
// -benchtime syntax: "50ms", or "100x" for a fixed number of blocks.
func (o Options) String() string {
	if o.Iterations > 0 {
		return strconv.Itoa(o.Iterations) + "x"
	}
	if o.BenchTime <= 0 {
		return DefaultBenchTime.String()
	}
	return o.BenchTime.String()
}

// ParseBenchTime reads a duration ("200ms", "2s") or an iteration count
// ("100x") in go test's -benchtime syntax into Options, Runs left 0.
func ParseBenchTime(s string) (Options, error) {
	if n, ok := cutSuffix(s, "x"); ok {
		it, err := strconv.Atoi(n)
		if err != nil || it <= 0 {
			return Options{}, fmt.Errorf("invalid benchtime %q: want a duration (200ms) or a count (100x)", s)
		}
		return Options{Iterations: it}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Options{}, fmt.Errorf("invalid benchtime %q: want a duration (200ms) or a count (100x)", s)
	}
	return Options{BenchTime: d}, nil
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// Op is the timing of one operation (encode or decode), per block.
type Op struct {
	// NsPerBlock is the time per block in nanoseconds: the median over
	// the runs of each run's mean. NsMin and NsMax are the fastest and the
	// slowest run's; NsRuns every run's, in the order they ran.
	NsPerBlock float64   `json:"ns_per_block"`
	NsMin      float64   `json:"ns_per_block_min"`
	NsMax      float64   `json:"ns_per_block_max"`
	NsRuns     []float64 `json:"ns_per_block_runs,omitempty"`
	// GBPerSec is Result.RawBytes per NsPerBlock: gigabytes (1e9 bytes) of
	// uncompressed arrowpack block per second.
	GBPerSec float64 `json:"gb_per_s"`
	// CPUNsPerBlock is the CPU time (user and system, of the whole
	// process) per block in nanoseconds, the median over the runs; 0 where
	// unknown. On a machine busy with other work it is steadier than the
	// time, which counts the waits for a CPU too.
	CPUNsPerBlock float64 `json:"cpu_ns_per_block,omitempty"`
	// AllocsPerBlock is the number of heap allocations per block (the
	// median over the runs).
	AllocsPerBlock float64 `json:"allocs_per_block"`
	// AllocBytesPerBlock is the bytes allocated per block (the median over
	// the runs).
	AllocBytesPerBlock float64 `json:"alloc_bytes_per_block"`
	// Blocks is how many blocks each run ran.
	Blocks int `json:"blocks"`
}

// Format holds one format's results for a case.
type Format struct {
	// Bytes is the encoded size of a block: of the batch, or the mean over
	// the case's batches, rounded.
	Bytes int64 `json:"bytes"`
	// Encode is the encoding's timing.
	Encode Op `json:"encode"`
	// Decode is the decoding's timing.
	Decode Op `json:"decode"`
	// Err says why the format could not be measured (a type it cannot write,
	// a panic, a round trip that changed the batch); empty when it was.
	Err string `json:"error,omitempty"`
}

// OK reports whether the format was measured.
func (f Format) OK() bool { return f.Err == "" }

// Ratios are arrowpack's measures over IPC's, of one case or (in a
// summary) of several.
type Ratios struct {
	// EncodeRatio is arrowpack's encode time over IPC's (below 1: arrowpack
	// is faster): the median over the runs of the ratio within each run
	// (the two timed side by side, in turns); EncodeRatioMin and
	// EncodeRatioMax are the smallest and largest of those. 0 if either
	// format failed.
	EncodeRatio    float64 `json:"encode_time_ratio"`
	EncodeRatioMin float64 `json:"encode_time_ratio_min"`
	EncodeRatioMax float64 `json:"encode_time_ratio_max"`
	// DecodeRatio, DecodeRatioMin and DecodeRatioMax are the same of the
	// decode times.
	DecodeRatio    float64 `json:"decode_time_ratio"`
	DecodeRatioMin float64 `json:"decode_time_ratio_min"`
	DecodeRatioMax float64 `json:"decode_time_ratio_max"`
	// SizeRatio is arrowpack's block size over IPC's; 0 if either failed.
	SizeRatio float64 `json:"size_ratio"`
}

// Result is the side-by-side measurement of one case (a shape or an input
// file's batches) with one compression.
type Result struct {
	// Shape names the case.
	Shape string `json:"shape"`
	// Compression is arrowpack's: "none", "lz4", "zstd", "minlz" or
	// "light". IPCCompression is what IPC is measured with against it: the
	// same codec, or for the codecs IPC lacks its nearest (IPCOptions):
	// lz4 for minlz, zstd for light.
	Compression    string `json:"compression"`
	IPCCompression string `json:"ipc_compression"`
	// Batches is the number of distinct batches the timings cycle through.
	Batches int `json:"batches"`
	// Rows is the number of rows per block (the mean, rounded, over several
	// batches).
	Rows int64 `json:"rows"`
	// RawBytes is the size of the uncompressed arrowpack block (the mean,
	// rounded, over several batches), the base of every GB/s. If arrowpack
	// cannot encode the batches it is the uncompressed IPC stream's size.
	RawBytes int64 `json:"raw_bytes"`
	// Arrowpack holds arrowpack's results.
	Arrowpack Format `json:"arrowpack"`
	// IPC holds arrow-go IPC's results.
	IPC Format `json:"ipc"`
	// Ratios compares the two formats.
	Ratios
}

// benchMu serializes measurements, so that one does not time another's
// work.
var benchMu sync.Mutex

// Measure times arrowpack and IPC with compression c on recs, which must
// share one schema, cycling through them; name labels the result. Each
// format is first checked to round-trip every batch (array.RecordEqual,
// NaNs equal). Then the four timings (arrowpack encode and decode, IPC
// encode and decode) take turns, opts.Runs rounds of them, each run of a
// timing the same number of blocks (as many as last opts' benchtime, found
// in the first round); each result is the median of its runs, with their
// range, and each ratio the median of the ratios within a round. A format that cannot encode, decode or round-trip the
// batches is reported in its Format.Err, not as an error: the error is for
// bad arguments only. Measure runs one measurement at a time, even when
// called from several goroutines, and never panics on the batches' account.
func Measure(name string, recs []arrow.RecordBatch, c codec.Compression, opts Options) (Result, error) {
	if len(recs) == 0 {
		return Result{}, errors.New("measure: no batches")
	}
	schema := recs[0].Schema()
	var rows int64
	for i, rec := range recs {
		if rec == nil {
			return Result{}, fmt.Errorf("measure: batch %d is nil", i)
		}
		if !rec.Schema().Equal(schema) {
			return Result{}, fmt.Errorf("measure: batch %d has schema %s, batch 0 has %s", i, rec.Schema(), schema)
		}
		rows += rec.NumRows()
	}
	ipcOpts, err := IPCOptions(schema, c, opts.Concurrency)
	if err != nil {
		return Result{}, err
	}

	benchMu.Lock()
	defer benchMu.Unlock()

	k := len(recs)
	res := Result{Shape: name, Compression: c.String(), IPCCompression: IPCCompression(c).String(), Batches: k, Rows: meanRound(rows, k)}
	raw, rawErr := rawSize(schema, recs)
	if rawErr != nil {
		raw = measureIPCSizes(schema, recs)
	}
	ap, err := prepareArrowpack(schema, recs, c, max(opts.Concurrency, 1))
	if err != nil {
		res.Arrowpack.Err = err.Error()
	} else {
		res.Arrowpack.Bytes = meanRound(ap.Bytes, k)
	}
	ip, err := PrepareIPC(recs, ipcOpts)
	if err != nil {
		res.IPC.Err = err.Error()
	} else {
		res.IPC.Bytes = meanRound(ip.Bytes, k)
	}
	var apErr, ipErr error
	var timings []*turn
	var dsts []*Op
	if ap != nil {
		timings = append(timings, &turn{run: ap.Encode, what: "encode", err: &apErr}, &turn{run: ap.Decode, what: "decode", err: &apErr})
		dsts = append(dsts, &res.Arrowpack.Encode, &res.Arrowpack.Decode)
	}
	if ip != nil {
		timings = append(timings, &turn{run: ip.Encode, what: "encode", err: &ipErr}, &turn{run: ip.Decode, what: "decode", err: &ipErr})
		dsts = append(dsts, &res.IPC.Encode, &res.IPC.Decode)
	}
	takeTurns(k, timings, opts)
	for i, t := range timings {
		*dsts[i] = summarize(t.runs)
	}
	if apErr != nil {
		res.Arrowpack.Err = apErr.Error()
	}
	if ipErr != nil {
		res.IPC.Err = ipErr.Error()
	}
	for _, f := range []*Format{&res.Arrowpack, &res.IPC} {
		if !f.OK() {
			f.Encode, f.Decode = Op{}, Op{}
		}
	}
	res.RawBytes = meanRound(raw, k)
	for _, f := range []*Format{&res.Arrowpack, &res.IPC} {
		if !f.OK() {
			continue
		}
		mean := float64(raw) / float64(k)
		for _, op := range []*Op{&f.Encode, &f.Decode} {
			if op.NsPerBlock > 0 {
				op.GBPerSec = mean / op.NsPerBlock
			}
		}
	}
	if res.Arrowpack.OK() && res.IPC.OK() {
		res.EncodeRatio, res.EncodeRatioMin, res.EncodeRatioMax = Spread(runRatios(res.Arrowpack.Encode, res.IPC.Encode))
		res.DecodeRatio, res.DecodeRatioMin, res.DecodeRatioMax = Spread(runRatios(res.Arrowpack.Decode, res.IPC.Decode))
		res.SizeRatio = float64(res.Arrowpack.Bytes) / float64(res.IPC.Bytes)
	}
	return res, nil
}

// summarize returns the timing of runs: the median time per block with
// the range, and the median allocations.
func summarize(runs []Op) Op {
	if len(runs) == 0 {
		return Op{}
	}
	var ns, cpu, allocs, bytes []float64
	for _, r := range runs {
		ns = append(ns, r.NsPerBlock)
		cpu = append(cpu, r.CPUNsPerBlock)
		allocs = append(allocs, r.AllocsPerBlock)
		bytes = append(bytes, r.AllocBytesPerBlock)
	}
	op := Op{NsRuns: ns, Blocks: runs[len(runs)-1].Blocks}
	op.NsPerBlock, op.NsMin, op.NsMax = Spread(ns)
	op.CPUNsPerBlock, _, _ = Spread(cpu)
	op.AllocsPerBlock, _, _ = Spread(allocs)
	op.AllocBytesPerBlock, _, _ = Spread(bytes)
	return op
}

// runRatios returns a's time over b's in each run they both ran, the runs
// of one round timed side by side.
func runRatios(a, b Op) []float64 {
	var r []float64
	for i := range min(len(a.NsRuns), len(b.NsRuns)) {
		if b.NsRuns[i] > 0 {
			r = append(r, a.NsRuns[i]/b.NsRuns[i])
		}
	}
	return r
}

// meanRound returns total/n rounded to the nearest integer.
func meanRound(total int64, n int) int64 {
	return (total + int64(n)/2) / int64(n)
}

// rawSize returns the total size of recs as uncompressed arrowpack blocks.
func rawSize(schema *arrow.Schema, recs []arrow.RecordBatch) (total int64, err error) {
	err = protect(func() error {
		enc, err := codec.NewEncoder(schema)
		if err != nil {
			return err
		}
		var buf []byte
		for _, rec := range recs {
			if buf, err = enc.Append(buf[:0], rec); err != nil {
				return err
			}
			total += int64(len(buf))
		}
		return nil
	})
	return total, err
}

// measureIPCSizes returns the total size of recs as uncompressed IPC
// streams, or 0 if IPC cannot write them.
func measureIPCSizes(schema *arrow.Schema, recs []arrow.RecordBatch) int64 {
	var total int64
	err := protect(func() error {
		opts := []ipc.Option{ipc.WithSchema(schema)}
		for _, rec := range recs {
			b, err := ipcEncode(rec, opts)
			if err != nil {
				return err
			}
			total += int64(len(b))
		}
		return nil
	})
	if err != nil {
		return 0
	}
	return total
}

// Prepared is a format ready to be timed on a list of batches: Encode(i)
// encodes batch i and Decode(i) decodes it, each as Measure times it, and
// Bytes is the total size of the batches encoded.
type Prepared struct {
	Bytes          int64
	Encode, Decode func(i int) error
}

// prepareArrowpack checks that arrowpack round-trips recs with compression
// c on conc goroutines per block and returns its timings.
func prepareArrowpack(schema *arrow.Schema, recs []arrow.RecordBatch, c codec.Compression, conc int) (*Prepared, error) {
	var (
		enc    *codec.Encoder
		dec    *codec.Decoder
		blocks = make([][]byte, len(recs))
		maxLen int
		total  int64
	)
	err := protect(func() error {
		var err error
		if enc, err = codec.NewEncoder(schema, codec.WithCompression(c), codec.WithConcurrency(conc)); err != nil {
			return err
		}
		if dec, err = codec.NewDecoder(schema, codec.WithConcurrency(conc)); err != nil {
			return err
		}
		for i, rec := range recs {
			b, err := enc.Append(nil, rec)
			if err != nil {
				return fmt.Errorf("encoding batch %d: %w", i, err)
			}
			// Decode aliases an 8-byte aligned block; the Go allocator
			// aligns to 64 bytes.
			blocks[i] = alignedCopy(b)
			maxLen = max(maxLen, len(b))
			total += int64(len(b))
			out, err := dec.Decode(blocks[i])
			if err != nil {
				return fmt.Errorf("decoding batch %d: %w", i, err)
			}
			eq := sameBatch(rec, out)
			out.Release()
			if !eq {
				return fmt.Errorf("batch %d decodes to a different batch", i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	buf := alignedCopy(make([]byte, maxLen))[:0]
	return &Prepared{
		Bytes: total,
		Encode: func(i int) error {
			out, err := enc.Append(buf[:0], recs[i])
			buf = out
			return err
		},
		Decode: func(i int) error {
			rec, err := dec.Decode(blocks[i])
			if err != nil {
				return err
			}
			rec.Release()
			return nil
		},
	}, nil
}

// IPCOptions returns the options of arrow-go's IPC writer that Measure sets
// against arrowpack with compression c and conc goroutines per block:
// ipc.WithSchema(schema); the same codec, or LZ4 for MinLZ, which IPC
// lacks; and ipc.WithCompressConcurrency(conc) when a compressed block may
// use more than one goroutine. An unknown compression is an error.
func IPCOptions(schema *arrow.Schema, c codec.Compression, conc int) ([]ipc.Option, error) {
	opts := []ipc.Option{ipc.WithSchema(schema)}
	switch IPCCompression(c) {
	case codec.None:
	case codec.LZ4:
		opts = append(opts, ipc.WithLZ4())
	case codec.Zstd:
		opts = append(opts, ipc.WithZstd())
	default:
		return nil, fmt.Errorf("measure: unknown compression %d", c)
	}
	if conc > 1 && c != codec.None {
		opts = append(opts, ipc.WithCompressConcurrency(conc))
	}
	return opts, nil
}

// IPCCompression returns the codec IPC is measured with against
// arrowpack's c: c itself for none, LZ4 and zstd; for the codecs IPC lacks
// its nearest: LZ4, its fastest, for MinLZ; zstd, its smallest, for Light
// (IPC has no lightweight encodings). An unknown c is returned as it is.
func IPCCompression(c codec.Compression) codec.Compression {
	switch c {
	case codec.MinLZ:
		return codec.LZ4
	case codec.Light:
		return codec.Zstd
	}
	return c
}

// PrepareIPC writes each of recs as a self-contained IPC stream (schema
// message, dictionaries, the batch, end-of-stream marker) with the writer
// options opts (see IPCOptions), checks that each stream reads back to its
// batch, and returns IPC ready to be timed: Encode(i) writes batch i so
// into a buffer reused from call to call, Decode(i) reads stream i with
// ipc.NewReader, Next and Release, and Bytes is the streams' total size.
// That is what a shuffle that used IPC per block would do. A batch that IPC
// cannot write or read back, even by panicking, is an error.
func PrepareIPC(recs []arrow.RecordBatch, opts []ipc.Option) (*Prepared, error) {
	streams := make([][]byte, len(recs))
	var total int64
	var readOpts []ipc.Option
	err := protect(func() error {
		for i, rec := range recs {
			b, err := ipcEncode(rec, opts)
			if err != nil {
				return fmt.Errorf("writing batch %d: %w", i, err)
			}
			streams[i] = b
			total += int64(len(b))
		}
		// The reader refuses bodies above 256 MiB unless told otherwise.
		for _, b := range streams {
			if len(b) > 200<<20 {
				readOpts = []ipc.Option{ipc.WithBodySizeLimit(0)}
			}
		}
		for i, b := range streams {
			r, err := ipc.NewReader(bytes.NewReader(b), readOpts...)
			if err != nil {
				return fmt.Errorf("reading batch %d: %w", i, err)
			}
			ok := r.Next()
			eq := ok && sameBatch(recs[i], r.RecordBatch())
			rerr := r.Err()
			r.Release()
			switch {
			case rerr != nil:
				return fmt.Errorf("reading batch %d: %w", i, rerr)
			case !ok:
				return fmt.Errorf("reading batch %d: no batch in the stream", i)
			case !eq:
				return fmt.Errorf("batch %d reads back as a different batch", i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	return &Prepared{
		Bytes: total,
		Encode: func(i int) error {
			buf.Reset()
			w := ipc.NewWriter(&buf, opts...)
			if err := w.Write(recs[i]); err != nil {
				return err
			}
			return w.Close()
		},
		Decode: func(i int) error {
			r, err := ipc.NewReader(bytes.NewReader(streams[i]), readOpts...)
			if err != nil {
				return err
			}
			if !r.Next() {
				err := r.Err()
				r.Release()
				if err == nil {
					err = errors.New("no batch in the stream")
				}
				return err
			}
			r.Release()
			return nil
		},
	}, nil
}

// ipcEncode writes rec as a self-contained IPC stream with the writer
// options opts.
func ipcEncode(rec arrow.RecordBatch, opts []ipc.Option) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, opts...)
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// protect runs f, turning a panic into an error.
func protect(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}

// goAlloc hands out 64-byte aligned memory that the garbage collector frees.
var goAlloc = memory.NewGoAllocator()

// alignedCopy returns a copy of b in 64-byte aligned memory.
func alignedCopy(b []byte) []byte {
	out := goAlloc.Allocate(len(b))
	copy(out, b)
	return out
}

// sameBatch reports whether a and b hold the same values, NaNs equal to
// NaNs.
func sameBatch(a, b arrow.RecordBatch) bool {
	if array.RecordEqual(a, b) {
		return true
	}
	return array.RecordApproxEqual(a, b, array.WithNaNsEqual(true), array.WithAbsTolerance(0))
}
