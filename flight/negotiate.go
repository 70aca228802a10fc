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
// the compression wanted, as codec.Compression's String does ("none",
// "lz4", "zstd", "minlz", "light"), or is "" for the server's choice. A request without it gets standard Arrow IPC, which every Flight
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
	v := strings.ToLower(strings.TrimSpace(vals[len(vals)-1]))
	if v == "" {
		return true, 0, false, nil
	}
	names := make([]string, len(compressions))
	for i, c := range compressions {
		if v == c.String() {
			return true, c, true, nil
		}
		names[i] = c.String()
	}
	return false, 0, false, fmt.Errorf("%w: %s %q: want %s or empty", codec.ErrUnsupported, MetadataKey, v, strings.Join(names, ", "))
}

// compressions are the codec's compressions a client may ask for.
var compressions = []codec.Compression{codec.None, codec.LZ4, codec.Zstd, codec.MinLZ, codec.Light}
