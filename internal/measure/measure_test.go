package measure

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// tiny runs each timing for a few blocks only: the tests check the fields,
// never the speed.
var tiny = Options{Iterations: 3}

func arrowpackSize(t *testing.T, rec arrow.RecordBatch, c codec.Compression) int64 {
	t.Helper()
	enc, err := codec.NewEncoder(rec.Schema(), codec.WithCompression(c))
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

func ipcSize(t *testing.T, rec arrow.RecordBatch, c codec.Compression) int64 {
	t.Helper()
	opts := []ipc.Option{ipc.WithSchema(rec.Schema())}
	switch c {
	case codec.LZ4:
		opts = append(opts, ipc.WithLZ4())
	case codec.Zstd:
		opts = append(opts, ipc.WithZstd())
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, opts...)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return int64(buf.Len())
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func checkOp(t *testing.T, what string, op Op, raw int64, blocks int) {
	t.Helper()
	if op.NsPerBlock <= 0 || op.GBPerSec <= 0 || op.AllocsPerBlock < 0 || op.AllocBytesPerBlock < 0 {
		t.Errorf("%s: fields not filled: %+v", what, op)
	}
	if op.Blocks != blocks {
		t.Errorf("%s: ran %d blocks, want %d", what, op.Blocks, blocks)
	}
	if !near(op.GBPerSec, float64(raw)/op.NsPerBlock) {
		t.Errorf("%s: %v GB/s, but %d bytes in %v ns", what, op.GBPerSec, raw, op.NsPerBlock)
	}
}

// perRun returns a's time over b's in each run, as the test computes it.
func perRun(a, b Op) []float64 {
	var r []float64
	for i := range a.NsRuns {
		r = append(r, a.NsRuns[i]/b.NsRuns[i])
	}
	return r
}

// median returns the median of xs, by sorting a copy.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// checkRatios checks that each timing of res has runs runs, its time the
// median of them within their range, and each time ratio the median of
// the runs' ratios within theirs (issue 31 item 9).
func checkRatios(t *testing.T, res Result, runs int) {
	t.Helper()
	for _, op := range []Op{res.Arrowpack.Encode, res.Arrowpack.Decode, res.IPC.Encode, res.IPC.Decode} {
		if len(op.NsRuns) != runs || !near(op.NsPerBlock, median(op.NsRuns)) ||
			op.NsMin != slices.Min(op.NsRuns) || op.NsMax != slices.Max(op.NsRuns) {
			t.Errorf("a timing is not the median of %d runs with their range: %+v", runs, op)
		}
	}
	for _, r := range []struct {
		what        string
		med, lo, hi float64
		ratios      []float64
	}{
		{"encode", res.EncodeRatio, res.EncodeRatioMin, res.EncodeRatioMax, perRun(res.Arrowpack.Encode, res.IPC.Encode)},
		{"decode", res.DecodeRatio, res.DecodeRatioMin, res.DecodeRatioMax, perRun(res.Arrowpack.Decode, res.IPC.Decode)},
	} {
		if !near(r.med, median(r.ratios)) || !near(r.lo, slices.Min(r.ratios)) || !near(r.hi, slices.Max(r.ratios)) {
			t.Errorf("%s ratio %v [%v-%v], the runs' ratios are %v", r.what, r.med, r.lo, r.hi, r.ratios)
		}
	}
	if !near(res.SizeRatio, float64(res.Arrowpack.Bytes)/float64(res.IPC.Bytes)) {
		t.Errorf("size ratio inconsistent: %+v", res)
	}
}

func TestMeasureFieldsConsistent(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := randbatch.Lineitem(mem, 64)
	defer rec.Release()
	raw := arrowpackSize(t, rec, codec.None)
	for _, c := range Compressions {
		t.Run(c.String(), func(t *testing.T) {
			res, err := Measure("lineitem-64", []arrow.RecordBatch{rec}, c, tiny)
			if err != nil {
				t.Fatal(err)
			}
			if res.Shape != "lineitem-64" || res.Compression != c.String() || res.Batches != 1 || res.Rows != 64 {
				t.Errorf("labels: %+v", res)
			}
			if !res.Arrowpack.OK() || !res.IPC.OK() {
				t.Fatalf("a format failed: arrowpack %q, ipc %q", res.Arrowpack.Err, res.IPC.Err)
			}
			if res.RawBytes != raw {
				t.Errorf("RawBytes %d, the uncompressed block has %d", res.RawBytes, raw)
			}
			if want := arrowpackSize(t, rec, c); res.Arrowpack.Bytes != want {
				t.Errorf("arrowpack Bytes %d, the block has %d", res.Arrowpack.Bytes, want)
			}
			if want := ipcSize(t, rec, c); res.IPC.Bytes != want {
				t.Errorf("IPC Bytes %d, the stream has %d", res.IPC.Bytes, want)
			}
			checkOp(t, "arrowpack encode", res.Arrowpack.Encode, raw, tiny.Iterations)
			checkOp(t, "arrowpack decode", res.Arrowpack.Decode, raw, tiny.Iterations)
			checkOp(t, "ipc encode", res.IPC.Encode, raw, tiny.Iterations)
			checkOp(t, "ipc decode", res.IPC.Decode, raw, tiny.Iterations)
			checkRatios(t, res, DefaultRuns)
			// IPC writes a schema message per block; arrowpack does not.
			if c == codec.None && res.Arrowpack.Bytes >= res.IPC.Bytes {
				t.Errorf("arrowpack block %d bytes, IPC stream %d", res.Arrowpack.Bytes, res.IPC.Bytes)
			}
		})
	}
}

func TestMeasureSeveralBatches(t *testing.T) {
	mem := memory.NewGoAllocator()
	a := randbatch.Lineitem(mem, 100)
	defer a.Release()
	b := randbatch.Lineitem(mem, 300)
	defer b.Release()
	res, err := Measure("two", []arrow.RecordBatch{a, b}, codec.LZ4, Options{Iterations: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Batches != 2 || res.Rows != 200 {
		t.Errorf("Batches %d Rows %d, want 2 and 200", res.Batches, res.Rows)
	}
	mean := func(x, y int64) int64 { return (x + y + 1) / 2 }
	if want := mean(arrowpackSize(t, a, codec.None), arrowpackSize(t, b, codec.None)); res.RawBytes != want {
		t.Errorf("RawBytes %d, want the mean %d", res.RawBytes, want)
	}
	if want := mean(arrowpackSize(t, a, codec.LZ4), arrowpackSize(t, b, codec.LZ4)); res.Arrowpack.Bytes != want {
		t.Errorf("arrowpack Bytes %d, want the mean %d", res.Arrowpack.Bytes, want)
	}
	if want := mean(ipcSize(t, a, codec.LZ4), ipcSize(t, b, codec.LZ4)); res.IPC.Bytes != want {
		t.Errorf("IPC Bytes %d, want the mean %d", res.IPC.Bytes, want)
	}
	if res.Arrowpack.Encode.Blocks != 4 || res.IPC.Decode.Blocks != 4 {
		t.Errorf("blocks run: %+v", res)
	}
}

func TestMeasureRuns(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := randbatch.Lineitem(mem, 16)
	defer rec.Release()
	for _, runs := range []int{0, 1, 5} {
		opts := Options{Iterations: 2, Runs: runs}
		if runs == 0 && opts.runs() != DefaultRuns {
			t.Errorf("Runs 0: %d runs, want %d", opts.runs(), DefaultRuns)
		}
		res, err := Measure("runs", []arrow.RecordBatch{rec}, codec.None, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkOp(t, "arrowpack decode", res.Arrowpack.Decode, res.RawBytes, 2)
		checkOp(t, "ipc encode", res.IPC.Encode, res.RawBytes, 2)
	}
}

func TestMeasureSlicedShape(t *testing.T) {
	mem := memory.NewGoAllocator()
	shapes := randbatch.BenchShapes()
	if shapes[1].Name != "lineitem-8192-sliced3" {
		t.Skipf("shape 1 is %s", shapes[1].Name)
	}
	rec := shapes[1].Build(mem)
	defer rec.Release()
	res, err := Measure(shapes[1].Name, []arrow.RecordBatch{rec}, codec.None, Options{Iterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Arrowpack.OK() || !res.IPC.OK() {
		t.Fatalf("a format failed: arrowpack %q, ipc %q", res.Arrowpack.Err, res.IPC.Err)
	}
}

func TestMeasureArguments(t *testing.T) {
	mem := memory.NewGoAllocator()
	a := randbatch.Lineitem(mem, 10)
	defer a.Release()
	b := randbatch.Utf8Columns(mem, 10)
	defer b.Release()
	if _, err := Measure("none", nil, codec.None, tiny); err == nil {
		t.Error("no batches: no error")
	}
	if _, err := Measure("mixed", []arrow.RecordBatch{a, b}, codec.None, tiny); err == nil {
		t.Error("two schemas: no error")
	}
	if _, err := Measure("bad", []arrow.RecordBatch{a}, codec.Compression(9), tiny); err == nil {
		t.Error("unknown compression: no error")
	}
}

// TestMeasureFailingFormat checks that a batch one format cannot handle is
// reported in that format's Err while the other is still measured.
func TestMeasureFailingFormat(t *testing.T) {
	mem := memory.NewGoAllocator()
	// A sliced list view: arrow-go v18.8's IPC writer fails on these;
	// arrowpack writes the slice.
	dt := arrow.ListViewOf(arrow.PrimitiveTypes.Int32)
	col := randbatch.Array(mem, rand.New(rand.NewPCG(1, 2)), dt, 50, randbatch.Options{Slice: true, NullProb: 0.2})
	schema := arrow.NewSchema([]arrow.Field{{Name: "lv", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	defer rec.Release()

	res, err := Measure("sliced-list-view", []arrow.RecordBatch{rec}, codec.None, tiny)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Arrowpack.OK() {
		t.Fatalf("arrowpack failed: %s", res.Arrowpack.Err)
	}
	checkOp(t, "arrowpack encode", res.Arrowpack.Encode, res.RawBytes, tiny.Iterations)
	if res.IPC.OK() {
		t.Logf("IPC round-trips this sliced list view now; nothing failed")
		return
	}
	t.Logf("IPC: %s", res.IPC.Err)
	if res.EncodeRatio != 0 || res.DecodeRatio != 0 || res.SizeRatio != 0 {
		t.Errorf("ratios set although IPC failed: %+v", res)
	}
}

func TestBenchTimeRestored(t *testing.T) {
	f := flag.Lookup("test.benchtime")
	if f == nil {
		t.Skip("no -test.benchtime flag")
	}
	before := f.Value.String()
	mem := memory.NewGoAllocator()
	rec := randbatch.Lineitem(mem, 8)
	defer rec.Release()
	if _, err := Measure("x", []arrow.RecordBatch{rec}, codec.None, Options{Iterations: 2}); err != nil {
		t.Fatal(err)
	}
	if after := f.Value.String(); after != before {
		t.Errorf("-test.benchtime %q after Measure, was %q", after, before)
	}
}

func TestParseBenchTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Options
	}{
		{"200ms", Options{BenchTime: 200 * time.Millisecond}},
		{"2s", Options{BenchTime: 2 * time.Second}},
		{"100x", Options{Iterations: 100}},
		{"1x", Options{Iterations: 1}},
	} {
		got, err := ParseBenchTime(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBenchTime(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	for _, bad := range []string{"", "x", "0x", "-3x", "abc", "0s", "-1s", "1.5x"} {
		if _, err := ParseBenchTime(bad); err == nil {
			t.Errorf("ParseBenchTime(%q): no error", bad)
		}
	}
	if got := (Options{Runs: 7}).String(); got != DefaultBenchTime.String() {
		t.Errorf("zero Options: %q", got)
	}
}

func TestMachine(t *testing.T) {
	m := ThisMachine()
	if m.Implementation == "" || m.GOARCH == "" || m.GOOS == "" || m.NumCPU < 1 || m.GoVersion == "" || len(m.Date) != 10 {
		t.Errorf("fields not filled: %+v", m)
	}
	if s := m.String(); !strings.Contains(s, m.Implementation) || !strings.Contains(s, m.GOARCH) {
		t.Errorf("String() = %q", s)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"processor\t: 0\nvendor_id\t: X\nmodel name\t: Test CPU 9000\n", "Test CPU 9000"},
		{"processor\t: 0\nHardware\t: Some Board\n", "Some Board"},
		{"processor\t: 0\n", ""},
	} {
		p := filepath.Join(dir, "cpuinfo")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := cpuModel(p); got != tc.want {
			t.Errorf("cpuModel(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if got := cpuModel(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file: %q", got)
	}
}

// TestPieces: Pieces cuts a batch into compact copies of the given rows,
// the last one shorter, whose rows are the batch's in order.
func TestPieces(t *testing.T) {
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 100)
	defer rec.Release()
	pieces, err := Pieces(rec, 30)
	if err != nil {
		t.Fatal(err)
	}
	defer batches.Release(pieces)
	var rows []int64
	for _, p := range pieces {
		rows = append(rows, p.NumRows())
	}
	if len(rows) != 4 || rows[0] != 30 || rows[1] != 30 || rows[2] != 30 || rows[3] != 10 {
		t.Fatalf("pieces of %v rows, want 30 30 30 10", rows)
	}
	all, err := concatenate(rec.Schema(), pieces)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	if !array.RecordEqual(all, rec) {
		t.Error("the pieces do not hold the batch's rows")
	}
	if _, err := Pieces(rec, 0); err == nil {
		t.Error("pieces of 0 rows: no error")
	}
}

// TestPrepareIPC: the prepared IPC writes and reads back each batch, and
// its Bytes are the streams' sizes; IPCOptions refuses an unknown
// compression.
func TestPrepareIPC(t *testing.T) {
	mem := memory.NewGoAllocator()
	recs := []arrow.RecordBatch{randbatch.Lineitem(mem, 10), randbatch.Lineitem(mem, 20)}
	defer batches.Release(recs)
	opts, err := IPCOptions(recs[0].Schema(), codec.Zstd, 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PrepareIPC(recs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for i, rec := range recs {
		b, err := ipcEncode(rec, opts)
		if err != nil {
			t.Fatal(err)
		}
		want += int64(len(b))
		if err := p.Encode(i); err != nil {
			t.Errorf("Encode(%d): %v", i, err)
		}
		if err := p.Decode(i); err != nil {
			t.Errorf("Decode(%d): %v", i, err)
		}
	}
	if p.Bytes != want {
		t.Errorf("Bytes = %d, want %d", p.Bytes, want)
	}
	if _, err := IPCOptions(recs[0].Schema(), codec.Compression(99), 1); err == nil {
		t.Error("IPCOptions of an unknown compression: no error")
	}
}
