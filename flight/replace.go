package flight

import (
	"context"
	"strings"

	"google.golang.org/grpc/metadata"
)

// ReplaceKey is the gRPC metadata (request header) with which a DoPut asks
// the Server to replace a stream already stored under its descriptor. A
// put without it, onto a path that holds a stream, fails with
// codes.AlreadyExists and leaves the stored stream as it was. Clients that
// do not link arrowpack set the header "arrowpack-replace: true"
// themselves.
const ReplaceKey = "arrowpack-replace"

// Replace returns a context whose DoPut replaces a stream already stored
// under the same descriptor path, as `arrowpack put -f` does.
func Replace(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, ReplaceKey, "true")
}

// replaceAsked reports whether the call's client asked to replace a stored
// stream.
func replaceAsked(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(ReplaceKey)
	return len(vals) > 0 && strings.EqualFold(strings.TrimSpace(vals[len(vals)-1]), "true")
}
