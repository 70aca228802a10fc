package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// A map-output file holds the P partitions of one map task of a shuffle
// (FORMAT.md, "Map-output files"): a preamble, a stream header with the
// schema, each partition's blocks as stream frames laid end to end in
// partition order, an index of P entries and a fixed footer that finds it.
//
//	preamble:    magic "APKM", version uint8 (1), 3 zero bytes
//	stream header and schema, as a stream's
//	frames:      partition 0's, then partition 1's, ...
//	index:       per partition: offset, length, rows, blocks (uint64 each)
//	footer:      index offset uint64, partitions uint64, index CRC32C
//	             uint32, 4 zero bytes, magic "APKM", version uint8 (1),
//	             3 zero bytes
const (
	mapPreambleSize   = 8
	mapIndexEntrySize = 32
	mapFooterSize     = 32
	mapVersion        = 1
	// MaxPartitions bounds the partitions of a map output, so that its
	// index (32 bytes a partition) stays a small part of memory.
	MaxPartitions = 1 << 20
)

var mapMagic = [4]byte{'A', 'P', 'K', 'M'}

// PartitionInfo is what a map output's index says of one partition.
type PartitionInfo struct {
	Offset int64 // where its first frame starts in the file
	Length int64 // the bytes of its frames (0 for an empty partition)
	Rows   int64 // the rows of its blocks together
	Blocks int64 // its blocks (frames)
}

// A MapOutput reads one map-output file through an io.ReaderAt: its index
// is read and checked when it is opened, and each partition is read with
// one ReadAt of exactly its bytes. Its methods are safe for concurrent use
// when the io.ReaderAt is (an *os.File is).
type MapOutput struct {
	r      io.ReaderAt
	size   int64
	opts   []Option
	cfg    config
	schema *arrow.Schema
	header []byte // the stream header and schema, as a partition's stream starts
	index  []PartitionInfo
}

// OpenMapOutput reads and checks the footer, index and schema of the
// map-output file r of size bytes. Every index entry is checked before
// anything is sized from it: offsets within the file's frames region, in
// partition order without overlap or gaps, lengths multiples of 8 that
// hold at least a frame a block, and block counts that agree with the
// lengths; a file that fails any check is an error wrapping ErrCorrupt.
// Options are a Reader's (WithMaxBlockSize bounds each frame).
func OpenMapOutput(r io.ReaderAt, size int64, opts ...Option) (*MapOutput, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("OpenMapOutput: %w", err)
	}
	m := &MapOutput{r: r, size: size, opts: opts, cfg: cfg}
	if size < mapPreambleSize+streamHeaderSize+mapFooterSize {
		return nil, corruptf("map output of %d bytes is shorter than its preamble, stream header and footer", size)
	}
	var pre [mapPreambleSize]byte
	if err := readAtFull(r, pre[:], 0, "map-output preamble"); err != nil {
		return nil, err
	}
	if [4]byte(pre[:4]) != mapMagic || pre[4] != mapVersion || pre[5]|pre[6]|pre[7] != 0 {
		what := ""
		if [4]byte(pre[:4]) == streamMagic {
			what = " (it is an arrowpack stream)"
		}
		return nil, corruptf("not a map output%s: it starts %q, want magic %q version %d", what, pre[:], mapMagic[:], mapVersion)
	}
	var foot [mapFooterSize]byte
	if err := readAtFull(r, foot[:], size-mapFooterSize, "map-output footer"); err != nil {
		return nil, err
	}
	if [4]byte(foot[24:28]) != mapMagic || foot[28] != mapVersion || foot[29]|foot[30]|foot[31] != 0 ||
		binary.LittleEndian.Uint32(foot[20:]) != 0 {
		return nil, corruptf("map-output footer is not magic %q version %d", mapMagic[:], mapVersion)
	}
	idxOff := binary.LittleEndian.Uint64(foot[0:])
	parts := binary.LittleEndian.Uint64(foot[8:])
	if parts == 0 || parts > MaxPartitions {
		return nil, corruptf("map output of %d partitions: want 1 to %d", parts, MaxPartitions)
	}
	if idxOff > uint64(size) || uint64(size)-idxOff != parts*mapIndexEntrySize+mapFooterSize {
		return nil, corruptf("map-output index of %d partitions at offset %d does not end at the footer of a %d-byte file", parts, idxOff, size)
	}
	if err := m.readHeader(int64(idxOff)); err != nil {
		return nil, err
	}
	raw := make([]byte, parts*mapIndexEntrySize) // checked against the file's size above
	if err := readAtFull(r, raw, int64(idxOff), "map-output index"); err != nil {
		return nil, err
	}
	if got, want := Checksum(raw), binary.LittleEndian.Uint32(foot[16:]); got != want {
		return nil, corruptf("map-output index checksum %#08x, the footer says %#08x", got, want)
	}
	if m.index, err = parseMapIndex(raw, int64(mapPreambleSize+len(m.header)), int64(idxOff)); err != nil {
		return nil, err
	}
	return m, nil
}

