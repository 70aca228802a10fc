package flight

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/durable"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A Server is a Flight service that keeps streams in a directory as
// arrowpack stream files, so that a restart keeps them. DoPut stores a
// stream (arrowpack or IPC FlightData, read with a Reader) under its
// descriptor path once the whole stream has been read and checked; a
// stream that is malformed, corrupt or cut short is refused with a gRPC
// status and stores nothing. A put onto a path that holds a stream fails
// with codes.AlreadyExists unless the client asked to replace it (the
// ReplaceKey request header). When DoPut acknowledges a put, the file is
// complete and, unless syncing was turned off, synced to stable storage
// with its directory entry (internal/durable): it survives a crash or a
// power loss. DoGet serves a stored stream as arrowpack blocks to clients
// that ask for them with Accept (the MetadataKey request header) and as
// standard Arrow IPC to every other client, converting on the fly.
// ListFlights and GetFlightInfo describe the stored streams, with their
// rows and bytes; the ticket of a stream is the name of its file without
// ".apk". Register it on a gRPC server with arrow-go's
// flight.Server.RegisterFlightService.
//
// A Server serves only the regular files it wrote: it never follows a
// symbolic link in its directory, and a stored file that cannot be read is
// reported as damaged without its contents. It bounds the memory of the
// blocks in flight: a DoPut block is at most ServerOptions.MaxBlock bytes
// decompressed, and all calls together hold at most
// ServerOptions.MaxMemory bytes of blocks; past either, a call fails with
// codes.ResourceExhausted. One Server owns its directory: on start it
// removes the temporary files a killed server left there.
type Server struct {
	aflight.BaseFlightServer
	dir      string
	opts     []codec.Option
	sync     durable.Syncer // nil: do not sync
	noMap    bool
	maxBlock int
	budget   *budget
	log      *log.Logger
	stats    statsCache
}

// The defaults of ServerOptions.
const (
	// DefaultMaxBlock is the largest block, decompressed, a DoPut may
	// send or a DoGet read from the store: a quarter of the codec's
	// default, since a server holds the blocks of many clients at once.
	DefaultMaxBlock = 64 << 20
	// DefaultMaxMemory is what the blocks in flight of all calls
	// together may hold.
	DefaultMaxMemory = 1 << 30
)

// ServerOptions configure a Server beyond its codec options.
type ServerOptions struct {
	// Codec are the codec's Encoder options (codec.WithCompression, say)
	// of the blocks the server encodes: those of streams put as Arrow IPC
	// (arrowpack blocks are stored as they came), and those of a DoGet
	// whose client asks for another compression than a block's stored one
	// (a block it accepts goes as it is stored, with its stored checksum).
	Codec []codec.Option
	// Sync is what makes a put reach the disk before DoPut acknowledges
	// it; nil means durable.OS (fsync of the file, then of the
	// directory). Tests pass a Syncer that records the calls.
	Sync durable.Syncer
	// NoSync turns syncing off: faster puts, but a crash soon after one
	// may lose it (a kill of the server alone loses nothing).
	NoSync bool
	// NoMap makes DoGet read stored files instead of mapping them into
	// memory (where the platform can, it maps them, and sends the blocks
	// it passes through by reference from the mapping, without a copy).
	// A mapped file that something other than the Server truncates while
	// it is served faults the process on the bytes it lost; a store where
	// that may happen should set NoMap.
	NoMap bool
	// MaxBlock caps a block, decompressed, that a DoPut may send and
	// that a DoGet reads from the store; 0 means DefaultMaxBlock.
	MaxBlock int
	// MaxMemory caps the bytes of the blocks all calls hold at once;
	// 0 means DefaultMaxMemory.
	MaxMemory int64
	// Log receives what the Server does not tell a client: temporary
	// files removed at start, damaged stored streams (with the codec's
	// reason). nil means log.Default().
	Log *log.Logger
}

// NewServer returns a Server storing its streams in dir, which must exist,
// with the default ServerOptions and the codec's Encoder options opts
// (ServerOptions.Codec).
func NewServer(dir string, opts ...codec.Option) (*Server, error) {
	return NewServerWith(dir, ServerOptions{Codec: opts})
}

