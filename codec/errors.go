package codec

import (
	"errors"
	"fmt"
)

// The sentinel errors. Every error the package returns wraps one of them, so
// callers can tell the cases apart with errors.Is.
var (
	// ErrCorrupt is wrapped by every error that reports a malformed block
	// or stream: truncated, out of range, inconsistent or failing a checksum.
	ErrCorrupt = errors.New("arrowpack: corrupt block")
	// ErrSchemaMismatch is wrapped when a block was made for another schema
	// than the Decoder's, or when a batch of another schema is handed to
	// an Encoder.
	ErrSchemaMismatch = errors.New("arrowpack: schema mismatch")
	// ErrUnsupported is wrapped when a type, option or platform is one the
	// codec cannot handle.
	ErrUnsupported = errors.New("arrowpack: unsupported")
	// ErrInvalidBatch is wrapped when a batch handed to an Encoder is not a
	// valid Arrow batch (buffers too short for its offsets, say).
	ErrInvalidBatch = errors.New("arrowpack: invalid batch")
)

// corruptf returns an error wrapping ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}
