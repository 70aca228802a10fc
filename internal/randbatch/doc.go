// Package randbatch generates deterministic random Arrow record batches of
// every type arrow-go can build, for the codec's round-trip tests, its fuzz
// tests and the benchmark command.
//
// Everything is driven by a caller-supplied *rand.Rand: the same seed gives the
// same types, the same values and the same physical layout (offsets, slices,
// buffer splits). Arrays are built with arrow-go's builders, or assembled from
// separately generated children with arrow-go's constructors where that is the
// only way to get the layout wanted (sliced children, list views that overlap,
// union and run-end children, dictionaries of nested values).
//
// With Options.Slice every array, at every level of nesting, is built longer
// than asked for and sliced at a random offset (favouring 1, 7, 8, 9, 63, 64 and
// 65), so that bitmaps start at a bit offset, offsets do not start at 0 and
// children are referenced only in part: the layouts that sliced-array bugs in
// other codecs were made of.
//
// The shapes in shapes.go are fixed-seed batches with realistic values for
// benchmarks.
package randbatch