// NewServerWith returns a Server storing its streams in dir, which must
// exist, configured by o. It removes the temporary files that a server
// killed in the middle of a put left in dir (logging their names), so
// only one Server may use a directory at a time.
func NewServerWith(dir string, o ServerOptions) (*Server, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("arrowpack flight: store directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("arrowpack flight: store directory %s is not a directory", dir)
	}
	if _, err := codec.NewEncoder(arrow.NewSchema(nil, nil), o.Codec...); err != nil {
		return nil, err
	}
	if o.MaxBlock < 0 || o.MaxMemory < 0 {
		return nil, fmt.Errorf("%w: arrowpack flight: negative MaxBlock (%d) or MaxMemory (%d)", codec.ErrUnsupported, o.MaxBlock, o.MaxMemory)
	}
	s := &Server{dir: dir, opts: o.Codec, sync: o.Sync, noMap: o.NoMap, maxBlock: o.MaxBlock,
		budget: &budget{limit: o.MaxMemory}, log: o.Log}
	if s.sync == nil {
		s.sync = durable.OS
	}
	if o.NoSync {
		s.sync = nil
	}
	if s.maxBlock == 0 {
		s.maxBlock = DefaultMaxBlock
	}
	if s.budget.limit == 0 {
		s.budget.limit = DefaultMaxMemory
	}
	if s.log == nil {
		s.log = log.Default()
	}
	removed, err := removeTemps(dir)
	if len(removed) > 0 {
		s.log.Printf("arrowpack flight: removed %d temporary file(s) of puts a stopped server left unfinished: %s", len(removed), strings.Join(removed, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("arrowpack flight: removing the temporary files of unfinished puts: %w", err)
	}
	return s, nil
}

// removeTemps removes the temporary files of unfinished puts from dir:
// durable's, and those of older servers.
func removeTemps(dir string) ([]string, error) {
	removed, err := durable.RemoveTemps(dir)
	if err != nil {
		return removed, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return removed, err
	}
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), legacyTempPrefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return removed, err
			}
			removed = append(removed, e.Name())
		}
	}
	return removed, nil
}

// statusOf turns an error into a gRPC status: malformed input is
// InvalidArgument, an unsupported type or option Unimplemented, a status
// stays what it is, anything else is Internal.
func statusOf(err error, format string, args ...any) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	msg := fmt.Sprintf(format, args...) + ": " + err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, msg)
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, msg)
	case errors.Is(err, codec.ErrCorrupt), errors.Is(err, codec.ErrSchemaMismatch), errors.Is(err, codec.ErrInvalidBatch):
		return status.Error(codes.InvalidArgument, msg)
	case errors.Is(err, codec.ErrUnsupported):
		return status.Error(codes.Unimplemented, msg)
	case errors.Is(err, os.ErrNotExist):
		return status.Error(codes.NotFound, msg)
	}
	return status.Error(codes.Internal, msg)
}

// keyOfDescriptor returns the key of a PATH descriptor.
func keyOfDescriptor(d *aflight.FlightDescriptor) (string, error) {
	if d == nil {
		return "", status.Error(codes.InvalidArgument, "arrowpack flight: no flight descriptor")
	}
	if d.Type != aflight.DescriptorPATH {
		return "", status.Errorf(codes.InvalidArgument, "arrowpack flight: descriptor of type %s, this server stores PATH descriptors only", d.Type)
	}
	k, err := keyOf(d.Path)
	if err != nil {
		return "", status.Error(codes.InvalidArgument, err.Error())
	}
	return k, nil
}

