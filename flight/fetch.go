package flight

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"golang.org/x/sync/semaphore"
	"google.golang.org/grpc/metadata"
)

// A PartitionSource is one map output a reducer takes its partition from:
// the map output of descriptor Path on the server Client talks to.
type PartitionSource struct {
	Client aflight.Client
	// Server names the server in errors (its address, say).
	Server string
	// Path is the map output's descriptor path.
	Path []string
}

// FetchOptions configure FetchPartition.
type FetchOptions struct {
	// Concurrency is how many map outputs are fetched at once; 0 means 4.
	Concurrency int
	// MaxBytes bounds the bytes of the batches fetched and not yet
	// handed out by Next; 0 means 64 MiB. A batch larger than MaxBytes is
	// fetched alone.
	MaxBytes int64
	// Recompress asks the servers for blocks compressed with Compression;
	// without it, blocks come as they are stored, without being decoded
	// or encoded on the server.
	Recompress  bool
	Compression codec.Compression
	// Codec are the Decoder options (codec.WithAllocator,
	// codec.WithMaxBlockSize) of the batches read.
	Codec []codec.Option
	// BatchRows, when above 0, coalesces consecutive batches (of any
	// sources) into batches of at least BatchRows rows (the last may have
	// fewer): a copy, held besides MaxBytes.
	BatchRows int
}

// The defaults of FetchOptions.
const (
	DefaultFetchConcurrency = 4
	DefaultFetchBytes       = 64 << 20
)

// A PartitionReader yields the batches of one partition fetched from many
// map outputs at once, in the order they arrive (array.RecordReader). Each
// map output's batches come in their stored order. A failed server, a
// damaged map output or a stream cut short ends the reading with an error
// that names the map output and the server; once Next has returned false
// with a nil Err, every batch of every source has been read whole.
type PartitionReader struct {
	schema *arrow.Schema
	items  chan fetched
	sem    *semaphore.Weighted
	cancel context.CancelFunc
	wg     sync.WaitGroup
	refs   atomic.Int64
	rec    arrow.RecordBatch
	held   int64 // what rec holds of the semaphore
	err    error
	left   int  // sources not yet finished
	first  bool // rec is the first batch, which FetchPartition read for the schema

	batchRows int64          // FetchOptions.BatchRows
	enc       *codec.Encoder // coalescing: the batches joined as a block
	dec       *codec.Decoder
	decOpts   []codec.Option
}

// fetched is what a fetching goroutine hands the reader: a batch with its
// share of the byte budget, or the end of a source (rec nil) with its
// error.
type fetched struct {
	rec    arrow.RecordBatch
	schema *arrow.Schema
	cost   int64
	err    error
	end    bool
}

