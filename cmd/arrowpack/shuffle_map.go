package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
)

const mapUsage = "arrowpack map -partitions P (-key COL[,COL...] | -partition-column COL) [-compression C] [-block-rows N] [-memory BYTES] [-f] [-no-sync] INPUT OUT"

const mapAbout = `Writes the map output of one map task of a shuffle: the rows of INPUT (an
arrowpack stream, Arrow IPC or Parquet; "-" reads standard input), each sent
to one of P partitions, in one map-output file OUT, which 'arrowpack serve'
serves by partition and 'arrowpack fetch' reads. A row's partition is the
hash of its -key columns reduced to [0, P) (codec.HashPartitions: nulls go
to partition 0), or the value of its integer -partition-column, which must
be in [0, P).

Each partition's rows are laid out as blocks of about -block-rows rows,
compressed with -compression. At most about -memory bytes of pending rows
are held (the largest partitions are finished early past it) and finished
blocks past a buffer of the same size go to a spill file. OUT appears only
once complete and synced (-no-sync skips the syncs); a failed or
interrupted map leaves no OUT. An existing OUT is replaced only with -f.
`

type mapOptions struct {
	parts       int
	key         string
	partCol     string
	compression string
	blockRows   int
	memory      int
	batchRows   int
	out         *outputOptions
}

func mapFlags() (*flag.FlagSet, *mapOptions) {
	o := &mapOptions{}
	fs := newFlagSet("map")
	fs.IntVar(&o.parts, "partitions", 0, "the number of partitions, P (required)")
	fs.StringVar(&o.key, "key", "", "comma-separated key `columns` whose hash picks a row's partition")
	fs.StringVar(&o.partCol, "partition-column", "", "an integer `column` holding each row's partition")
	fs.StringVar(&o.compression, "compression", "lz4", "compression of the blocks: none, lz4, zstd, minlz or light")
	fs.IntVar(&o.blockRows, "block-rows", 8192, "rows per block of a partition")
	fs.IntVar(&o.memory, "memory", 64<<20, "`bytes` of pending rows held, and of finished blocks before they are spilled")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "rows per batch read from a Parquet INPUT")
	o.out = outputFlags(fs)
	return fs, o
}

func runMap(e *env, args []string) (err error) {
	defer func() { err = interruptedErr(e, err) }()
	fs, o := mapFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want an input and an output file, got %d argument(s)", len(pos))
	}
	switch {
	case o.parts < 1 || o.parts > codec.MaxPartitions:
		return usagef("-partitions must be between 1 and %d", codec.MaxPartitions)
	case (o.key == "") == (o.partCol == ""):
		return usagef("give exactly one of -key and -partition-column")
	case o.blockRows < 1:
		return usagef("-block-rows must be at least 1")
	case o.memory < 1:
		return usagef("-memory must be at least 1")
	case o.batchRows < 1:
		return usagef("-batch-rows must be at least 1")
	case pos[1] == "-":
		return usagef("a map output is a file: name one, not standard output")
	}
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	in, err := openInput(pos[0], e.stdin, o.batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	pick, err := partitionPicker(in.Schema(), o)
	if err != nil {
		return err
	}
	start := time.Now()
	w, err := codec.CreateMapWriter(pos[1], in.Schema(), o.parts,
		codec.MapOutputOptions{Replace: o.out.force, NoSync: o.out.noSync, Buffer: o.memory},
		codec.WithCompression(comp), codec.WithBlockRows(o.blockRows), codec.WithMemoryLimit(o.memory))
	if err != nil {
		return err
	}
	defer w.Abort() // a no-op once closed
	var ids []uint32
	var rows int64
	for in.Next() {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		rec := in.RecordBatch()
		if ids, err = pick(rec, ids); err != nil {
			return fmt.Errorf("%s, rows %d to %d: %w", in.name(), rows, rows+rec.NumRows(), err)
		}
		if err := w.Write(rec, ids); err != nil {
			return fmt.Errorf("%s, rows %d to %d: %w", in.name(), rows, rows+rec.NumRows(), err)
		}
		rows += rec.NumRows()
	}
	if err := in.Err(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%s -> %s: %s in %s (%s), %s\n", in.name(), pos[1], plural(rows, "row", "rows"),
		plural(o.parts, "partition", "partitions"), comp, roundDuration(time.Since(start)))
	return nil
}

// partitionPicker returns the function that fills a batch's partition ids
// as o says.
func partitionPicker(schema *arrow.Schema, o *mapOptions) (func(arrow.RecordBatch, []uint32) ([]uint32, error), error) {
	if o.partCol != "" {
		i, err := columnIndex(schema, o.partCol, "-partition-column")
		if err != nil {
			return nil, err
		}
		if !arrow.IsInteger(schema.Field(i).Type.ID()) {
			return nil, usagef("-partition-column %q is %s, not an integer column", o.partCol, schema.Field(i).Type)
		}
		return func(rec arrow.RecordBatch, ids []uint32) ([]uint32, error) {
			return partitionColumn(rec.Column(i), o.parts, ids)
		}, nil
	}
	var keys []int
	var empty []arrow.Array
	for _, name := range strings.Split(o.key, ",") {
		i, err := columnIndex(schema, strings.TrimSpace(name), "-key")
		if err != nil {
			return nil, err
		}
		keys = append(keys, i)
		empty = append(empty, array.MakeArrayOfNull(memory.DefaultAllocator, schema.Field(i).Type, 0))
	}
	// Refuse key types the hash does not take before reading any row.
	_, err := codec.HashPartitions(nil, o.parts, empty...)
	for _, a := range empty {
		a.Release()
	}
	if err != nil {
		return nil, usagef("-key %s: %v", o.key, err)
	}
	cols := make([]arrow.Array, len(keys))
	return func(rec arrow.RecordBatch, ids []uint32) ([]uint32, error) {
		for k, i := range keys {
			cols[k] = rec.Column(i)
		}
		return codec.HashPartitions(ids, o.parts, cols...)
	}, nil
}

// columnIndex returns the index of the top-level column name.
func columnIndex(schema *arrow.Schema, name, flagName string) (int, error) {
	idx := schema.FieldIndices(name)
	switch len(idx) {
	case 0:
		return 0, usagef("%s: the input has no column %q", flagName, name)
	case 1:
		return idx[0], nil
	}
	return 0, usagef("%s: the input has %d columns named %q", flagName, len(idx), name)
}

// partitionColumn reads an integer column as partition ids in [0, parts).
func partitionColumn(col arrow.Array, parts int, ids []uint32) ([]uint32, error) {
	// One loop over int64s: arrow-go's safe cast refuses a uint64 past them.
	wide, err := compute.CastToType(context.Background(), col, arrow.PrimitiveTypes.Int64)
	if err != nil {
		return nil, fmt.Errorf("the partition column: %v", err)
	}
	defer wide.Release()
	ids = ids[:0]
	for i, v := range wide.(*array.Int64).Int64Values() {
		if col.IsNull(i) {
			return nil, fmt.Errorf("row %d: the partition column is null", i)
		}
		if v < 0 || v >= int64(parts) {
			return nil, fmt.Errorf("row %d: partition %d is not in [0, %d)", i, v, parts)
		}
		ids = append(ids, uint32(v))
	}
	return ids, nil
}

func init() {
	register(command{"map", mapUsage, "write a shuffle's map output: rows split into partitions", mapAbout, runMap,
		func() *flag.FlagSet { fs, _ := mapFlags(); return fs }})
}