// DoPut stores the stream under its descriptor's path: written to a
// temporary file, synced, moved into place and the directory synced before
// it returns (see Server).
func (s *Server) DoPut(stream aflight.FlightService_DoPutServer) (err error) {
	sh := &share{b: s.budget}
	defer sh.release()
	in := &limitedPut{FlightService_DoPutServer: stream, maxBlock: s.maxBlock, share: sh}
	r, err := NewReader(in, codec.WithMaxBlockSize(s.maxBlock))
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut")
	}
	defer r.Release()
	key, err := keyOfDescriptor(r.LatestFlightDescriptor())
	if err != nil {
		return err
	}
	f, err := durable.Create(filepath.Join(s.dir, key+fileExt), durable.Options{Replace: replaceAsked(stream.Context()), Sync: s.sync})
	if err != nil {
		return s.putError(key, err)
	}
	defer f.Abort() // nothing after Commit
	bw := bufio.NewWriterSize(f, 1<<20)
	// arrowpack blocks are stored as they came (the Reader checked and
	// decoded each), IPC batches encoded with the server's options.
	w, err := codec.NewRawWriter(bw, r.Schema())
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
	}
	enc, err := codec.NewEncoder(r.Schema(), s.opts...)
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
	}
	var buf []byte
	var rows int64
	for r.Next() {
		rec := r.RecordBatch()
		if in.ipc {
			// arrow-go allocated the IPC batch; its size is known only now.
			n := batchBytes(rec)
			if n > int64(s.maxBlock) {
				return status.Errorf(codes.ResourceExhausted, "arrowpack flight: DoPut %s: an IPC batch of %d bytes is over the server's -max-block of %d bytes", pathName(key), n, s.maxBlock)
			}
			if err := sh.take(2*n, "an IPC batch of DoPut "+pathName(key)); err != nil {
				return err
			}
		}
		if err := storeBatch(r, w, enc, &buf); err != nil {
			return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
		}
		rows += rec.NumRows()
		sh.release()
	}
	if err := r.Err(); err != nil {
		if errors.Is(err, errOverLimit) {
			return status.Errorf(codes.ResourceExhausted, "arrowpack flight: DoPut %s sent more than the server's -max-block of %d bytes: %v", pathName(key), s.maxBlock, err)
		}
		return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
	}
	if err := w.Close(); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
	}
	if err := bw.Flush(); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
	}
	if err := f.Commit(); err != nil {
		return s.putError(key, err)
	}
	if st, err := os.Lstat(f.Target()); err == nil {
		s.stats.put(key, streamStats{file: st, schema: r.Schema(), rows: rows})
	}
	return nil
}

// putError is the status of a DoPut that could not create or commit its
// file.
func (s *Server) putError(key string, err error) error {
	if errors.Is(err, durable.ErrExists) {
		return status.Errorf(codes.AlreadyExists, "arrowpack flight: DoPut %s: a stream is stored under this path; ask to replace it (request header %s: true, arrowpack put -f)", pathName(key), ReplaceKey)
	}
	if st, serr := os.Lstat(filepath.Join(s.dir, key+fileExt)); serr == nil && !st.Mode().IsRegular() {
		return status.Errorf(codes.FailedPrecondition, "arrowpack flight: DoPut %s: the store holds a %s under this path, not a stream file; the server replaces only the regular files it wrote", pathName(key), st.Mode().Type())
	}
	return statusOf(err, "arrowpack flight: DoPut %s", pathName(key))
}

// openFile opens the stored file of key, which must be a regular file (a
// symbolic link is never followed), and returns it with its FileInfo.
func (s *Server) openFile(key, ext string) (*os.File, os.FileInfo, error) {
	f, err := openNoFollow(filepath.Join(s.dir, key+ext))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, status.Errorf(codes.NotFound, "arrowpack flight: no stream stored under %s", pathName(key))
	case err != nil && isSymlinkErr(err):
		return nil, nil, status.Errorf(codes.FailedPrecondition, "arrowpack flight: %s is a symbolic link in the store; the server serves only the regular files it wrote", pathName(key))
	case err != nil:
		return nil, nil, statusOf(err, "arrowpack flight: %s", pathName(key))
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = status.Errorf(codes.FailedPrecondition, "arrowpack flight: %s is not a regular file (%s); the server serves only the regular files it wrote", pathName(key), st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, statusOf(err, "arrowpack flight: %s", pathName(key))
	}
	return f, st, nil
}

// open opens the stored stream of key and reads its header.
func (s *Server) open(key string) (*os.File, *codec.Reader, error) {
	f, _, err := s.openFile(key, fileExt)
	if err != nil {
		return nil, nil, err
	}
	r, err := codec.NewReader(bufio.NewReaderSize(f, 1<<20), codec.WithMaxBlockSize(s.maxBlock))
	if err != nil {
		f.Close()
		return nil, nil, s.damaged(key, err)
	}
	return f, r, nil
}

// damaged logs why the stored stream of key cannot be read and returns a
// DataLoss status that names the stream, not what the codec found in it:
// the file's bytes are the server's, not the client's.
func (s *Server) damaged(key string, err error) error {
	return s.damagedFile("stored stream "+pathName(key), key+fileExt, err)
}