// FetchPartition starts fetching partition p from every source and returns
// a reader of its batches once the first source has sent its schema. All
// sources must have the same schema (or the reading fails with an error
// wrapping codec.ErrSchemaMismatch). Canceling ctx, or Release, stops the
// fetching.
func FetchPartition(ctx context.Context, p int, sources []PartitionSource, o FetchOptions) (*PartitionReader, error) {
	if len(sources) == 0 {
		return nil, fmt.Errorf("%w: FetchPartition: no sources", codec.ErrInvalidBatch)
	}
	if o.Concurrency < 0 || o.MaxBytes < 0 || o.BatchRows < 0 {
		return nil, fmt.Errorf("%w: FetchPartition: negative Concurrency (%d), MaxBytes (%d) or BatchRows (%d)", codec.ErrUnsupported, o.Concurrency, o.MaxBytes, o.BatchRows)
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultFetchConcurrency
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultFetchBytes
	}
	tickets := make([]*aflight.Ticket, len(sources))
	for i, s := range sources {
		t, err := PartitionTicket(s.Path, p)
		if err != nil {
			return nil, fmt.Errorf("FetchPartition: source %d: %w", i, err)
		}
		tickets[i] = t
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &PartitionReader{items: make(chan fetched, o.Concurrency), sem: semaphore.NewWeighted(o.MaxBytes),
		cancel: cancel, left: len(sources), batchRows: int64(o.BatchRows), decOpts: o.Codec}
	r.refs.Store(1)
	accept := ""
	if o.Recompress {
		accept = o.Compression.String()
	}
	ctx = metadata.AppendToOutgoingContext(ctx, MetadataKey, accept)
	next := make(chan int, len(sources))
	for i := range sources {
		next <- i
	}
	close(next)
	for range min(o.Concurrency, len(sources)) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for i := range next {
				err := r.fetch(ctx, sources[i], tickets[i], o)
				if err != nil {
					err = fmt.Errorf("fetching partition %d of map output %s from %s: %w", p, strings.Join(sources[i].Path, "/"), sources[i].Server, err)
				}
				select {
				case r.items <- fetched{err: err, end: true}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	// The schema comes with the first item of any source.
	r.advance()
	if r.schema == nil {
		err := r.err
		r.Release()
		if err == nil {
			err = fmt.Errorf("%w: FetchPartition: no source sent a schema", codec.ErrCorrupt)
		}
		return nil, err
	}
	r.first = true
	return r, nil
}

// fetch reads partition p of one source, handing its batches to the reader.
func (r *PartitionReader) fetch(ctx context.Context, s PartitionSource, t *aflight.Ticket, o FetchOptions) error {
	stream, err := s.Client.DoGet(ctx, t)
	if err != nil {
		return err
	}
	fr, err := NewReader(stream, o.Codec...)
	if err != nil {
		return err
	}
	defer fr.Release()
	sent := false
	for fr.Next() {
		rec := fr.RecordBatch()
		cost := min(max(batchBytes(rec), 1), o.MaxBytes)
		if err := r.sem.Acquire(ctx, cost); err != nil {
			return err
		}
		rec.Retain()
		select {
		case r.items <- fetched{rec: rec, schema: fr.Schema(), cost: cost}:
			sent = true
		case <-ctx.Done():
			rec.Release()
			r.sem.Release(cost)
			return ctx.Err()
		}
	}
	if err := fr.Err(); err != nil {
		return err
	}
	if !sent {
		// An empty partition still tells its schema.
		select {
		case r.items <- fetched{schema: fr.Schema()}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// advance moves to the next batch, coalesced when asked; false at the end
// or on an error.
func (r *PartitionReader) advance() bool {
	r.drop()
	if !r.take() {
		return false
	}
	if r.batchRows <= 0 || r.rec.NumRows() >= r.batchRows {
		return true
	}
	// The batches coalesced are held outside MaxBytes: at most batchRows
	// rows of them.
	var parts []arrow.RecordBatch
	rows := int64(0)
	for {
		parts = append(parts, r.rec)
		rows += r.rec.NumRows()
		r.sem.Release(r.held)
		r.rec, r.held = nil, 0
		if rows >= r.batchRows || !r.take() {
			break
		}
	}
	defer batches.Release(parts)
	if r.err != nil {
		return false
	}
	rec, err := r.concat(parts)
	if err != nil {
		r.err = err
		r.cancel()
		return false
	}
	r.rec = rec
	return true
}

// concat joins parts into one batch: encoded as one block (which
// concatenates any Arrow type exactly) and decoded.
func (r *PartitionReader) concat(parts []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if r.enc == nil {
		var err error
		if r.enc, err = codec.NewEncoder(r.schema); err != nil {
			return nil, err
		}
		if r.dec, err = codec.NewDecoder(r.schema, r.decOpts...); err != nil {
			return nil, err
		}
	}
	block, err := r.enc.AppendBatches(nil, parts...)
	if err != nil {
		return nil, fmt.Errorf("FetchPartition: coalescing batches: %w", err)
	}
	return r.dec.Decode(block)
}

// take moves to the next batch as fetched; false at the end or on an error.
func (r *PartitionReader) take() bool {
	for r.err == nil && r.left > 0 {
		it := <-r.items
		if it.end {
			r.left--
			r.err = it.err
			continue
		}
		if r.schema == nil {
			r.schema = it.schema
		} else if !it.schema.Equal(r.schema) {
			r.err = fmt.Errorf("%w: FetchPartition: a map output of schema %s among ones of %s", codec.ErrSchemaMismatch, it.schema, r.schema)
		}
		if it.rec == nil {
			continue // an empty partition's schema
		}
		if r.err != nil {
			it.rec.Release()
			r.sem.Release(it.cost)
			break
		}
		r.rec, r.held = it.rec, it.cost
		return true
	}
	if r.err != nil {
		r.cancel()
	}
	return false
}

// drop releases the current batch and its share of the budget.
func (r *PartitionReader) drop() {
	if r.rec != nil {
		r.rec.Release()
		r.sem.Release(r.held)
		r.rec, r.held = nil, 0
	}
}

// Schema returns the partition's schema.
func (r *PartitionReader) Schema() *arrow.Schema { return r.schema }

// Next moves to the next batch, releasing the one before; false at the
// end of every source or on an error (Err).
func (r *PartitionReader) Next() bool {
	if r.first {
		r.first = false
		return r.rec != nil
	}
	return r.advance()
}

// RecordBatch returns the current batch, valid until the next call of Next.
func (r *PartitionReader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current batch (RecordBatch).
//
// Deprecated: use RecordBatch.
func (r *PartitionReader) Record() arrow.RecordBatch { return r.rec }

// Err returns the error that ended the reading, nil at a clean end.
func (r *PartitionReader) Err() error { return r.err }

// Retain adds a reference to the reader.
func (r *PartitionReader) Retain() { r.refs.Add(1) }

// Release removes a reference; at the last one the fetching stops and
// every batch not handed out is released.
func (r *PartitionReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.drop()
	r.cancel()
	go func() {
		for it := range r.items {
			if it.rec != nil {
				it.rec.Release()
			}
		}
	}()
	r.wg.Wait()
	close(r.items)
}

var _ array.RecordReader = (*PartitionReader)(nil)
