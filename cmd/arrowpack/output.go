package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	pqcompress "github.com/apache/arrow-go/v18/parquet/compress"
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
		props := []parquet.WriterProperty{parquet.WithCompression(parquetCodec(o.compression))}
		if o.level != 0 {
			props = append(props, parquet.WithCompressionLevel(o.level))
		}
		pw, err := pqarrow.NewFileWriter(schema, w, parquet.NewWriterProperties(props...),
			pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return nil, fmt.Errorf("Parquet cannot hold this schema: %w", err)
		}
		return pw, nil
	}
	return nil, fmt.Errorf("cannot write a %s", f)
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

// safeFile is an output file written as a temporary file in the target's
// directory, synced and renamed into place by Commit (internal/durable): a
// failed or interrupted write leaves whatever was at the target untouched,
// and a committed one survives a crash.
type safeFile struct{ *durable.File }

// errExists is returned when the output exists and -f was not given.
var errExists = durable.ErrExists

// createSafe starts an output file for target. Unless force is set, an
// existing target is an error, now and at Commit.
func createSafe(target string, force bool) (*safeFile, error) {
	f, err := durable.Create(target, durable.Options{Replace: force, Sync: durable.OS})
	if errors.Is(err, durable.ErrExists) {
		return nil, fmt.Errorf("%w: give -f to replace it", err)
	}
	if err != nil {
		return nil, err
	}
	return &safeFile{f}, nil
}

// Commit syncs the temporary file, moves it to the target and syncs the
// directory. Without force, a file that appeared at the target meanwhile
// is not replaced either.
func (s *safeFile) Commit() error {
	err := s.File.Commit()
	if errors.Is(err, durable.ErrExists) {
		return fmt.Errorf("%w: give -f to replace it", err)
	}
	return err
}
