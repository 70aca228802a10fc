// Package batches holds the record-batch chores that the tests of several
// packages (codec, flight, the command) and internal/measure share: reading
// every batch of a reader, writing a list of batches and releasing them. It imports only
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

// Writer is what WriteAll needs of a writer: codec.Writer's, ipc.Writer's
// and ipc.FileWriter's Write and Close.
type Writer interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// WriteAll writes recs to w and closes it. On an error it closes w and
// returns the error.
func WriteAll(w Writer, recs []arrow.RecordBatch) error {
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// Release releases every batch of recs.
func Release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// Copy writes every batch of rd to w and closes w: a stream passed on
// batch by batch. The first error, of rd, w or Close, is returned (w is
// closed on a read or write error too).
func Copy(w Writer, rd Reader) error {
	for rd.Next() {
		if err := w.Write(rd.RecordBatch()); err != nil {
			w.Close()
			return err
		}
	}
	if err := rd.Err(); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
