package flight

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A Server is a Flight service that keeps streams in a directory as
// arrowpack stream files, so that a restart keeps them. DoPut stores a
// stream (arrowpack or IPC FlightData, read with a Reader) under its
// descriptor path, replacing what was there once the whole stream has been
// read and checked; a stream that is malformed, corrupt or cut short is
// refused with a gRPC status and stores nothing. Arrowpack blocks are
// stored as they came, once the Reader has checked and decoded each. DoGet
// serves a stored stream as arrowpack blocks to clients that ask for them
// with Accept (the MetadataKey request header), sending each stored block
// and its stored checksum as they are when the client accepts its
// compression (or names none) and converting it otherwise, and as
// standard Arrow IPC to every other client, converting on the fly.
// ListFlights and GetFlightInfo describe the stored streams; the ticket of
// a stream is the name of its file without ".apk". Register it on a gRPC
// server with arrow-go's flight.Server.RegisterFlightService, with
// ServerOptions for Codec and the transport settings.
type Server struct {
	aflight.BaseFlightServer
	dir  string
	opts []codec.Option
}

// NewServer returns a Server storing its streams in dir, which must exist.
// Options are the codec's Encoder options (codec.WithCompression, say) of
// the blocks it encodes: those of streams put as Arrow IPC (arrowpack
// blocks are stored as they came), and those of a DoGet whose client asks
// for another compression than a block's stored one.
func NewServer(dir string, opts ...codec.Option) (*Server, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("arrowpack flight: store directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("arrowpack flight: store directory %s is not a directory", dir)
	}
	if _, err := codec.NewEncoder(arrow.NewSchema(nil, nil), opts...); err != nil {
		return nil, err
	}
	return &Server{dir: dir, opts: opts}, nil
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

// DoPut stores the stream under its descriptor's path.
func (s *Server) DoPut(stream aflight.FlightService_DoPutServer) (err error) {
	r, err := NewReader(stream)
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut")
	}
	defer r.Release()
	key, err := keyOfDescriptor(r.LatestFlightDescriptor())
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, tempPrefix+"*")
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	// arrowpack blocks are stored as they came (the Reader checked and
	// decoded each), IPC batches encoded with the server's options.
	w, err := codec.NewRawWriter(bw, r.Schema())
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	enc, err := codec.NewEncoder(r.Schema(), s.opts...)
	if err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	if err := storeBlocks(r, w, enc); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	if err := w.Close(); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	if err := bw.Flush(); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	if err := f.Close(); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	if err := os.Rename(f.Name(), filepath.Join(s.dir, key+fileExt)); err != nil {
		return statusOf(err, "arrowpack flight: DoPut %s", key)
	}
	return nil
}

// open opens the stored stream of key.
func (s *Server) open(key string) (*os.File, *codec.Reader, error) {
	f, err := os.Open(filepath.Join(s.dir, key+fileExt))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, status.Errorf(codes.NotFound, "arrowpack flight: no stream stored under %s", key)
		}
		return nil, nil, statusOf(err, "arrowpack flight: %s", key)
	}
	r, err := codec.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, nil, status.Errorf(codes.DataLoss, "arrowpack flight: stored stream %s: %v", key, err)
	}
	return f, r, nil
}

// batchWriter is what DoGet writes through: a Writer or arrow-go's IPC
// flight writer.
type batchWriter interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// DoGet serves the stream a ticket names: arrowpack to clients that ask
// for it, Arrow IPC to the others.
func (s *Server) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	if t == nil {
		return status.Error(codes.InvalidArgument, "arrowpack flight: DoGet without a ticket")
	}
	key := string(t.Ticket)
	if _, err := pathOf(key); err != nil {
		return status.Errorf(codes.InvalidArgument, "arrowpack flight: bad ticket: %v", err)
	}
	ap, comp, set, err := accepted(stream.Context())
	if err != nil {
		return statusOf(err, "arrowpack flight: DoGet")
	}
	f, rr, err := s.openRaw(key)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := sendStored(stream, rr, ap, comp, set, s.opts); err != nil {
		if errors.Is(err, errStored) {
			return status.Errorf(codes.DataLoss, "arrowpack flight: stored stream %s: %v", key, err)
		}
		return statusOf(err, "arrowpack flight: DoGet %s", key)
	}
	return nil
}

// info describes the stored stream of key.
func (s *Server) info(key string) (*aflight.FlightInfo, error) {
	path, err := pathOf(key)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "arrowpack flight: %v", err)
	}
	f, r, err := s.open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer r.Release()
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return &aflight.FlightInfo{
		Schema:           aflight.SerializeSchema(r.Schema(), memory.DefaultAllocator),
		FlightDescriptor: &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path},
		Endpoint:         []*aflight.FlightEndpoint{{Ticket: &aflight.Ticket{Ticket: []byte(key)}}},
		TotalRecords:     -1,
		TotalBytes:       size,
	}, nil
}

// GetFlightInfo describes the stream stored under a PATH descriptor.
func (s *Server) GetFlightInfo(_ context.Context, d *aflight.FlightDescriptor) (*aflight.FlightInfo, error) {
	key, err := keyOfDescriptor(d)
	if err != nil {
		return nil, err
	}
	return s.info(key)
}

// GetSchema returns the schema of the stream stored under a PATH
// descriptor.
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

// ListFlights describes every stored stream, in the order of their file
// names. A non-empty criteria expression keeps the streams whose path,
// elements joined with "/", starts with it.
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
		if !e.Type().IsRegular() || !strings.HasSuffix(name, fileExt) {
			continue
		}
		key := strings.TrimSuffix(name, fileExt)
		path, err := pathOf(key)
		if err != nil || !strings.HasPrefix(strings.Join(path, "/"), prefix) {
			continue // not a file this server wrote
		}
		info, err := s.info(key)
		if status.Code(err) == codes.NotFound {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if err := stream.Send(info); err != nil {
			return err
		}
	}
	return nil
}

var _ aflight.FlightServer = (*Server)(nil)
