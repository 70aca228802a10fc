package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The shuffle commands: partitions shows a map output's index, fetch reads
// one partition from map-output files and servers.

const partitionsUsage = "arrowpack partitions [-json] MAPOUTPUT"

const partitionsAbout = `Shows the index of a map-output file (one map task's partitions of a
shuffle, as 'arrowpack map' writes it): its schema, then per partition its
rows, blocks and bytes, then the totals. The index is checked as a reader
checks it; the partitions' blocks are not read.
`

type partitionsReport struct {
	File       string            `json:"file"`
	Size       int64             `json:"size"`
	Schema     string            `json:"schema"`
	Partitions []partitionReport `json:"partitions"`
	Rows       int64             `json:"rows"`
	Empty      int               `json:"empty_partitions"`
}

type partitionReport struct {
	Partition int   `json:"partition"`
	Rows      int64 `json:"rows"`
	Blocks    int64 `json:"blocks"`
	Bytes     int64 `json:"bytes"`
}

func partitionsFlags() (*flag.FlagSet, *bool) {
	fs := newFlagSet("partitions")
	return fs, fs.Bool("json", false, "print the index as JSON")
}

func runPartitions(e *env, args []string) error {
	fs, asJSON := partitionsFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one map-output file, got %d argument(s)", len(pos))
	}
	f, m, size, err := openMapOutput(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	rep := partitionsReport{File: pos[0], Size: size, Schema: m.Schema().String(), Rows: m.Rows()}
	for p := range m.NumPartitions() {
		info, _ := m.Partition(p)
		rep.Partitions = append(rep.Partitions, partitionReport{p, info.Rows, info.Blocks, info.Length})
		if info.Blocks == 0 {
			rep.Empty++
		}
	}
	if *asJSON {
		return printJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stdout, "%s: map output, %d bytes, %s, %s (%d empty)\n", pos[0], size,
		plural(m.NumPartitions(), "partition", "partitions"), plural(rep.Rows, "row", "rows"), rep.Empty)
	for _, fld := range m.Schema().Fields() {
		fmt.Fprintf(e.stdout, "  %s: %s\n", escapeText(fld.Name), fld.Type)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "partition\trows\tblocks\tbytes\t")
	for _, p := range rep.Partitions {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t\n", p.Partition, p.Rows, p.Blocks, p.Bytes)
	}
	return tw.Flush()
}

// openMapOutput opens a map-output file and reads its index.
func openMapOutput(path string) (*os.File, *codec.MapOutput, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, 0, err
	}
	m, err := codec.OpenMapOutput(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return f, m, st.Size(), nil
}

const fetchUsage = "arrowpack fetch -p N [-to FORMAT] [-f] [-no-sync] [-compression C] [-concurrency N] [-max-bytes N] SOURCE... OUT"

const fetchAbout = `Reads partition N of a shuffle from its map outputs and writes its rows
to OUT, in the format -to names or OUT's extension stands for, as convert
does (an arrowpack stream without one, or on "-", standard output).

Each SOURCE is a map-output file, or a map output a Flight server such as
'arrowpack serve' serves, as grpc://HOST:PORT/PATH (PATH its descriptor
path, elements separated by '/'). Files are read first, in order; the
servers' partitions are fetched -concurrency at a time, as stored (their
blocks pass through), and their batches written as they arrive. A damaged
map output, or a server that fails during the fetch, is an error naming it,
and no output is left: a partition is written whole or not at all.
`

type fetchOptions struct {
	part        int
	concurrency int
	maxBytes    int64
	transport   transportOptions
	compression string
	to          string
	timeout     time.Duration
	out         *outputOptions
}