// damagedFile is damaged for what (named as the client knows it), stored
// in file.
func (s *Server) damagedFile(what, file string, err error) error {
	if _, ok := status.FromError(err); ok {
		return err // the budget's, say
	}
	if !errors.Is(err, codec.ErrCorrupt) && !errors.Is(err, codec.ErrSchemaMismatch) && !errors.Is(err, codec.ErrUnsupported) {
		return statusOf(err, "arrowpack flight: reading %s", what) // an I/O error
	}
	s.log.Printf("arrowpack flight: %s is damaged (file %s): %v", what, file, err)
	return status.Errorf(codes.DataLoss, "arrowpack flight: %s is damaged: it is not readable (the server log says why)", what)
}

// blockCost is what a block read from the store holds while it is served:
// the block and the batch decoded from it.
func blockCost(b codec.BlockInfo) int64 { return int64(b.Size) + int64(b.RawSize) }

// chargeBlock returns sendStored's charge for a call named what: each
// block sent takes the place of the one before in sh, costing the block,
// or the block and its batch when it is decoded.
func (sh *share) chargeBlock(what string) func(codec.BlockInfo, bool) error {
	return func(info codec.BlockInfo, decoded bool) error {
		sh.release()
		cost := int64(info.Size)
		if decoded {
			cost = blockCost(info)
		}
		return sh.take(cost, what)
	}
}

// batchWriter is what DoGet writes through: a Writer or arrow-go's IPC
// flight writer.
type batchWriter interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// DoGet serves the stream a ticket names: arrowpack to clients that ask
// for it, Arrow IPC to the others. Each block read from the store is
// charged to the server's budget (after the codec's Reader, capped at
// MaxBlock, has read it) until its batch is sent.
func (s *Server) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	if t == nil {
		return status.Error(codes.InvalidArgument, "arrowpack flight: DoGet without a ticket")
	}
	key, p, part, err := partitionTicket(string(t.Ticket))
	if err == nil {
		_, err = pathOf(key)
	}
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "arrowpack flight: bad ticket: %v", err)
	}
	if part {
		return s.doGetPartition(key, p, stream)
	}
	ap, comp, set, err := accepted(stream.Context())
	if err != nil {
		return statusOf(err, "arrowpack flight: DoGet")
	}
	f, st, err := s.openFile(key, fileExt)
	if err != nil {
		return err
	}
	defer f.Close()
	// Mapped, blocks passed through are sent from the mapping by
	// reference; read, unbuffered, a block is read straight into the
	// buffer it is sent from, not copied once more out of a bufio.Reader.
	var m *fileMap
	if !s.noMap {
		m = mapFile(f, st.Size())
	}
	var rr *codec.RawReader
	if m != nil {
		defer m.release()
		rr, err = codec.NewRawReaderBytes(m.data, codec.WithMaxBlockSize(s.maxBlock))
	} else {
		rr, err = codec.NewRawReader(f, codec.WithMaxBlockSize(s.maxBlock))
	}
	if err != nil {
		return s.damaged(key, err)
	}
	sh := &share{b: s.budget}
	defer sh.release()
	if err := sendStored(stream, rr, m, ap, comp, set, s.opts, sh.chargeBlock("DoGet "+pathName(key))); err != nil {
		if errors.Is(err, errStored) {
			return s.damaged(key, fmt.Errorf("file %s: %w", f.Name(), err))
		}
		return statusOf(err, "arrowpack flight: DoGet %s", pathName(key))
	}
	return nil
}

// describe returns the stats of the stored stream of key: from the cache
// when the file is the one they describe, otherwise by reading the whole
// file, every block decoded and checked (and charged to the budget as
// DoGet's are). A damaged file is a DataLoss status (and a line in the
// log).
func (s *Server) describe(key string) (streamStats, error) {
	f, st, err := s.openFile(key, fileExt)
	if err != nil {
		return streamStats{}, err
	}
	defer f.Close()
	if e, ok := s.stats.get(key, st); ok {
		if e.err != nil {
			return e, s.damaged(key, e.err)
		}
		return e, nil
	}
	e := streamStats{file: st}
	r, err := codec.NewReader(bufio.NewReaderSize(f, 1<<20), codec.WithMaxBlockSize(s.maxBlock))
	if err != nil {
		e.err = err
	} else {
		defer r.Release()
		e.schema = r.Schema()
		sh := &share{b: s.budget}
		defer sh.release()
		what := "reading stored stream " + pathName(key)
		for r.Next() {
			if err := sh.take(blockCost(r.BlockInfo()), what); err != nil {
				return streamStats{}, err
			}
			e.rows += r.RecordBatch().NumRows()
			sh.release()
		}
		e.err = r.Err()
	}
	if e.err != nil && !errors.Is(e.err, codec.ErrCorrupt) && !errors.Is(e.err, codec.ErrSchemaMismatch) && !errors.Is(e.err, codec.ErrUnsupported) {
		return streamStats{}, statusOf(e.err, "arrowpack flight: reading stored stream %s", pathName(key)) // I/O: not cached
	}
	s.stats.put(key, e)
	if e.err != nil {
		return e, s.damaged(key, e.err)
	}
	return e, nil
}

