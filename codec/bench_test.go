package codec_test

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// The benchmarks compare, per shape and side by side in one run, arrowpack
// against arrow-go's IPC writer and reader on the same batch, and against
// the floors: a copy of as many bytes as the block (encode) and building
// the same arrays over buffers already in place, with no checks (decode).
// Every variant sets the arrowpack block size as its bytes per op, so that
// MB/s compare; block-B and ipc-B report the two encodings' sizes. IPC is
// prepared and run by internal/measure, as the bench command runs it. The
// benchmarks live in the external test package codec_test because measure
// imports codec.

// benchCase is one benchmark shape, encoded both ways once.
type benchCase struct {
	name  string
	rec   arrow.RecordBatch
	enc   *codec.Encoder
	dec   *codec.Decoder
	block []byte            // the arrowpack block, 8-byte aligned
	ipc   *measure.Prepared // the same batch as a self-contained IPC stream
	floor []*floorNode
}

var (
	benchOnce  sync.Once
	benchCases []*benchCase
	benchErr   error
)

// loadBenchCases builds every randbatch bench shape and its encodings once
// per test binary.
func loadBenchCases(tb testing.TB) []*benchCase {
	benchOnce.Do(func() {
		mem := memory.NewGoAllocator()
		for _, sh := range randbatch.BenchShapes() {
			c, err := newBenchCase(sh.Name, sh.Build(mem))
			if err != nil {
				benchErr = err
				return
			}
			benchCases = append(benchCases, c)
		}
	})
	if benchErr != nil {
		tb.Fatal(benchErr)
	}
	return benchCases
}

func newBenchCase(name string, rec arrow.RecordBatch) (*benchCase, error) {
	c := &benchCase{name: name, rec: rec}
	var err error
	if c.enc, err = codec.NewEncoder(rec.Schema()); err != nil {
		return nil, err
	}
	if c.dec, err = codec.NewDecoder(rec.Schema()); err != nil {
		return nil, err
	}
	size, err := c.enc.Append(nil, rec)
	if err != nil {
		return nil, err
	}
	c.block, err = c.enc.Append(alignedBytes(len(size))[:0], rec)
	if err != nil {
		return nil, err
	}
	opts, err := measure.IPCOptions(rec.Schema(), codec.None, 1)
	if err != nil {
		return nil, err
	}
	if c.ipc, err = measure.PrepareIPC([]arrow.RecordBatch{rec}, opts); err != nil {
		return nil, err
	}

	// The floor's buffers: where each buffer of a zero-copy decoded batch
	// lives in the block.
	out, err := c.dec.Decode(c.block)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	for _, col := range out.Columns() {
		c.floor = append(c.floor, newFloorNode(col.Data()))
	}
	return c, nil
}

// alignedBytes returns n bytes starting at an 8-byte aligned address.
func alignedBytes(n int) []byte {
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)
}

// must returns v, or panics with err: for setups that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// floorNode is one array node of a decoded batch: its type, length, null
// count, the bytes of its buffers (nil for an absent one) and its children.
type floorNode struct {
	dt       arrow.DataType
	length   int
	nulls    int
	bufs     [][]byte
	children []*floorNode
	dict     *floorNode
}

func newFloorNode(d arrow.ArrayData) *floorNode {
	n := &floorNode{dt: d.DataType(), length: d.Len(), nulls: d.NullN()}
	for _, b := range d.Buffers() {
		if b == nil {
			n.bufs = append(n.bufs, nil)
		} else {
			n.bufs = append(n.bufs, b.Bytes())
		}
	}
	for _, c := range d.Children() {
		n.children = append(n.children, newFloorNode(c))
	}
	// Dictionary returns a nil *array.Data, not a nil interface, when
	// there is none.
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n.dict = newFloorNode(dict)
	}
	return n
}

// build makes the node's Data over its bytes, as a zero-copy decoder that
// checks nothing would.
func (n *floorNode) build() *array.Data {
	bufs := make([]*memory.Buffer, len(n.bufs))
	for i, b := range n.bufs {
		if b != nil {
			bufs[i] = memory.NewBufferBytes(b)
		}
	}
	if n.dict != nil {
		dict := n.dict.build()
		d := array.NewDataWithDictionary(n.dt, n.length, bufs, n.nulls, 0, dict)
		dict.Release()
		return d
	}
	var children []arrow.ArrayData
	if len(n.children) > 0 {
		children = make([]arrow.ArrayData, len(n.children))
		for i, c := range n.children {
			children[i] = c.build()
		}
	}
	d := array.NewData(n.dt, n.length, bufs, children, n.nulls, 0)
	for _, c := range children {
		c.Release()
	}
	return d
}

func (c *benchCase) floorDecode() arrow.RecordBatch {
	cols := make([]arrow.Array, len(c.floor))
	for i, n := range c.floor {
		d := n.build()
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecordBatch(c.dec.Schema(), cols, c.rec.NumRows())
	for _, col := range cols {
		col.Release()
	}
	return rec
}

func (c *benchCase) reportSizes(b *testing.B) {
	b.ReportMetric(float64(len(c.block)), "block-B")
	b.ReportMetric(float64(c.ipc.Bytes), "ipc-B")
}

// benchIPC times op, measure's IPC encoding or decoding of the case's
// batch, as a sub-benchmark of BenchmarkEncode or BenchmarkDecode.
func (c *benchCase) benchIPC(b *testing.B, op func(i int) error) {
	b.ReportAllocs()
	b.SetBytes(int64(len(c.block)))
	for b.Loop() {
		if err := op(0); err != nil {
			b.Fatal(err)
		}
	}
	c.reportSizes(b)
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range loadBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.Run("arrowpack", func(b *testing.B) {
				buf := alignedBytes(len(c.block))[:0]
				b.ReportAllocs()
				b.SetBytes(int64(len(c.block)))
				for b.Loop() {
					out, err := c.enc.Append(buf[:0], c.rec)
					if err != nil {
						b.Fatal(err)
					}
					buf = out
				}
				c.reportSizes(b)
			})
			b.Run("ipc", func(b *testing.B) { c.benchIPC(b, c.ipc.Encode) })
			b.Run("copy", func(b *testing.B) {
				dst := alignedBytes(len(c.block))
				b.ReportAllocs()
				b.SetBytes(int64(len(c.block)))
				for b.Loop() {
					copy(dst, c.block)
				}
				c.reportSizes(b)
			})
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range loadBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.Run("arrowpack", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.block)))
				for b.Loop() {
					rec, err := c.dec.Decode(c.block)
					if err != nil {
						b.Fatal(err)
					}
					rec.Release()
				}
				c.reportSizes(b)
			})
			b.Run("ipc", func(b *testing.B) { c.benchIPC(b, c.ipc.Decode) })
			b.Run("floor", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.block)))
				for b.Loop() {
					c.floorDecode().Release()
				}
				c.reportSizes(b)
			})
		})
	}
}

// BenchmarkEncodeParallel encodes with one Encoder shared by every
// goroutine, each into a buffer of its own.
func BenchmarkEncodeParallel(b *testing.B) {
	for _, c := range loadBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.block)))
			b.RunParallel(func(pb *testing.PB) {
				buf := alignedBytes(len(c.block))[:0]
				for pb.Next() {
					out, err := c.enc.Append(buf[:0], c.rec)
					if err != nil {
						b.Error(err)
						return
					}
					if len(out) != len(c.block) {
						b.Errorf("block of %d bytes, want %d", len(out), len(c.block))
						return
					}
					buf = out
				}
			})
		})
	}
}
