package flight

import (
	"context"
	"fmt"
	"strings"

	"github.com/arrowpack/arrowpack/codec"
	"google.golang.org/grpc/metadata"
)

// MetadataKey is the gRPC metadata (request header) with which a client
// asks a Server for arrowpack blocks instead of Arrow IPC. Its value names
// the compression wanted: "none", "lz4", "zstd", or "" for the server's
// choice. A request without it gets standard Arrow IPC, which every Flight
// client reads.
const MetadataKey = "arrowpack-accept"

// Accept returns a context whose Flight calls (DoGet) ask the server for
// arrowpack blocks compressed with c. Pass the result to the client's
// DoGet and read the stream with NewReader, which also reads the IPC a
// server without arrowpack sends instead.
func Accept(ctx context.Context, c codec.Compression) context.Context {
	return metadata.AppendToOutgoingContext(ctx, MetadataKey, c.String())
}

// accepted reports whether the call's client asked for arrowpack, and with
// which compression (ok without a compression: the server's choice). An
// unknown compression is an error wrapping codec.ErrUnsupported.
func accepted(ctx context.Context) (ok bool, c codec.Compression, set bool, err error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(MetadataKey)
	if len(vals) == 0 {
		return false, 0, false, nil
	}
	switch v := strings.ToLower(strings.TrimSpace(vals[len(vals)-1])); v {
	case "":
		return true, 0, false, nil
	case "none":
		return true, codec.None, true, nil
	case "lz4":
		return true, codec.LZ4, true, nil
	case "zstd":
		return true, codec.Zstd, true, nil
	default:
		return false, 0, false, fmt.Errorf("%w: %s %q: want none, lz4, zstd or empty", codec.ErrUnsupported, MetadataKey, v)
	}
}
