package codec

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// The sentinel errors. Every error the package returns wraps one of them (or
// the error of the underlying io.Reader or io.Writer), so callers can tell
// the cases apart with errors.Is. Each also matches the sentinel arrow-go
// uses for the same case, so code written against arrow-go's errors works
// unchanged: ErrCorrupt and ErrInvalidBatch match arrow.ErrInvalid,
// ErrSchemaMismatch matches arrow.ErrType and ErrUnsupported matches
// errors.ErrUnsupported and arrow.ErrNotImplemented.
var (
	// ErrCorrupt is wrapped by every error that reports a malformed block
	// or stream: truncated, out of range, inconsistent or failing a checksum.
	ErrCorrupt error = &sentinel{"arrowpack: corrupt input", []error{arrow.ErrInvalid}}
	// ErrSchemaMismatch is wrapped when a block was made for another schema
	// than the Decoder's, or when a batch of another schema is handed to
	// an Encoder.
	ErrSchemaMismatch error = &sentinel{"arrowpack: schema mismatch", []error{arrow.ErrType}}
	// ErrUnsupported is wrapped when a type, option or platform is one the
	// codec cannot handle.
	ErrUnsupported error = &sentinel{"arrowpack: unsupported", []error{errors.ErrUnsupported, arrow.ErrNotImplemented}}
	// ErrInvalidBatch is wrapped when a batch handed to an Encoder is not a
	// valid Arrow batch (buffers too short for its offsets, say).
	ErrInvalidBatch error = &sentinel{"arrowpack: invalid batch", []error{arrow.ErrInvalid}}
	// ErrClosed is wrapped when a Writer is used after Close.
	ErrClosed error = &sentinel{"arrowpack: use of a closed Writer", nil}
)

// sentinel is an error value that errors.Is also matches against the
// sentinels of other packages listed in also.
type sentinel struct {
	msg  string
	also []error
}

func (e *sentinel) Error() string { return e.msg }

// Is reports whether target is one of the sentinels e stands for too.
func (e *sentinel) Is(target error) bool {
	for _, a := range e.also {
		if target == a {
			return true
		}
	}
	return false
}

// corruptf returns an error wrapping ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}