// readHeader reads the stream header and schema that follow the preamble,
// which must end at or before end.
func (m *MapOutput) readHeader(end int64) error {
	var h [streamHeaderSize]byte
	if err := readAtFull(m.r, h[:], mapPreambleSize, "map-output stream header"); err != nil {
		return err
	}
	n := binary.LittleEndian.Uint64(h[8:])
	if n > uint64(end) || mapPreambleSize+streamHeaderSize+int64(pad8(int(n))) > end {
		return corruptf("map-output schema of %d bytes runs past the frames' end at %d", n, end)
	}
	hdr := make([]byte, streamHeaderSize+pad8(int(n)))
	if err := readAtFull(m.r, hdr, mapPreambleSize, "map-output schema"); err != nil {
		return err
	}
	for _, c := range hdr[streamHeaderSize+n:] {
		if c != 0 {
			return corruptf("map-output schema padding is not zero")
		}
	}
	rd, err := NewReader(bytes.NewReader(hdr), m.opts...)
	if err != nil {
		return fmt.Errorf("map-output schema: %w", err)
	}
	m.schema, m.header = rd.Schema(), hdr
	return nil
}

// parseMapIndex reads the index entries in raw and checks them against the
// frames region [start, end) of the file.
func parseMapIndex(raw []byte, start, end int64) ([]PartitionInfo, error) {
	index := make([]PartitionInfo, len(raw)/mapIndexEntrySize)
	next := uint64(start)
	for p := range index {
		e := raw[p*mapIndexEntrySize:]
		off := binary.LittleEndian.Uint64(e[0:])
		n := binary.LittleEndian.Uint64(e[8:])
		rows := binary.LittleEndian.Uint64(e[16:])
		blocks := binary.LittleEndian.Uint64(e[24:])
		switch {
		case off != next:
			return nil, corruptf("map-output partition %d starts at %d, want %d (right after partition %d)", p, off, next, p-1)
		case n > uint64(end)-off:
			return nil, corruptf("map-output partition %d of %d bytes at %d runs past the frames' end at %d", p, n, off, end)
		case n%8 != 0:
			return nil, corruptf("map-output partition %d is %d bytes, not a multiple of 8", p, n)
		case (n == 0) != (blocks == 0) || blocks > n/(frameHeaderSize+headerSize):
			return nil, corruptf("map-output partition %d claims %d blocks in %d bytes", p, blocks, n)
		case rows > maxLength || (blocks == 0 && rows != 0):
			return nil, corruptf("map-output partition %d claims %d rows in %d blocks", p, rows, blocks)
		}
		index[p] = PartitionInfo{Offset: int64(off), Length: int64(n), Rows: int64(rows), Blocks: int64(blocks)}
		next = off + n
	}
	if next != uint64(end) {
		return nil, corruptf("map-output partitions end at %d, the index starts at %d", next, end)
	}
	return index, nil
}

// readAtFull reads len(b) bytes at off, reporting a short read as
// ErrCorrupt (the file is shorter than its index says).
func readAtFull(r io.ReaderAt, b []byte, off int64, what string) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		return corruptf("%s truncated: %d of %d bytes at offset %d", what, n, len(b), off)
	}
	return fmt.Errorf("reading the %s: %w", what, err)
}

// Schema returns the map output's schema.
func (m *MapOutput) Schema() *arrow.Schema { return m.schema }

// NumPartitions returns the number of partitions, P.
func (m *MapOutput) NumPartitions() int { return len(m.index) }

// Partition returns what the index says of partition p, with an error
// wrapping ErrInvalidBatch when p is not in [0, P).
func (m *MapOutput) Partition(p int) (PartitionInfo, error) {
	if p < 0 || p >= len(m.index) {
		return PartitionInfo{}, fmt.Errorf("%w: partition %d of a map output of %d partitions", ErrInvalidBatch, p, len(m.index))
	}
	return m.index[p], nil
}