// info describes the stored stream of key.
func (s *Server) info(key string) (*aflight.FlightInfo, error) {
	path, err := pathOf(key)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "arrowpack flight: %v", err)
	}
	e, err := s.describe(key)
	if err != nil {
		return nil, err
	}
	return &aflight.FlightInfo{
		Schema:           aflight.SerializeSchema(e.schema, memory.DefaultAllocator),
		FlightDescriptor: &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path},
		Endpoint:         []*aflight.FlightEndpoint{{Ticket: &aflight.Ticket{Ticket: []byte(key)}}},
		TotalRecords:     e.rows,
		TotalBytes:       e.file.Size(),
	}, nil
}

// GetFlightInfo describes the stream stored under a PATH descriptor, with
// its rows (TotalRecords) and the bytes of its file (TotalBytes), or the
// map output of that path, one endpoint per partition (see MapOutputFile). The
// first call on a stream the server did not put since it started reads
// the whole file; later calls use what it found.
func (s *Server) GetFlightInfo(_ context.Context, d *aflight.FlightDescriptor) (*aflight.FlightInfo, error) {
	key, err := keyOfDescriptor(d)
	if err != nil {
		return nil, err
	}
	fi, err := s.info(key)
	if status.Code(err) == codes.NotFound {
		if mfi, merr := s.mapInfo(key); status.Code(merr) != codes.NotFound {
			return mfi, merr
		}
	}
	return fi, err
}

// GetSchema returns the schema of the stream stored under a PATH
// descriptor, from the file's header.
func (s *Server) GetSchema(_ context.Context, d *aflight.FlightDescriptor) (*aflight.SchemaResult, error) {
	key, err := keyOfDescriptor(d)
	if err != nil {
		return nil, err
	}
	f, r, err := s.open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer r.Release()
	return &aflight.SchemaResult{Schema: aflight.SerializeSchema(r.Schema(), memory.DefaultAllocator)}, nil
}

// ListFlights describes every stored stream and map output, in the order
// of their file names, as GetFlightInfo does. A non-empty criteria expression keeps the
// streams whose path, elements joined with "/", starts with it. Temporary
// files of puts in progress, symbolic links and other files the server
// did not write are not listed; a damaged stream is left out and logged.
func (s *Server) ListFlights(c *aflight.Criteria, stream aflight.FlightService_ListFlightsServer) error {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return statusOf(err, "arrowpack flight: ListFlights")
	}
	var prefix string
	if c != nil {
		prefix = string(c.Expression)
	}
	for _, e := range ents {
		name := e.Name()
		describe := s.info
		if strings.HasSuffix(name, mapFileExt) {
			describe = s.mapInfo
		} else if !strings.HasSuffix(name, fileExt) {
			continue
		}
		if !e.Type().IsRegular() || durable.IsTemp(name) {
			continue
		}
		key := name[:strings.LastIndexByte(name, '.')]
		path, err := pathOf(key)
		if err != nil || !strings.HasPrefix(strings.Join(path, "/"), prefix) {
			continue // not a file this server wrote
		}
		info, err := describe(key)
		switch status.Code(err) {
		case codes.OK:
		case codes.NotFound:
			s.stats.forget(key)
			continue // deleted meanwhile
		case codes.DataLoss:
			continue // damaged: logged with the reason
		case codes.FailedPrecondition:
			s.log.Printf("arrowpack flight: ListFlights leaves out %s: %v", pathName(key), err)
			continue
		default:
			return err
		}
		if err := stream.Send(info); err != nil {
			return err
		}
	}
	return nil
}

var _ aflight.FlightServer = (*Server)(nil)
