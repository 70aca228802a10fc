package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// mapCase is a map output written in a test and the batches each of its
// partitions should read back as.
type mapCase struct {
	path   string
	schema *arrow.Schema
	want   [][]arrow.RecordBatch // per partition, in the order written
}

// writeMapCase encodes recs with opts and sends each block to a partition
// drawn from r, some partitions left empty, through a MapOutputWriter.
func writeMapCase(t testing.TB, dir string, r *rand.Rand, schema *arrow.Schema, recs []arrow.RecordBatch, parts int, o MapOutputOptions, opts ...Option) mapCase {
	t.Helper()
	enc, err := NewEncoder(schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "map.apkm")
	w, err := CreateMapOutput(path, schema, parts, o)
	if err != nil {
		t.Fatal(err)
	}
	mc := mapCase{path: path, schema: schema, want: make([][]arrow.RecordBatch, parts)}
	for _, rec := range recs {
		p := r.IntN(max(1, parts-parts/3)) // the last third of the partitions stay empty
		block, err := enc.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteBlock(p, block); err != nil {
			t.Fatal(err)
		}
		clear(block) // the writer must have copied it
		mc.want[p] = append(mc.want[p], rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return mc
}

// check reads every partition of the map output back.
func (mc mapCase) check(t testing.TB) {
	t.Helper()
	f, err := os.Open(mc.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	m, err := OpenMapOutput(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if m.NumPartitions() != len(mc.want) {
		t.Fatalf("%d partitions, wrote %d", m.NumPartitions(), len(mc.want))
	}
	if fingerprint(m.Schema()) != fingerprint(mc.schema) {
		t.Fatalf("schema %s, wrote %s", m.Schema(), mc.schema)
	}
	var total int64
	for p, want := range mc.want {
		info, _ := m.Partition(p)
		var rows int64
		for _, rec := range want {
			rows += rec.NumRows()
		}
		total += rows
		if info.Rows != rows || info.Blocks != int64(len(want)) {
			t.Fatalf("partition %d: index says %d rows in %d blocks, wrote %d in %d", p, info.Rows, info.Blocks, rows, len(want))
		}
		if len(want) == 0 && info.Length != 0 {
			t.Fatalf("empty partition %d takes %d bytes", p, info.Length)
		}
		rd, err := m.NewPartitionReader(p)
		if err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
		i := 0
		for rd.Next() {
			checkSame(t, want[i], rd.RecordBatch(), rd.Schema())
			i++
		}
		if err := rd.Err(); err != nil || i != len(want) {
			t.Fatalf("partition %d: read %d of %d batches: %v", p, i, len(want), err)
		}
		rd.Release()
	}
	if m.Rows() != total {
		t.Fatalf("Rows() = %d, wrote %d", m.Rows(), total)
	}
}

func TestMapOutputRoundTrip(t *testing.T) {
	for _, c := range []Compression{None, LZ4, Zstd, MinLZ, Light} {
		for _, buf := range []int{0, -1, 3000} { // in memory, every block spilled, a mix
			r, schema, recs := seededBatches(t, uint64(10+buf), 6, 2, 30)
			for _, parts := range []int{1, 7, 200} {
				mc := writeMapCase(t, t.TempDir(), r, schema, recs, parts, MapOutputOptions{Buffer: buf, NoSync: true}, WithCompression(c))
				mc.check(t)
			}
		}
	}
}

// TestMapOutputReadsOnePartition: reading a partition reads its own bytes
// and nothing else of the file past the index.
func TestMapOutputReadsOnePartition(t *testing.T) {
	r, schema, recs := seededBatches(t, 3, 4, 1, 20)
	mc := writeMapCase(t, t.TempDir(), r, schema, recs, 5, MapOutputOptions{NoSync: true})
	data, err := os.ReadFile(mc.path)
	if err != nil {
		t.Fatal(err)
	}
	ra := &recordingReaderAt{data: data}
	m, err := OpenMapOutput(ra, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for p := range m.NumPartitions() {
		info, _ := m.Partition(p)
		ra.reads = nil
		if _, err := m.ReadPartition(p, nil); err != nil {
			t.Fatal(err)
		}
		if info.Length == 0 && len(ra.reads) == 0 {
			continue
		}
		if len(ra.reads) != 1 || ra.reads[0] != [2]int64{info.Offset, info.Length} {
			t.Fatalf("partition %d (%d bytes at %d): reads %v, want exactly its bytes", p, info.Length, info.Offset, ra.reads)
		}
	}
}

type recordingReaderAt struct {
	data  []byte
	reads [][2]int64
}

func (r *recordingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	r.reads = append(r.reads, [2]int64{off, int64(len(b))})
	return bytes.NewReader(r.data).ReadAt(b, off)
}

// TestMapOutputGolden: the uncompressed map output of the golden batches is
// byte for byte the committed one, and the committed one reads back.
func TestMapOutputGolden(t *testing.T) {
	schema, recs := goldenBatches()
	defer batches.Release(recs)
	r := rand.New(rand.NewPCG(7, 7))
	mc := writeMapCase(t, t.TempDir(), r, schema, append(recs, recs...), 4, MapOutputOptions{NoSync: true})
	path := filepath.Join("testdata", "golden", "mapout-all-types-none.apkm")
	data, err := os.ReadFile(mc.path)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codec -run TestMapOutputGolden -update to create it)", err)
	}
	if !bytes.Equal(data, golden) {
		t.Fatalf("the map output written now (%d bytes) differs from the committed %s (%d bytes)", len(data), path, len(golden))
	}
	mc.path = path
	mc.check(t)
}

// openAll opens data as a map output and reads every partition, returning
// the first error.
func openAll(data []byte) error {
	m, err := OpenMapOutput(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for p := range m.NumPartitions() {
		rd, err := m.NewPartitionReader(p)
		if err != nil {
			return err
		}
		for rd.Next() {
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// mapParts returns the index offset and partitions of a valid map output.
func mapParts(data []byte) (idx, parts int) {
	foot := data[len(data)-mapFooterSize:]
	return int(binary.LittleEndian.Uint64(foot)), int(binary.LittleEndian.Uint64(foot[8:]))
}

// resealIndex recomputes the footer's index checksum, so that a changed
// index entry meets the structural checks, not the checksum.
func resealIndex(data []byte) {
	idx, parts := mapParts(data)
	binary.LittleEndian.PutUint32(data[len(data)-mapFooterSize+16:], Checksum(data[idx:idx+parts*mapIndexEntrySize]))
}

// TestMapOutputHostile attacks a valid map output by structure: index
// entries that overlap, leave gaps, run past the end or claim other
// counts, footers that lie, with the index checksum made right, and
// truncations and flipped bytes everywhere. Every one is refused with
// ErrCorrupt, at open or when the partition is read: never fewer rows
// taken as the whole.
func TestMapOutputHostile(t *testing.T) {
	r, schema, recs := seededBatches(t, 5, 3, 1, 12)
	mc := writeMapCase(t, t.TempDir(), r, schema, recs, 4, MapOutputOptions{NoSync: true}, WithCompression(LZ4))
	good, err := os.ReadFile(mc.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := openAll(good); err != nil {
		t.Fatal(err)
	}
	idx, parts := mapParts(good)
	refuse := func(name string, data []byte) {
		t.Helper()
		if err := openAll(data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
	entry := func(data []byte, p, field int) []byte { return data[idx+p*mapIndexEntrySize+8*field:] }
	for p := range parts {
		for field, name := range []string{"offset", "length", "rows", "blocks"} {
			for _, delta := range []int64{-8, 8, 1, -1, 1 << 40} {
				bad := bytes.Clone(good)
				v := int64(binary.LittleEndian.Uint64(entry(bad, p, field)))
				binary.LittleEndian.PutUint64(entry(bad, p, field), uint64(v+delta))
				resealIndex(bad)
				refuse(name+" of a partition changed", bad)
			}
		}
	}
	// Two partitions swapped in the index (each entry valid alone).
	bad := bytes.Clone(good)
	a, b := entry(bad, 0, 0)[:mapIndexEntrySize], entry(bad, 1, 0)[:mapIndexEntrySize]
	tmp := bytes.Clone(a)
	copy(a, b)
	copy(b, tmp)
	resealIndex(bad)
	refuse("entries swapped", bad)
	// A footer that claims more or fewer partitions, or another index offset.
	for _, d := range []int64{-1, 1, 1 << 20, -int64(parts)} {
		bad := bytes.Clone(good)
		binary.LittleEndian.PutUint64(bad[len(bad)-mapFooterSize+8:], uint64(int64(parts)+d))
		refuse("footer partitions", bad)
		bad = bytes.Clone(good)
		binary.LittleEndian.PutUint64(bad[len(bad)-mapFooterSize:], uint64(int64(idx)+8*d))
		refuse("footer index offset", bad)
	}
	// Truncated anywhere, and every byte flipped.
	step := 1
	if testing.Short() {
		step = 7 // under the race detector
	}
	for n := 0; n < len(good); n += step {
		refuse("truncated", good[:n])
	}
	for i := 0; i < len(good); i += step {
		bad := bytes.Clone(good)
		bad[i] ^= 0x41
		if err := openAll(bad); err == nil {
			t.Errorf("byte %d of %d flipped: the map output still reads", i, len(good))
		} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Errorf("byte %d of %d flipped: %v, want ErrCorrupt", i, len(good), err)
		}
	}
}

// TestMapOutputWriterErrors: bad calls are refused and leave the writer as
// it was; Abort and a failed Close leave no file.
func TestMapOutputWriterErrors(t *testing.T) {
	_, schema, recs := seededBatches(t, 9, 3, 1, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.apkm")
	if _, err := CreateMapOutput(path, schema, 0, MapOutputOptions{}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("0 partitions: %v", err)
	}
	w, err := CreateMapOutput(path, schema, 3, MapOutputOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := NewEncoder(schema)
	block, _ := enc.Append(nil, recs[0])
	for _, p := range []int{-1, 3} {
		if err := w.WriteBlock(p, block); !errors.Is(err, ErrInvalidBatch) {
			t.Fatalf("partition %d: %v", p, err)
		}
	}
	if err := w.WriteBlock(0, block[:len(block)-8]); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("cut block: %v", err)
	}
	_, otherSchema, otherRecs := seededBatches(t, 10, 2, 0, 1)
	otherEnc, _ := NewEncoder(otherSchema)
	otherBlock, _ := otherEnc.Append(nil, otherRecs[0])
	if err := w.WriteBlock(0, otherBlock); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("a block of another schema: %v", err)
	}
	if err := w.WriteBlock(1, block); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if err := w.WriteBlock(1, block); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Abort: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Abort left %v", ents)
	}
	// An existing target is not replaced unless asked.
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateMapOutput(path, schema, 3, MapOutputOptions{}); err == nil {
		t.Fatal("an existing target was accepted without Replace")
	}
	w, err = CreateMapOutput(path, schema, 3, MapOutputOptions{Replace: true, Buffer: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(2, block); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("after Close the directory holds %v, want the map output alone", ents)
	}
}

// FuzzMapOutput: any bytes opened as a map output and read partition by
// partition give batches or an error wrapping ErrCorrupt (or
// ErrSchemaMismatch), never a panic.
func FuzzMapOutput(f *testing.F) {
	// Small seeds: the fuzzer's mutations are spread over fewer bytes.
	r, schema, recs := seededBatches(f, 5, 2, 0, 3)
	for _, c := range []Compression{None, LZ4} {
		mc := writeMapCase(f, f.TempDir(), r, schema, recs, 3, MapOutputOptions{NoSync: true}, WithCompression(c))
		data, err := os.ReadFile(mc.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := openAll(data)
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("error wraps neither ErrCorrupt nor ErrSchemaMismatch: %v", err)
		}
	})
}
