package codec

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/internal/durable"
)

// defaultMapBuffer is how many bytes of finished blocks a MapOutputWriter
// holds in memory before it moves them to its spill file.
const defaultMapBuffer = 16 << 20

// A MapOutputWriter writes one map-output file (see OpenMapOutput) from
// finished blocks that arrive in any order of partitions, as a
// partitioning encoder finishes them. It holds blocks in memory up to its
// buffer, moves them to an unnamed spill file next to the target past that,
// and on Close lays the partitions out in order, writes the index and
// footer, syncs the file and only then makes it visible under its name
// (internal/durable): a writer that fails, is aborted or whose process is
// killed leaves no map output behind. A MapOutputWriter is not safe for
// concurrent use.
type MapOutputWriter struct {
	f       *durable.File
	schema  *arrow.Schema
	header  []byte // the stream header and schema
	fp      uint64
	parts   [][]mapBlock
	mem     [][]byte // blocks held in memory, end to end in chunks
	memLen  int      // the bytes of mem's chunks in use
	memMax  int
	spill   *os.File
	spilled int64
	err     error
	closed  bool
}

// mapBlock is where one finished block waits: at off in chunk of the
// writer's memory, or at off in its spill file when spilled.
type mapBlock struct {
	off     int64
	n       int
	crc     uint32
	rows    int
	chunk   int
	spilled bool
}

// mapChunk is the size of the chunks a MapOutputWriter holds blocks in:
// chunks, not one growing buffer, so that no block is copied twice.
const mapChunk = 1 << 20

// MapOutputOptions are how a MapOutputWriter treats its target.
type MapOutputOptions struct {
	// Replace lets Close replace an existing file at the path; without it
	// an existing file is an error (durable.ErrExists).
	Replace bool
	// NoSync skips syncing the file and its directory on Close: faster,
	// but a crash soon after may lose the map output.
	NoSync bool
	// Buffer is how many bytes of finished blocks are held in memory
	// before they are spilled; 0 means 16 MiB, a negative value spills
	// every block at once.
	Buffer int
}

// CreateMapOutput starts a map-output file of partitions partitions (1 to
// MaxPartitions) at path, for blocks of schema.
func CreateMapOutput(path string, schema *arrow.Schema, partitions int, o MapOutputOptions) (*MapOutputWriter, error) {
	if partitions < 1 || partitions > MaxPartitions {
		return nil, fmt.Errorf("%w: CreateMapOutput: %d partitions, want 1 to %d", ErrUnsupported, partitions, MaxPartitions)
	}
	if _, err := NewEncoder(schema); err != nil {
		return nil, fmt.Errorf("CreateMapOutput: %w", err)
	}
	var sb bytes.Buffer
	if err := ipc.NewWriter(&sb, ipc.WithSchema(schema)).Close(); err != nil {
		return nil, fmt.Errorf("%w: CreateMapOutput: serializing the schema: %v", ErrUnsupported, err)
	}
	do := durable.Options{Replace: o.Replace}
	if !o.NoSync {
		do.Sync = durable.OS
	}
	f, err := durable.Create(path, do)
	if err != nil {
		return nil, fmt.Errorf("CreateMapOutput: %w", err)
	}
	w := &MapOutputWriter{f: f, schema: schema, header: streamHeader(sb.Bytes()), fp: fingerprint(schema),
		parts: make([][]mapBlock, partitions), memMax: o.Buffer}
	if w.memMax == 0 {
		w.memMax = defaultMapBuffer
	}
	return w, nil
}

// Schema returns the schema the writer's blocks are for.
func (w *MapOutputWriter) Schema() *arrow.Schema { return w.schema }

// WriteBlock appends a finished block (an Encoder's output for the
// writer's schema, say) to partition p. The block is copied, so its memory
// may be reused once WriteBlock returns. A block that is not one (its
// header fails the decoder's checks, or it was made for another schema)
// or a p outside [0, P) is refused with an error wrapping ErrInvalidBatch
// and the writer stays as it was; an error writing the spill file fails
// the writer, and every later call returns it.
func (w *MapOutputWriter) WriteBlock(p int, block []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: MapOutputWriter.WriteBlock after Close", ErrClosed)
	}
	if p < 0 || p >= len(w.parts) {
		return fmt.Errorf("%w: partition %d of a map output of %d partitions", ErrInvalidBatch, p, len(w.parts))
	}
	h, err := parseHeader(block)
	if err != nil || len(block)%8 != 0 {
		return fmt.Errorf("%w: a block for partition %d is not a whole block (%d bytes): %v", ErrInvalidBatch, p, len(block), err)
	}
	if h.fingerprint != w.fp {
		return fmt.Errorf("%w: a block for partition %d was made for another schema", ErrInvalidBatch, p)
	}
	b := mapBlock{n: len(block), crc: Checksum(block), rows: h.rows}
	if w.memLen+len(block) > w.memMax {
		if err := w.spillMem(); err != nil {
			return err
		}
	}
	if len(block) > w.memMax {
		if err := w.spillBlock(&b, block); err != nil {
			return err
		}
	} else {
		w.hold(&b, block)
	}
	w.parts[p] = append(w.parts[p], b)
	return nil
}