func fetchFlags() (*flag.FlagSet, *fetchOptions) {
	o := &fetchOptions{}
	fs := newFlagSet("fetch")
	fs.IntVar(&o.part, "p", -1, "the `partition` to read (required)")
	fs.IntVar(&o.concurrency, "concurrency", flight.DefaultFetchConcurrency, "map outputs fetched from servers at once")
	fs.Int64Var(&o.maxBytes, "max-bytes", flight.DefaultFetchBytes, "`bytes` of batches fetched from servers and not yet written")
	fs.StringVar(&o.compression, "compression", "lz4", "compression of an arrowpack output: none, lz4, zstd, minlz or light")
	o.transport.flags(fs)
	fs.StringVar(&o.to, "to", "", "output `format`: arrowpack, ipc, ipc-file or parquet (default: from the output's extension; arrowpack without one)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	o.out = outputFlags(fs)
	return fs, o
}

// fetchSource is a SOURCE argument: a file, or a server's map output.
type fetchSource struct {
	file string
	addr string
	path []string
}

func parseFetchSource(s string) (fetchSource, error) {
	rest, ok := strings.CutPrefix(s, "grpc://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "grpc+tcp://")
	}
	if !ok {
		return fetchSource{file: s}, nil
	}
	addr, p, found := strings.Cut(rest, "/")
	if !found || addr == "" {
		return fetchSource{}, usagef("source %q: want grpc://HOST:PORT/PATH", s)
	}
	path, err := descriptorPath(p)
	if err != nil {
		return fetchSource{}, err
	}
	return fetchSource{addr: addr, path: path}, nil
}

func runFetch(e *env, args []string) (err error) {
	defer func() { err = interruptedErr(e, err) }()
	fs, o := fetchFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("want one or more sources and an output file, got %d argument(s)", len(pos))
	}
	if o.part < 0 {
		return usagef("-p (the partition) is required and must be 0 or above")
	}
	if o.concurrency < 1 {
		return usagef("-concurrency must be at least 1")
	}
	if o.timeout <= 0 {
		return usagef("-timeout must be above 0")
	}
	if o.maxBytes < 1 {
		return usagef("-max-bytes must be at least 1")
	}
	if err := o.transport.check(); err != nil {
		return err
	}
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	var srcs []fetchSource
	for _, a := range pos[:len(pos)-1] {
		s, err := parseFetchSource(a)
		if err != nil {
			return err
		}
		srcs = append(srcs, s)
	}
	outPath := pos[len(pos)-1]
	out, err := createGetOutput(e, o.out, o.to, outPath)
	if err != nil {
		return err
	}
	defer out.abort()
	outFormat, sf, sink, outName := out.format, out.sf, out.sink, out.name
	ctx, cancel := context.WithTimeout(e.ctx, o.timeout)
	defer cancel()
	r, closeAll, err := openFetch(ctx, o, srcs)
	if err != nil {
		return err
	}
	defer closeAll()
	st, err := writeFlight(sink, r, outFormat, writeOptions{compression: comp, concurrency: 1})
	if err != nil {
		return fmt.Errorf("fetch partition %d -> %s: %w", o.part, outName, err)
	}
	if sf != nil {
		if err := sf.Commit(); err != nil {
			return fmt.Errorf("writing %s: %w", outPath, err)
		}
	}
	fmt.Fprintf(e.stderr, "partition %d of %s -> %s (%s): %s, %s\n", o.part, plural(len(srcs), "map output", "map outputs"), outName, outFormat,
		plural(st.batches, "batch", "batches"), plural(st.rows, "row", "rows"))
	return nil
}

// openFetch returns a reader of partition o.part of every source: the
// files' in order, then the servers'.
func openFetch(ctx context.Context, o *fetchOptions, srcs []fetchSource) (array.RecordReader, func(), error) {
	var readers []array.RecordReader
	var closers []func()
	closeAll := func() {
		for _, r := range readers {
			r.Release()
		}
		for _, c := range closers {
			c()
		}
	}
	clients := map[string]aflight.Client{}
	var remote []flight.PartitionSource
	for _, s := range srcs {
		if s.file == "" {
			c, ok := clients[s.addr]
			if !ok {
				opts := append(flight.GRPCDialOptions(o.transport.options()...), grpc.WithTransportCredentials(insecure.NewCredentials()))
				var err error
				if c, err = aflight.NewClientWithMiddleware(s.addr, nil, nil, opts...); err != nil {
					closeAll()
					return nil, nil, fmt.Errorf("connecting to %s: %w", s.addr, err)
				}
				clients[s.addr] = c
				closers = append(closers, func() { c.Close() })
			}
			remote = append(remote, flight.PartitionSource{Client: c, Server: s.addr, Path: s.path})
			continue
		}
		f, m, _, err := openMapOutput(s.file)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, func() { f.Close() })
		r, err := m.NewPartitionReader(o.part)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("%s: %w", s.file, err)
		}
		readers = append(readers, r)
	}
	if len(remote) > 0 {
		r, err := flight.FetchPartition(ctx, o.part, remote, flight.FetchOptions{Concurrency: o.concurrency, MaxBytes: o.maxBytes})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		readers = append(readers, r)
	}
	return &chainReader{readers: readers}, closeAll, nil
}

// chainReader reads its readers one after another; they must share one
// schema.
type chainReader struct {
	readers []array.RecordReader
	i       int
	err     error
}

func (c *chainReader) Schema() *arrow.Schema { return c.readers[0].Schema() }

func (c *chainReader) Next() bool {
	for c.err == nil && c.i < len(c.readers) {
		r := c.readers[c.i]
		if !r.Schema().Equal(c.Schema()) {
			c.err = fmt.Errorf("%w: a map output of schema %s among ones of %s", codec.ErrSchemaMismatch, r.Schema(), c.Schema())
			return false
		}
		if r.Next() {
			return true
		}
		c.err = r.Err()
		c.i++
	}
	return false
}

func (c *chainReader) RecordBatch() arrow.RecordBatch { return c.readers[c.i].RecordBatch() }
func (c *chainReader) Record() arrow.RecordBatch      { return c.RecordBatch() }
func (c *chainReader) Err() error                     { return c.err }
func (c *chainReader) Retain()                        {}
func (c *chainReader) Release()                       {}

func init() {
	register(command{"partitions", partitionsUsage, "show the index of a map-output file", partitionsAbout, runPartitions,
		func() *flag.FlagSet { fs, _ := partitionsFlags(); return fs }})
	register(command{"fetch", fetchUsage, "read one partition from map outputs (files or servers)", fetchAbout, runFetch,
		func() *flag.FlagSet { fs, _ := fetchFlags(); return fs }})
}