// ReadPartition reads partition p's frames with one ReadAt (into dst when
// its capacity is enough) and checks them: every frame's length and CRC32C,
// every block's header, and the block and row counts against the index. It
// returns the frames as they are stored, to pass on or to read with
// PartitionStream. A mismatch is an error wrapping ErrCorrupt that names
// the partition.
func (m *MapOutput) ReadPartition(p int, dst []byte) ([]byte, error) {
	info, err := m.Partition(p)
	if err != nil {
		return nil, err
	}
	if int64(cap(dst)) < info.Length {
		dst = make([]byte, info.Length) // at most the file's size: checked at open
	}
	dst = dst[:info.Length]
	if err := readAtFull(m.r, dst, info.Offset, fmt.Sprintf("map-output partition %d", p)); err != nil {
		return nil, err
	}
	if err := m.checkFrames(p, info, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// checkFrames walks the frames of partition p against its index entry.
func (m *MapOutput) checkFrames(p int, info PartitionInfo, b []byte) error {
	var blocks, rows int64
	fp := fingerprint(m.schema)
	for len(b) > 0 {
		if len(b) < frameHeaderSize {
			return corruptf("map-output partition %d: a frame header cut at %d bytes", p, len(b))
		}
		n := binary.LittleEndian.Uint64(b)
		crc := binary.LittleEndian.Uint32(b[8:])
		if binary.LittleEndian.Uint32(b[12:]) != 0 {
			return corruptf("map-output partition %d, block %d: frame header has nonzero reserved bytes", p, blocks)
		}
		b = b[frameHeaderSize:]
		if n == 0 || n > uint64(len(b)) || n%8 != 0 || n > uint64(m.cfg.maxBlock) {
			return corruptf("map-output partition %d, block %d: frame of %d bytes where %d are left (limit %d)", p, blocks, n, len(b), m.cfg.maxBlock)
		}
		block := b[:n]
		if err := (RawBlock{Bytes: block, CRC: crc}).Verify(); err != nil {
			return fmt.Errorf("map-output partition %d, block %d: %w", p, blocks, err)
		}
		h, err := parseHeader(block)
		if err != nil {
			return fmt.Errorf("map-output partition %d, block %d: %w", p, blocks, err)
		}
		if h.fingerprint != fp {
			return fmt.Errorf("%w: map-output partition %d, block %d was made for another schema", ErrSchemaMismatch, p, blocks)
		}
		blocks++
		rows += int64(h.rows)
		b = b[n:]
	}
	if blocks != info.Blocks || rows != info.Rows {
		return corruptf("map-output partition %d holds %d blocks of %d rows, its index says %d of %d", p, blocks, rows, info.Blocks, info.Rows)
	}
	return nil
}

// PartitionStream returns the arrowpack stream of partition p (its frames
// as ReadPartition returns them): the map output's stream header, the
// frames and an end frame, which a Reader or RawReader reads like any
// stream.
func (m *MapOutput) PartitionStream(p int, frames []byte) io.Reader {
	var blocks int64
	if p >= 0 && p < len(m.index) {
		blocks = m.index[p].Blocks
	}
	return m.stream(bytes.NewReader(frames), blocks)
}

// stream returns the stream of a partition's frames, read from frames:
// the map output's stream header, the frames, and an end frame of blocks.
func (m *MapOutput) stream(frames io.Reader, blocks int64) io.Reader {
	var end [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(end[8:], uint64(blocks))
	return io.MultiReader(bytes.NewReader(m.header), frames, bytes.NewReader(end[:]))
}

// NewPartitionReader reads and checks partition p (ReadPartition) and
// returns a Reader of its batches. Options are a Reader's.
func (m *MapOutput) NewPartitionReader(p int, opts ...Option) (*Reader, error) {
	frames, err := m.ReadPartition(p, nil)
	if err != nil {
		return nil, err
	}
	return NewReader(m.PartitionStream(p, frames), opts...)
}

// Rows returns the rows of all partitions together.
func (m *MapOutput) Rows() int64 {
	var n int64
	for _, e := range m.index {
		n += e.Rows // each at most maxLength, at most MaxPartitions of them
	}
	return n
}

// mapFooter returns the footer for an index of parts entries at off whose
// bytes have CRC32C crc.
func mapFooter(off int64, parts int, crc uint32) []byte {
	f := make([]byte, mapFooterSize)
	binary.LittleEndian.PutUint64(f[0:], uint64(off))
	binary.LittleEndian.PutUint64(f[8:], uint64(parts))
	binary.LittleEndian.PutUint32(f[16:], crc)
	copy(f[24:], mapMagic[:])
	f[28] = mapVersion
	return f
}

// mapPreamble returns the preamble of a map-output file.
func mapPreamble() []byte {
	return append(mapMagic[:len(mapMagic):len(mapMagic)], mapVersion, 0, 0, 0)
}

// OpenPartition returns partition p as an arrowpack stream that is read
// from the file as it is consumed, for partitions too large to hold at
// once: the stream header, the partition's frames (only its own bytes of
// the file) and an end frame with the block count of the index. Its frames
// are not checked here; a Reader or RawReader of it checks them as it
// reads (framing, checksums, the block count), and the caller compares
// the rows it reads with Partition(p).Rows.
func (m *MapOutput) OpenPartition(p int) (io.Reader, error) {
	info, err := m.Partition(p)
	if err != nil {
		return nil, err
	}
	return m.stream(io.NewSectionReader(m.r, info.Offset, info.Length), info.Blocks), nil
}
