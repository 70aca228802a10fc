// Package flight carries arrowpack blocks over Arrow Flight, using arrow-go's
// arrow/flight (and so gRPC) for the transport: arrowpack only makes the
// bytes.
//
// A Writer sends a standard IPC schema message first (so descriptors,
// routing and GetSchema stay standard), then one arrowpack block per batch
// in the data_body of a FlightData whose app_metadata starts with a 24-byte
// marker ("APKF", version, flags, block length, CRC32C); the user's own
// app_metadata follows the marker and comes back from
// Reader.LatestAppMetadata. A Reader reads such streams and plain Arrow IPC
// FlightData alike, so one reader serves arrowpack and standard Flight
// producers. (An IPC FlightData whose own app_metadata starts with "APKF"
// is refused as ambiguous; Writer.WriteMetadata refuses to send such
// metadata.) Every block is checked against the CRC32C in its marker and
// decoded by the codec's Decoder, which validates it; IPC batches are
// checked with array.ValidateRecordFull.
//
// # Message size
//
// gRPC refuses messages over 4 MiB unless the receiver raises its limit,
// and arrow-go's client does not. A Writer therefore splits a block larger
// than DefaultMaxMessageSize (4 MiB less 64 KiB) over several FlightData in
// a row, each with the marker, and the Reader joins them: a block of any
// size goes through with default client and server options. Nothing needs
// configuring on either end.
//
// # Negotiation
//
// A Server serves arrowpack to clients that ask for it and Arrow IPC to all
// others, converting its stored streams on the fly. A client asks by
// sending the gRPC request header MetadataKey ("arrowpack-accept") with the
// compression it wants; Accept adds it to a context:
//
//	stream, err := client.DoGet(flight.Accept(ctx, codec.LZ4), ticket)
//	r, err := flight.NewReader(stream)
//
// A client that does not ask (any standard Flight client) gets IPC that
// arrow-go's flight.NewRecordReader reads.
//
// # Server
//
// Server stores what DoPut sends under its descriptor's PATH as arrowpack
// stream files in a directory and serves them with DoGet, ListFlights,
// GetFlightInfo and GetSchema. See Server for the file names and tickets.
// Stored blocks go out as they are stored, with their stored checksum, to a
// client that accepts their compression.
//
// # Transport
//
// Codec is a gRPC codec that moves FlightData bodies without protobuf's
// copies: by reference from a Writer's pooled blocks on send, gathered
// once into pooled 8-byte aligned buffers on receive, the checksum computed
// while the bytes are hot. It writes exactly protobuf's bytes, so either end
// may use it or not. GRPCServerOptions and GRPCDialOptions install it for one
// server or connection, with larger gRPC buffers and a buffer pool that does
// not zero (see BenchmarkDoGet); Writer and Reader use it through gRPC's own
// streams (arrow-go's generated stream types) and work as before on any
// other stream.
//
// gRPC is imported only by this package and the command, never by the
// codec.
package flight
