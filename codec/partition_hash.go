package codec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/zeebo/xxh3"
)

// HashPartitions sets parts[i] to the partition, in [0, p), of row i of
// the key columns keys (all of one length) and returns parts, grown to
// that length if needed: the ids Partitioner.Write takes for a hash
// shuffle.
//
// The hash of a row is XXH3-64 chained over its keys: h = XXH3_64(key 0's
// value, seed 0), then h = XXH3_64(key k's value, seed h) for each next
// key, where a value is its little-endian bytes (integers, dates, times,
// timestamps, durations, decimals, fixed-size binary; booleans as one
// byte 0 or 1) or its bytes (strings and binary). XXH3 because it is
// specified and implemented alike in C, Rust, Java and Go (so that other
// writers of the same shuffle can agree), fast on the short inputs keys
// are, and already a dependency of arrow-go. The hash becomes a partition
// by Lemire's multiply-high, (h>>32) * p >> 32, which needs no division
// and uses the hash's well-mixed high bits. A row whose key is null in
// any column goes to partition 0. Keys must have the same types on every
// side of a shuffle: an int32 1 and an int64 1 hash apart.
//
// Floating-point, dictionary, view and nested keys are refused with an
// error wrapping ErrUnsupported; columns of different lengths, or a p
// below 1 or above 1<<24, with ErrInvalidBatch and ErrUnsupported.
func HashPartitions(parts []uint32, p int, keys ...arrow.Array) (res []uint32, err error) {
	if p < 1 || p > 1<<24 {
		return parts, fmt.Errorf("%w: HashPartitions: %d partitions; 1 to %d are supported", ErrUnsupported, p, 1<<24)
	}
	if len(keys) == 0 {
		return parts, fmt.Errorf("%w: HashPartitions: no key columns", ErrUnsupported)
	}
	n := keys[0].Len()
	for k, key := range keys {
		if key.Len() != n {
			return parts, fmt.Errorf("%w: HashPartitions: key %d has %d rows, key 0 %d", ErrInvalidBatch, k, key.Len(), n)
		}
		if hashWidth(key.DataType()) == 0 {
			return parts, fmt.Errorf("%w: HashPartitions: key %d of type %s", ErrUnsupported, k, key.DataType())
		}
	}
	if cap(parts) < n {
		parts = make([]uint32, n)
	}
	parts = parts[:n]
	h := make([]uint64, n)
	defer func() {
		// Buffers too short for the arrays' lengths or offsets.
		if r := recover(); r != nil {
			res, err = parts, fmt.Errorf("%w: HashPartitions: a key column's buffers do not hold its rows: %v", ErrInvalidBatch, r)
		}
	}()
	nulls := false
	for k, key := range keys {
		d := key.Data()
		if d.NullN() != 0 {
			nulls = true
		}
		hashColumn(h, d, k == 0)
	}
	pp := uint64(p)
	for i, x := range h {
		parts[i] = uint32((x >> 32) * pp >> 32)
	}
	if nulls {
		for _, key := range keys {
			if key.NullN() == 0 {
				continue
			}
			for i := range n {
				if key.IsNull(i) {
					parts[i] = 0
				}
			}
		}
	}
	return parts, nil
}

// hashWidth returns the bytes of a fixed-width key type, -1 for strings
// and binary of 32-bit offsets, -2 for those of 64-bit offsets, -3 for
// booleans and 0 for the types HashPartitions refuses.
func hashWidth(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY:
		return -1
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return -2
	case arrow.BOOL:
		return -3
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.INT32, arrow.UINT32, arrow.INT64,
		arrow.UINT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.FIXED_SIZE_BINARY, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO:
		return dt.(arrow.FixedWidthDataType).BitWidth() / 8
	}
	return 0
}

// hashColumn chains the hash of each row of d into h (first: seeds 0).
func hashColumn(h []uint64, d arrow.ArrayData, first bool) {
	off := d.Offset()
	bufs := d.Buffers()
	seed := func(i int) uint64 {
		if first {
			return 0
		}
		return h[i]
	}
	switch w := hashWidth(d.DataType()); w {
	case -1:
		o := view[int32](bytesOf(bufs[1]))[off:]
		data := bytesOf(bufs[2])
		for i := range h {
			h[i] = xxh3.HashSeed(data[o[i]:o[i+1]], seed(i))
		}
	case -2:
		o := view[int64](bytesOf(bufs[1]))[off:]
		data := bytesOf(bufs[2])
		for i := range h {
			h[i] = xxh3.HashSeed(data[o[i]:o[i+1]], seed(i))
		}
	case -3:
		b := bytesOf(bufs[1])
		var one [1]byte
		for i := range h {
			j := off + i
			one[0] = b[j>>3] >> (j & 7) & 1
			h[i] = xxh3.HashSeed(one[:], seed(i))
		}
	default:
		vals := bytesOf(bufs[1])[off*w:]
		for i := range h {
			h[i] = xxh3.HashSeed(vals[i*w:(i+1)*w], seed(i))
		}
	}
}
