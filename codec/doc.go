// Package codec encodes one Arrow record batch into one block of bytes and
// decodes it back, much faster than Arrow IPC, and writes and reads streams
// of such blocks. The whole API, for a schema both sides know:
//
//	enc, _ := codec.NewEncoder(schema, codec.WithCompression(codec.LZ4))
//	block, _ := enc.Append(buf[:0], rec)   // one batch, one block; 0 allocations
//	dec, _ := codec.NewDecoder(schema)
//	out, _ := dec.Decode(block)            // zero-copy, fully validated
//
//	w, _ := codec.NewWriter(file, schema)  // a stream: spill and shuffle files
//	w.Write(rec); w.Close()
//	r, _ := codec.NewReader(file)          // an array.RecordReader and arrio.Reader
//	for r.Next() { use(r.RecordBatch()) }
//
// Encoders and Decoders are made once per schema and are safe for
// concurrent use. Decode never panics and never trusts its input: whatever
// the bytes, it returns a batch that passes arrow-go's full validation or an
// error wrapping ErrCorrupt (or ErrSchemaMismatch), with time and memory
// bounded by the input. The encoder checks what it is handed just as
// hard: a batch that breaks any invariant the decoder checks (a batch
// built with array.NewData and no validation, say) is refused with an
// error wrapping ErrInvalidBatch that names the column and the row, before
// anything is sized from it, so every block written decodes to a batch
// equal to the one encoded. FORMAT.md in this directory describes the
// bytes.
package codec