// hold copies block into the writer's memory and notes where.
func (w *MapOutputWriter) hold(b *mapBlock, block []byte) {
	k := len(w.mem) - 1
	if k < 0 || cap(w.mem[k])-len(w.mem[k]) < len(block) {
		// The next chunk: one kept from before a spill, or a new one.
		k++
		if k == len(w.mem) || cap(w.mem[:k+1][k]) < len(block) {
			w.mem = append(w.mem[:k], make([]byte, 0, max(mapChunk, len(block))))
		} else {
			w.mem = w.mem[:k+1]
		}
	}
	b.chunk, b.off = k, int64(len(w.mem[k]))
	w.mem[k] = append(w.mem[k], block...)
	w.memLen += len(block)
}

// spillFile returns the spill file, created next to the target and
// removed from its directory at once where the system allows, so that a
// killed process leaves nothing behind.
func (w *MapOutputWriter) spillFile() (*os.File, error) {
	if w.spill != nil {
		return w.spill, nil
	}
	dir, base := filepath.Split(w.f.Target())
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-spill-*")
	if err != nil {
		return nil, w.fail(fmt.Errorf("creating the map output's spill file: %w", err))
	}
	os.Remove(f.Name()) // where it fails (Windows), closeSpill removes it
	w.spill = f
	return f, nil
}

// spillBlock writes one block to the spill file and notes where.
func (w *MapOutputWriter) spillBlock(b *mapBlock, block []byte) error {
	f, err := w.spillFile()
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(block, w.spilled); err != nil {
		return w.fail(fmt.Errorf("writing the map output's spill file: %w", err))
	}
	b.off, b.spilled = w.spilled, true
	w.spilled += int64(len(block))
	return nil
}

// spillMem moves the blocks held in memory to the spill file.
func (w *MapOutputWriter) spillMem() error {
	if w.memLen == 0 {
		return nil
	}
	f, err := w.spillFile()
	if err != nil {
		return err
	}
	starts := make([]int64, len(w.mem))
	for k, c := range w.mem {
		starts[k] = w.spilled
		if _, err := f.WriteAt(c, w.spilled); err != nil {
			return w.fail(fmt.Errorf("writing the map output's spill file: %w", err))
		}
		w.spilled += int64(len(c))
	}
	for _, bs := range w.parts {
		for i := range bs {
			if !bs[i].spilled {
				bs[i].off += starts[bs[i].chunk]
				bs[i].spilled = true
			}
		}
	}
	// Keep the chunks, emptied, for the blocks to come.
	for k := range w.mem {
		w.mem[k] = w.mem[k][:0]
	}
	w.mem, w.memLen = w.mem[:0], 0
	return nil
}

// fail records err as the writer's error and returns it.
func (w *MapOutputWriter) fail(err error) error {
	w.err = err
	return err
}

// Close lays out the partitions in order, writes the index and footer,
// syncs the file (unless NoSync) and gives it its name. On an error the
// target is left as it was and nothing of the writer remains. Close after
// Close or Abort does nothing.
func (w *MapOutputWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		w.abort()
		return w.err
	}
	if err := w.write(); err != nil {
		w.abort()
		return w.fail(err)
	}
	w.closeSpill()
	if err := w.f.Commit(); err != nil {
		return w.fail(fmt.Errorf("committing the map output %s: %w", w.f.Target(), err))
	}
	return nil
}

// write writes the whole file in order.
func (w *MapOutputWriter) write() error {
	bw := bufio.NewWriterSize(w.f, 1<<20)
	off := int64(0)
	put := func(b []byte) {
		bw.Write(b) // its error stays in bw, returned by Flush
		off += int64(len(b))
	}
	var fh [frameHeaderSize]byte
	frame := func(block []byte, crc uint32) {
		writeFrame(bw, &fh, block, crc) // likewise
		off += frameHeaderSize + int64(len(block))
	}
	put(mapPreamble())
	put(w.header)
	index := make([]byte, 0, len(w.parts)*mapIndexEntrySize)
	var tmp []byte
	for _, bs := range w.parts {
		start, rows := off, 0
		for _, b := range bs {
			if !b.spilled {
				frame(w.mem[b.chunk][b.off:b.off+int64(b.n)], b.crc)
			} else {
				if cap(tmp) < b.n {
					tmp = make([]byte, b.n)
				}
				tmp = tmp[:b.n]
				if _, err := w.spill.ReadAt(tmp, b.off); err != nil {
					return fmt.Errorf("reading back the map output's spill file: %w", err)
				}
				frame(tmp, b.crc)
			}
			rows += b.rows
		}
		index = binary.LittleEndian.AppendUint64(index, uint64(start))
		index = binary.LittleEndian.AppendUint64(index, uint64(off-start))
		index = binary.LittleEndian.AppendUint64(index, uint64(rows))
		index = binary.LittleEndian.AppendUint64(index, uint64(len(bs)))
	}
	idxOff := off
	put(index)
	put(mapFooter(idxOff, len(w.parts), Checksum(index)))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the map output %s: %w", w.f.Target(), err)
	}
	return nil
}

// Abort discards everything written: no map output appears. It does
// nothing after Close.
func (w *MapOutputWriter) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.abort()
	w.err = fmt.Errorf("%w: the map output was aborted", ErrClosed)
}

func (w *MapOutputWriter) abort() {
	w.closeSpill()
	w.f.Abort()
	w.mem = nil
}

func (w *MapOutputWriter) closeSpill() {
	if w.spill != nil {
		w.spill.Close()
		os.Remove(w.spill.Name()) // gone already where the system allows
		w.spill = nil
	}
}
