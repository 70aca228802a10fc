package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/arrowpack/arrowpack/codec"
)

// format is a kind of input file.
type format int

const (
	formatIPCFile   format = iota + 1 // Arrow IPC file ("ARROW1")
	formatIPCStream                   // Arrow IPC stream
	formatParquet                     // Parquet ("PAR1")
	formatArrowpack                   // arrowpack stream ("APKS")
)

func (f format) String() string {
	switch f {
	case formatIPCFile:
		return "Arrow IPC file"
	case formatIPCStream:
		return "Arrow IPC stream"
	case formatParquet:
		return "Parquet file"
	case formatArrowpack:
		return "arrowpack stream"
	}
	return "unknown format"
}

// defaultBatchRows is the number of rows per batch read from Parquet.
const defaultBatchRows = 64 * 1024

// batchReader is what the readers of every input format have in common.
type batchReader interface {
	Schema() *arrow.Schema
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

// input is an open input file, read batch by batch. Whatever the file holds,
// its readers' failures, panics included, come out of Err as errors.
type input struct {
	path   string
	format format
	size   int64
	f      *os.File
	read   *countingFile
	r      batchReader
	apk    *codec.Reader // the reader when format is formatArrowpack
	extra  func()        // releases what the reader holds beyond itself
	err    error
	closed bool
}

// openInput opens path and detects its format from its first bytes.
// batchRows is the number of rows per batch read from a Parquet file.
func openInput(path string, batchRows int) (_ *input, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	in := &input{path: path, f: f, read: &countingFile{f: f}}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: reading the %s: %v", path, in.format, p)
		}
		if err != nil {
			in.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	in.size = st.Size()
	var magic [8]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if in.format, err = detect(magic[:n], in.size); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// No body in the file can be larger than the file: a corrupted length
	// must not make the IPC reader allocate more.
	limit := ipc.WithBodySizeLimit(max(in.size, 1))
	mem := memory.DefaultAllocator
	switch in.format {
	case formatIPCFile:
		fr, err := ipc.NewFileReader(in.read, limit, ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %v", path, err)
		}
		in.r = &ipcFileReader{r: fr}
	case formatIPCStream:
		r, err := ipc.NewReader(bufio.NewReaderSize(in.read, 1<<20), limit, ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable Arrow IPC stream: %v", path, err)
		}
		in.r = r
	case formatParquet:
		pf, err := file.NewParquetReader(in.read)
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
		}
		in.extra = func() { pf.Close() }
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batchRows)}, mem)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the Parquet schema: %v", path, err)
		}
		rr, err := fr.GetRecordReader(context.Background(), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the Parquet file: %v", path, err)
		}
		in.r = rr
	case formatArrowpack:
		r, err := codec.NewReader(bufio.NewReaderSize(in.read, 1<<20))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		in.r, in.apk = r, r
	}
	return in, nil
}

// detect tells the format of a file of size bytes from its first bytes.
func detect(magic []byte, size int64) (format, error) {
	switch {
	case size == 0:
		return 0, errors.New("the file is empty")
	case bytes.HasPrefix(magic, ipc.Magic):
		return formatIPCFile, nil
	case bytes.HasPrefix(magic, []byte("PAR1")):
		return formatParquet, nil
	case bytes.HasPrefix(magic, []byte("APKS")):
		return formatArrowpack, nil
	case bytes.HasPrefix(magic, []byte("APK1")):
		return 0, errors.New("a single arrowpack block, not an arrowpack stream")
	case bytes.HasPrefix(magic, []byte{0xff, 0xff, 0xff, 0xff}):
		return formatIPCStream, nil
	case len(magic) >= 4:
		// An IPC stream in the format before 0.15 starts with the length
		// of its first message.
		if n := int32(binary.LittleEndian.Uint32(magic)); n > 0 && int64(n) < size {
			return formatIPCStream, nil
		}
	}
	return 0, errors.New("not an Arrow IPC, Parquet or arrowpack file")
}

// Schema returns the input's schema.
func (in *input) Schema() *arrow.Schema { return in.r.Schema() }

// Next advances to the next batch and reports whether there is one; Err
// tells, after false, whether reading ended cleanly.
func (in *input) Next() (ok bool) {
	if in.err != nil || in.closed {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			in.err = fmt.Errorf("%s: reading the %s: %v", in.path, in.format, p)
			ok = false
		}
	}()
	if in.r.Next() {
		return true
	}
	if err := in.r.Err(); err != nil && err != io.EOF {
		if in.format == formatArrowpack {
			in.err = fmt.Errorf("%s: %w", in.path, err)
		} else {
			in.err = fmt.Errorf("%s: reading the %s: %w", in.path, in.format, err)
		}
	}
	return false
}

// RecordBatch returns the current batch, valid until the next call of Next.
func (in *input) RecordBatch() arrow.RecordBatch { return in.r.RecordBatch() }

// Err returns the error that ended the reading, or nil.
func (in *input) Err() error { return in.err }

// Progress returns the bytes read so far and the size of the file.
func (in *input) Progress() (done, total int64) {
	return min(in.read.n.Load(), in.size), in.size
}

// Close releases the reader and closes the file.
func (in *input) Close() {
	if in.closed {
		return
	}
	in.closed = true
	func() {
		defer func() { recover() }()
		if in.r != nil {
			in.r.Release()
		}
		if in.extra != nil {
			in.extra()
		}
	}()
	in.f.Close()
}

// countingFile counts the bytes read from a file, however they are read,
// for a progress bar. Parquet and IPC file readers read with ReadAt and
// Seek; stream readers with Read.
type countingFile struct {
	f *os.File
	n atomic.Int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingFile) Seek(offset int64, whence int) (int64, error) {
	return c.f.Seek(offset, whence)
}

// ipcFileReader reads the batches of an Arrow IPC file in order.
type ipcFileReader struct {
	r   *ipc.FileReader
	i   int
	rec arrow.RecordBatch
	err error
}

func (r *ipcFileReader) Schema() *arrow.Schema { return r.r.Schema() }

func (r *ipcFileReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.err != nil || r.i >= r.r.NumRecords() {
		return false
	}
	r.rec, r.err = r.r.RecordBatchAt(r.i)
	if r.err != nil {
		r.err = fmt.Errorf("batch %d: %w", r.i, r.err)
		return false
	}
	r.i++
	return true
}

func (r *ipcFileReader) RecordBatch() arrow.RecordBatch { return r.rec }

func (r *ipcFileReader) Err() error { return r.err }

func (r *ipcFileReader) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.r.Close()
}

// sameBatch reports whether a and b hold the same values, NaNs equal to
// NaNs.
func sameBatch(a, b arrow.RecordBatch) bool {
	if array.RecordEqual(a, b) {
		return true
	}
	return array.RecordApproxEqual(a, b, array.WithNaNsEqual(true), array.WithAbsTolerance(0))
}
