package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	pqcompress "github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/durable"
)

// outputFormats are the names -to accepts, with the formats they stand for.
var outputFormats = []struct {
	name string
	f    format
	exts []string // file name extensions that choose the format
}{
	{"arrowpack", formatArrowpack, []string{".apk", ".apks"}},
	{"ipc", formatIPCStream, []string{".arrows", ".stream"}},
	{"ipc-file", formatIPCFile, []string{".arrow", ".feather", ".ipc"}},
	{"parquet", formatParquet, []string{".parquet", ".pq"}},
}

// outputFormat chooses the format to write to path: the one named by to,
// or else the one path's extension stands for.
func outputFormat(to, path string) (format, error) {
	if to != "" {
		for _, o := range outputFormats {
			if strings.EqualFold(to, o.name) {
				return o.f, nil
			}
		}
		return 0, usagef("unknown output format %q: want arrowpack, ipc, ipc-file or parquet", to)
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, o := range outputFormats {
		for _, e := range o.exts {
			if ext == e {
				return o.f, nil
			}
		}
	}
	if path == "-" {
		return 0, usagef("say which format to write to stdout with -to (arrowpack, ipc, ipc-file or parquet)")
	}
	return 0, usagef("cannot tell the output format from the name %s: give -to (arrowpack, ipc, ipc-file or parquet) or name it .apk, .arrows, .arrow or .parquet", path)
}

// writeOptions are how convert writes its output.
type writeOptions struct {
	compression codec.Compression
	level       int
	concurrency int
	// rowGroupRows is the rows of a Parquet row group; 0 means pqarrow's
	// default (parquet.DefaultMaxRowGroupLen).
	rowGroupRows int64
}

// newBatchWriter returns a writer of batches of schema in format f to w.
func newBatchWriter(w io.Writer, f format, schema *arrow.Schema, o writeOptions) (batchWriter, error) {
	if o.compression == codec.MinLZ && f != formatArrowpack {
		return nil, usagef("MinLZ is an arrowpack compression: %s has none; use lz4 or zstd", f)
	}
	if o.compression == codec.Light && f != formatArrowpack {
		return nil, usagef("light is an arrowpack compression: %s has none; use lz4 or zstd", f)
	}
	switch f {
	case formatArrowpack:
		return codec.NewWriter(w, schema, codec.WithCompression(o.compression),
			codec.WithCompressionLevel(o.level), codec.WithConcurrency(o.concurrency))
	case formatIPCStream, formatIPCFile:
		opts := append([]ipc.Option{ipc.WithSchema(schema)}, ipcCompression(o.compression)...)
		if o.compression != codec.None && o.concurrency > 1 {
			opts = append(opts, ipc.WithCompressConcurrency(o.concurrency))
		}
		if f == formatIPCFile {
			return ipc.NewFileWriter(w, opts...)
		}
		return ipc.NewWriter(w, opts...), nil
	case formatParquet:
		pw, err := newParquetWriter(w, schema, o)
		if err != nil {
			return nil, err
		}
		return &bufferedParquet{FileWriter: pw, o: o, probe: refusableColumns(schema)}, nil
	}
	return nil, fmt.Errorf("cannot write a %s", f)
}

// newParquetWriter returns pqarrow's writer of schema to w, with the
// codec, level and row group size of o, the Arrow schema stored.
func newParquetWriter(w io.Writer, schema *arrow.Schema, o writeOptions) (*pqarrow.FileWriter, error) {
	props := []parquet.WriterProperty{parquet.WithCompression(parquetCodec(o.compression))}
	if o.level != 0 {
		props = append(props, parquet.WithCompressionLevel(o.level))
	}
	if o.rowGroupRows > 0 {
		props = append(props, parquet.WithMaxRowGroupLength(o.rowGroupRows))
	}
	pw, err := pqarrow.NewFileWriter(schema, w, parquet.NewWriterProperties(props...),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("Parquet cannot hold this schema: %w", err)
	}
	return pw, nil
}

// bufferedParquet gathers batches into row groups of the writer's maximum
// row group length (WriteBuffered), instead of a row group a batch. Before
// each batch is written it tries alone, to nowhere, the first rows of the
// columns whose values pqarrow may refuse though it took their type
// (refusableColumns), so that a refused column is named before any row of
// its batch is written: pqarrow, refusing a batch part way, closes the
// writer with part of the batch in it, and what it held is lost.
type bufferedParquet struct {
	*pqarrow.FileWriter
	o     writeOptions
	probe []int // the columns tried before each batch
}

// parquetProbeRows is how many rows of each batch the refusable columns are
// tried with. What pqarrow refuses in them is of a dictionary (nested
// values, a null among them), which the first rows hold whole; a refusal
// of other rows is still named, once WriteBuffered fails.
const parquetProbeRows = 4096

func (b *bufferedParquet) Write(rec arrow.RecordBatch) error {
	if len(b.probe) > 0 {
		probe := rec.NewSlice(0, min(rec.NumRows(), parquetProbeRows))
		err := b.refusedColumn(probe, b.probe)
		probe.Release()
		if err != nil {
			return err
		}
	}
	if err := b.WriteBuffered(rec); err != nil {
		if cerr := b.refusedColumn(rec, nil); cerr != nil {
			return cerr
		}
		return err
	}
	return nil
}

// refusableColumns returns the columns of schema whose values pqarrow may
// refuse though it takes the schema: those holding a dictionary, at the top
// or nested (pqarrow refuses a dictionary of nested values, a dictionary
// holding a null, a map of dictionaries), or an extension type.
func refusableColumns(schema *arrow.Schema) []int {
	var cols []int
	for i, f := range schema.Fields() {
		if refusable(f.Type) {
			cols = append(cols, i)
		}
	}
	return cols
}

// refusable reports whether dt is or holds a dictionary or an extension
// type.
func refusable(dt arrow.DataType) bool {
	switch dt := dt.(type) {
	case *arrow.DictionaryType, arrow.ExtensionType:
		return true
	case arrow.NestedType:
		return slices.ContainsFunc(dt.Fields(), func(f arrow.Field) bool { return refusable(f.Type) })
	}
	return false
}

// refusedColumn writes each of the columns cols of rec (nil: every column)
// alone, uncompressed, as a Parquet file to nowhere and returns an error
// naming the first that pqarrow refuses, or nil.
func (b *bufferedParquet) refusedColumn(rec arrow.RecordBatch, cols []int) error {
	if cols == nil {
		for i := range rec.NumCols() {
			cols = append(cols, int(i))
		}
	}
	o := b.o
	o.compression, o.level = codec.None, 0
	for _, i := range cols {
		f := rec.Schema().Field(i)
		schema := arrow.NewSchema([]arrow.Field{f}, nil)
		col := array.NewRecordBatch(schema, []arrow.Array{rec.Column(i)}, rec.NumRows())
		err := func() error {
			defer col.Release()
			pw, err := newParquetWriter(io.Discard, schema, o)
			if err != nil {
				return err
			}
			if err := pw.Write(col); err != nil {
				pw.Close()
				return err
			}
			return pw.Close()
		}()
		if err != nil {
			return fmt.Errorf("Parquet output cannot hold column %s (%s): %w", f.Name, f.Type, err)
		}
	}
	return nil
}

// parquetTypeChanges returns, one a field, the types of schema that a
// Parquet file written with o gives back as other types (date64 as date32,
// time32[s] as time32[ms], ...): what pqarrow itself reads back from an
// empty file of that schema.
func parquetTypeChanges(schema *arrow.Schema, o writeOptions) ([]string, error) {
	back, err := parquetReadBack(schema, o)
	if err != nil {
		return nil, err
	}
	if back.NumFields() != schema.NumFields() {
		return []string{fmt.Sprintf("Parquet gives back %s, not %d", plural(back.NumFields(), "field", "fields"), schema.NumFields())}, nil
	}
	var changes []string
	for i, f := range schema.Fields() {
		if g := back.Field(i); !arrow.TypeEqual(f.Type, g.Type) {
			changes = append(changes, fmt.Sprintf("Parquet cannot hold field %s as %s: it will read back as %s", f.Name, f.Type, g.Type))
		}
	}
	return changes, nil
}

// parquetReadBack returns the schema a Parquet file of schema written
// with o reads back as: what pqarrow reads from an empty file of it.
func parquetReadBack(schema *arrow.Schema, o writeOptions) (*arrow.Schema, error) {
	var buf bytes.Buffer
	pw, err := newParquetWriter(&buf, schema, o)
	if err != nil {
		return nil, err
	}
	if err := pw.Close(); err != nil {
		return nil, fmt.Errorf("Parquet cannot hold this schema: %w", err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("reading back an empty Parquet file of this schema: %w", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("reading back an empty Parquet file of this schema: %w", err)
	}
	back, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("reading back an empty Parquet file of this schema: %w", err)
	}
	return back, nil
}

// parquetCodec returns the Parquet codec for c.
func parquetCodec(c codec.Compression) pqcompress.Compression {
	switch c {
	case codec.LZ4:
		return pqcompress.Codecs.Lz4Raw
	case codec.Zstd:
		return pqcompress.Codecs.Zstd
	}
	return pqcompress.Codecs.Uncompressed
}

// syncer makes committed output files reach the disk: the operating
// system's fsync. Tests substitute one that records the calls.
var syncer durable.Syncer = durable.OS

// outputOptions are the flags of a command that writes a file: whether it
// may replace an existing one, and whether to skip syncing it.
type outputOptions struct {
	force, noSync bool
}

// outputFlags adds -f (-force) and -no-sync to fs, for every command that
// writes a file.
func outputFlags(fs *flag.FlagSet) *outputOptions {
	o := &outputOptions{}
	fs.BoolVar(&o.force, "f", false, "replace the output if it exists")
	fs.BoolVar(&o.force, "force", false, "same as -f")
	fs.BoolVar(&o.noSync, "no-sync", false, "do not wait for the output to reach the disk (faster; a crash soon after may lose it)")
	return o
}

// create starts the output file target as the flags say.
func (o *outputOptions) create(target string) (*safeFile, error) {
	var s durable.Syncer
	if !o.noSync {
		s = syncer
	}
	return createOutput(target, o.force, s)
}

// safeFile is an output file written as a temporary file in the target's
// directory, synced and renamed into place by Commit (internal/durable): a
// failed or interrupted write leaves whatever was at the target untouched,
// and a committed one survives a crash. Until Commit or Abort it is in the
// set that abortOutputs removes at a signal.
type safeFile struct{ *durable.File }

// errExists is returned when the output exists and -f was not given.
var errExists = durable.ErrExists

// outputs are the output files not yet committed or aborted; the lock also
// keeps a Commit and an abortOutputs from running at once.
var outputs struct {
	sync.Mutex
	files map[*safeFile]bool
}

// createSafe starts an output file for target, synced at Commit. Unless
// force is set, an existing target is an error, now and at Commit.
func createSafe(target string, force bool) (*safeFile, error) {
	return createOutput(target, force, syncer)
}

// createOutput starts an output file for target, synced at Commit with s
// (nil: not synced).
func createOutput(target string, force bool, s durable.Syncer) (*safeFile, error) {
	f, err := durable.Create(target, durable.Options{Replace: force, Sync: s})
	if errors.Is(err, durable.ErrExists) {
		return nil, fmt.Errorf("%w: give -f to replace it", err)
	}
	if err != nil {
		return nil, err
	}
	sf := &safeFile{f}
	outputs.Lock()
	if outputs.files == nil {
		outputs.files = make(map[*safeFile]bool)
	}
	outputs.files[sf] = true
	outputs.Unlock()
	return sf, nil
}

// Commit syncs the temporary file, moves it to the target and syncs the
// directory. Without force, a file that appeared at the target meanwhile
// is not replaced either.
func (s *safeFile) Commit() error {
	outputs.Lock()
	defer outputs.Unlock()
	delete(outputs.files, s)
	err := s.File.Commit()
	if errors.Is(err, durable.ErrExists) {
		return fmt.Errorf("%w: give -f to replace it", err)
	}
	return err
}

// Abort removes the temporary file; the target stays as it was. It does
// nothing after Commit.
func (s *safeFile) Abort() {
	outputs.Lock()
	defer outputs.Unlock()
	delete(outputs.files, s)
	s.File.Abort()
}

// abortOutputs aborts every output file not yet committed, for a program
// about to exit at a signal, and returns their targets. A Commit under way
// finishes first (its file is then whole and stays).
func abortOutputs() []string {
	outputs.Lock()
	defer outputs.Unlock()
	var targets []string
	for f := range outputs.files {
		f.File.Abort()
		targets = append(targets, f.Target())
	}
	clear(outputs.files)
	slices.Sort(targets)
	return targets
}
