// Package batches holds the record-batch chores that the tests of several
// packages (codec, flight, the command) and internal/measure share: reading
// every batch of a reader and releasing a list of batches. It imports only
// arrow-go, so that package codec's own tests can use it.
package batches

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// Reader is what ReadAll needs of a reader: the iteration of an
// array.RecordReader (codec.Reader, ipc.Reader, flight's readers, the
// command's inputs).
type Reader interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
}

// ReadAll reads rd to the end and returns its batches, each retained, and
// the error that ended the reading (nil at a clean end), with the batches
// read before it. The caller releases the batches (Release) and rd.
func ReadAll(rd Reader) ([]arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return recs, rd.Err()
}

// Release releases every batch of recs.
func Release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
