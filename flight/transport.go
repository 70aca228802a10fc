package flight

import (
	"reflect"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/experimental"
)

// Default transport settings of GRPCServerOptions and GRPCDialOptions: gRPC's read
// and write buffers of 512 KiB instead of 32 KiB, which on loopback moved
// blocks of 1 MiB markedly faster (fewer system calls per block; see
// BenchmarkDoGet). The flow control windows stay gRPC's own (dynamic, from
// its bandwidth-delay estimate) unless WithWindowSizes sets them.
const (
	DefaultReadBufferSize  = 512 << 10
	DefaultWriteBufferSize = 512 << 10
)

// A TransportOption changes the gRPC settings GRPCServerOptions and GRPCDialOptions
// return.
type TransportOption func(*transport)

type transport struct {
	readBuf, writeBuf  int
	window, connWindow int32
	standard           bool
	zeroing            bool
}

func newTransport(opts []TransportOption) transport {
	t := transport{readBuf: DefaultReadBufferSize, writeBuf: DefaultWriteBufferSize}
	for _, o := range opts {
		o(&t)
	}
	return t
}

// WithBufferSizes sets the size of gRPC's read and write buffers (per
// connection); 0 keeps gRPC's default of 32 KiB.
func WithBufferSizes(read, write int) TransportOption {
	return func(t *transport) { t.readBuf, t.writeBuf = read, write }
}

// WithWindowSizes sets gRPC's initial flow control windows of a stream and
// of a connection, which turns off its dynamic window; 0 keeps the dynamic
// window. gRPC ignores values below 64 KiB.
func WithWindowSizes(stream, conn int32) TransportOption {
	return func(t *transport) { t.window, t.connWindow = stream, conn }
}

// WithStandardCodec leaves gRPC's protobuf codec in place of Codec.
func WithStandardCodec() TransportOption {
	return func(t *transport) { t.standard = true }
}

// WithZeroingBufferPool leaves gRPC its default buffer pool, which zeroes
// every buffer it hands out, instead of the pool of Codec's blocks.
func WithZeroingBufferPool() TransportOption {
	return func(t *transport) { t.zeroing = true }
}

// GRPCServerOptions returns the options of a gRPC server (grpc.NewServer, or
// arrow-go's flight.NewServerWithMiddleware) that serves Flight with Codec
// and the transport settings opts give, the defaults above without any.
// They apply to that server only: Codec is not registered for the process.
func GRPCServerOptions(opts ...TransportOption) []grpc.ServerOption {
	t := newTransport(opts)
	var so []grpc.ServerOption
	if !t.standard {
		so = append(so, grpc.ForceServerCodecV2(Codec))
	}
	if !t.zeroing {
		so = append(so, experimental.BufferPool(wirePool{}))
	}
	if t.readBuf > 0 {
		so = append(so, grpc.ReadBufferSize(t.readBuf))
	}
	if t.writeBuf > 0 {
		so = append(so, grpc.WriteBufferSize(t.writeBuf))
	}
	if t.window > 0 {
		so = append(so, grpc.InitialWindowSize(t.window))
	}
	if t.connWindow > 0 {
		so = append(so, grpc.InitialConnWindowSize(t.connWindow))
	}
	return so
}

// GRPCDialOptions returns the options of a gRPC client connection (arrow-go's
// flight.NewClientWithMiddleware, or grpc.NewClient) whose calls use Codec
// and the transport settings opts give. Add the transport credentials.
func GRPCDialOptions(opts ...TransportOption) []grpc.DialOption {
	t := newTransport(opts)
	var do []grpc.DialOption
	if !t.standard {
		do = append(do, grpc.WithDefaultCallOptions(GRPCCallOptions()...))
	}
	if !t.zeroing {
		do = append(do, experimental.WithBufferPool(wirePool{}))
	}
	if t.readBuf > 0 {
		do = append(do, grpc.WithReadBufferSize(t.readBuf))
	}
	if t.writeBuf > 0 {
		do = append(do, grpc.WithWriteBufferSize(t.writeBuf))
	}
	if t.window > 0 {
		do = append(do, grpc.WithInitialWindowSize(t.window))
	}
	if t.connWindow > 0 {
		do = append(do, grpc.WithInitialConnWindowSize(t.connWindow))
	}
	return do
}

// GRPCCallOptions returns the options of one call that make it use Codec, for a
// connection dialled without GRPCDialOptions.
func GRPCCallOptions() []grpc.CallOption {
	return []grpc.CallOption{grpc.ForceCodecV2(Codec)}
}

// genPackage is the package of arrow-go's generated Flight service, whose
// stream types wrap gRPC's streams and nothing else.
var genPackage = reflect.TypeFor[aflight.FlightData]().PkgPath()

// grpcOwn reports whether stream is one of the generated Flight stream
// types, whose Send and Recv are gRPC's SendMsg and RecvMsg of a
// FlightData: only then may the Writer and Reader call SendMsg and RecvMsg
// with their own FlightData wrappers (a stream that wraps it, in a test
// say, has its Send and Recv called as they are).
func grpcOwn(stream any) bool {
	t := reflect.TypeOf(stream)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().PkgPath() == genPackage
}

type msgSender interface{ SendMsg(any) error }
type msgReceiver interface{ RecvMsg(any) error }
