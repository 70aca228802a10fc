package randbatch

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// Value distributions, chosen once per array.
const (
	modeWide   = iota // the full range of the type
	modeSmall         // small numbers, short strings
	modeSorted        // ascending, like ids and event times
	modeFew           // few distinct values
	numModes
)

// valueGen draws the values of one leaf array.
type valueGen struct {
	r    *rand.Rand
	dt   arrow.DataType
	mode int
	cur  int64 // last value in modeSorted
	few  []int64
}

func newValueGen(r *rand.Rand, dt arrow.DataType) *valueGen {
	v := &valueGen{r: r, dt: dt, mode: r.IntN(numModes), cur: r.Int64N(1000)}
	if v.mode == modeFew {
		v.few = make([]int64, 1+r.IntN(8))
		for i := range v.few {
			v.few[i] = r.Int64()
		}
	}
	return v
}

// append appends one random value to b, the builder of v.dt.
func (v *valueGen) append(b array.Builder) {
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.r.Float64() < [numModes]float64{0.5, 0.75, 0.1, 0.97}[v.mode])
	case *array.Int8Builder:
		b.Append(int8(v.int()))
	case *array.Int16Builder:
		b.Append(int16(v.int()))
	case *array.Int32Builder:
		b.Append(int32(v.int()))
	case *array.Int64Builder:
		b.Append(v.int())
	case *array.Uint8Builder:
		b.Append(uint8(v.int()))
	case *array.Uint16Builder:
		b.Append(uint16(v.int()))
	case *array.Uint32Builder:
		b.Append(uint32(v.int()))
	case *array.Uint64Builder:
		b.Append(uint64(v.int()))
	case *array.Float16Builder:
		b.Append(float16.New(float32(v.float(math.MaxFloat32))))
	case *array.Float32Builder:
		b.Append(float32(v.float(math.MaxFloat32)))
	case *array.Float64Builder:
		b.Append(v.float(math.MaxFloat64))
	case *array.Decimal32Builder:
		b.Append(decimal.Decimal32(v.decimal(b.Type().(*arrow.Decimal32Type).Precision).Int64()))
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(v.decimal(b.Type().(*arrow.Decimal64Type).Precision).Int64()))
	case *array.Decimal128Builder:
		w := twosComplement(v.decimal(b.Type().(*arrow.Decimal128Type).Precision), 2)
		b.Append(decimal128.New(int64(w[1]), w[0]))
	case *array.Decimal256Builder:
		w := twosComplement(v.decimal(b.Type().(*arrow.Decimal256Type).Precision), 4)
		b.Append(decimal256.New(w[3], w[2], w[1], w[0]))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.days()))
	case *array.Date64Builder:
		b.Append(arrow.Date64(v.days() * 86_400_000))
	case *array.Time32Builder:
		per := int64(unitsPerSecond(b.Type().(*arrow.Time32Type).Unit))
		b.Append(arrow.Time32(v.r.Int64N(86_400 * per)))
	case *array.Time64Builder:
		per := unitsPerSecond(b.Type().(*arrow.Time64Type).Unit)
		b.Append(arrow.Time64(v.r.Int64N(86_400 * per)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.timestamp(b.Type().(*arrow.TimestampType).Unit)))
	case *array.DurationBuilder:
		per := unitsPerSecond(b.Type().(*arrow.DurationType).Unit)
		d := v.r.Int64N(7*86_400)*per + v.r.Int64N(per)
		if v.mode == modeWide && v.r.IntN(4) == 0 {
			d = -d
		}
		b.Append(arrow.Duration(d))
	case *array.MonthIntervalBuilder:
		b.Append(arrow.MonthInterval(v.r.IntN(241) - 120))
	case *array.DayTimeIntervalBuilder:
		b.Append(arrow.DayTimeInterval{Days: int32(v.r.IntN(731) - 365), Milliseconds: int32(v.r.IntN(86_400_000))})
	case *array.MonthDayNanoIntervalBuilder:
		b.Append(arrow.MonthDayNanoInterval{
			Months:      int32(v.r.IntN(25) - 12),
			Days:        int32(v.r.IntN(61) - 30),
			Nanoseconds: v.r.Int64N(86_400e9),
		})
	case *array.FixedSizeBinaryBuilder:
		b.Append(v.bytes(b.Type().(*arrow.FixedSizeBinaryType).ByteWidth))
	case *array.StringBuilder:
		b.Append(v.text())
	case *array.LargeStringBuilder:
		b.Append(v.text())
	case *array.StringViewBuilder:
		b.Append(v.text())
	case *array.BinaryBuilder: // binary and large_binary
		b.Append(v.bytes(v.r.IntN(41)))
	case *array.BinaryViewBuilder:
		b.Append(v.bytes(v.r.IntN(41)))
	default:
		panic(fmt.Sprintf("randbatch: no values for %s (builder %T)", v.dt, b))
	}
}

// int returns an integer that the caller truncates to its width.
func (v *valueGen) int() int64 {
	switch v.mode {
	case modeSmall:
		return int64(v.r.IntN(100) - 20)
	case modeSorted:
		v.cur += v.r.Int64N(4)
		return v.cur
	case modeFew:
		return v.few[v.r.IntN(len(v.few))]
	}
	return int64(v.r.Uint64())
}

// float returns a float: normal, price-like or uniform, with the odd special
// value (signed zero, infinities, the extremes) but never NaN, which no
// equality check would match. maxFinite is the largest value of the width.
func (v *valueGen) float(maxFinite float64) float64 {
	if v.r.IntN(50) == 0 {
		specials := [...]float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), maxFinite, -maxFinite, math.SmallestNonzeroFloat32}
		return specials[v.r.IntN(len(specials))]
	}
	switch v.mode {
	case modeSmall:
		return float64(v.r.IntN(100_000)) / 100
	case modeSorted:
		v.cur += v.r.Int64N(10)
		return float64(v.cur) / 10
	case modeFew:
		return float64(v.few[v.r.IntN(len(v.few))]%1000) / 4
	}
	return v.r.NormFloat64() * 1e6
}

// pow10 holds the powers of ten that fit in an int64.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decimal returns an unscaled decimal value that fits prec digits.
func (v *valueGen) decimal(prec int32) *big.Int {
	digits := 1 + v.r.IntN(int(prec))
	if v.mode == modeSmall {
		digits = 1 + v.r.IntN(min(int(prec), 4))
	}
	x := new(big.Int)
	for digits > 0 {
		k := min(digits, 18)
		x.Mul(x, big.NewInt(pow10[k]))
		x.Add(x, big.NewInt(v.r.Int64N(pow10[k])))
		digits -= k
	}
	if v.r.IntN(4) == 0 {
		x.Neg(x)
	}
	return x
}

// twosComplement returns x as n 64-bit two's complement words, least significant
// first. arrow-go's decimal FromBigInt functions read big.Int's words as
// 64-bit and panic on 32-bit platforms, so the generator converts itself.
func twosComplement(x *big.Int, n int) []uint64 {
	u := new(big.Int).Set(x)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), uint(64*n)))
	}
	b := u.FillBytes(make([]byte, 8*n)) // big-endian
	w := make([]uint64, n)
	for i := range w {
		w[i] = binary.BigEndian.Uint64(b[8*(n-1-i):])
	}
	return w
}

// days returns a date as days since the epoch, mostly 1990 to 2030.
func (v *valueGen) days() int64 {
	switch {
	case v.mode == modeSorted:
		v.cur += v.r.Int64N(2)
		return 7305 + v.cur
	case v.r.IntN(20) == 0:
		return -v.r.Int64N(40_000) // before 1970
	}
	return 7305 + v.r.Int64N(40*365)
}

// timestamp returns a time since the epoch in unit, mostly 2000 to 2030.
func (v *valueGen) timestamp(unit arrow.TimeUnit) int64 {
	per := unitsPerSecond(unit)
	secs := 946_684_800 + v.r.Int64N(30*365*86_400)
	switch {
	case v.mode == modeSorted:
		v.cur += v.r.Int64N(60)
		secs = 1_600_000_000 + v.cur
	case v.r.IntN(20) == 0:
		secs = -v.r.Int64N(2_000_000_000) // before 1970
	}
	return secs*per + v.r.Int64N(per)
}

// unitsPerSecond returns how many of unit make a second.
func unitsPerSecond(unit arrow.TimeUnit) int64 {
	return int64(time.Second / unit.Multiplier())
}

// bytes returns n random bytes, or in modeFew one of a few fixed patterns.
func (v *valueGen) bytes(n int) []byte {
	out := make([]byte, n)
	if v.mode == modeFew {
		seed := v.few[v.r.IntN(len(v.few))]
		for i := range out {
			out[i] = byte(seed >> (8 * (i % 8)))
		}
		return out
	}
	for i := range out {
		out[i] = byte(v.r.Uint32())
	}
	return out
}

// words are what strings are made of: mostly ASCII, some multi-byte UTF-8.
var words = []string{
	"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "carefully",
	"regular", "deposits", "sleep", "furiously", "express", "packages", "haggle",
	"pending", "accounts", "ironic", "requests", "final", "blithely", "unusual",
	"café", "naïve", "Zürich", "straße", "日本語", "données", "€uro", "ĳssel", "😀",
}

// text returns a string: random words (0 to about 40 bytes), a short word, an
// id longer than a view's 12 inline bytes, or one of a few values.
func (v *valueGen) text() string {
	switch v.mode {
	case modeSmall:
		return words[v.r.IntN(len(words))]
	case modeSorted:
		v.cur += 1 + v.r.Int64N(3)
		return fmt.Sprintf("Customer#%09d", v.cur)
	case modeFew:
		return words[v.few[v.r.IntN(len(v.few))]&15]
	}
	n := v.r.IntN(41)
	var sb strings.Builder
	for sb.Len() < n {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[v.r.IntN(len(words))])
	}
	return sb.String()
}

// distinct makes values of one type that differ for different ids and sort as
// their ids do; ids run from 0 to limit-1.
type distinct struct {
	dt     arrow.DataType
	limit  int
	base   int64
	stride int64
	prefix string
}

// newDistinct returns the distinct-value maker for dt; its limit is 0 for types
// it cannot make distinct values of.
func (g *gen) newDistinct(dt arrow.DataType) *distinct {
	d := &distinct{dt: dt, limit: 1 << 20, base: g.r.Int64N(1000), stride: 1 + g.r.Int64N(100)}
	d.prefix = words[g.r.IntN(len(words))]
	if g.r.IntN(2) == 0 {
		d.prefix = "k" // short keys stay inline in a view
	}
	switch dt := dt.(type) {
	case *arrow.Int8Type:
		d.limit, d.base, d.stride = 128, 0, 1
	case *arrow.Uint8Type:
		d.limit, d.base, d.stride = 256, 0, 1
	case *arrow.Int16Type:
		d.limit, d.base, d.stride = 1<<15, 0, 1
	case *arrow.Uint16Type:
		d.limit, d.base, d.stride = 1<<16, 0, 1
	case *arrow.FixedSizeBinaryType:
		d.limit = 1 << min(8*dt.ByteWidth, 20)
	case *arrow.Decimal32Type, *arrow.Decimal64Type, *arrow.Decimal128Type, *arrow.Decimal256Type:
		prec := int(dt.(arrow.DecimalType).GetPrecision())
		d.base, d.stride = 0, 1
		if prec < 7 {
			d.limit = int(pow10[prec])
		}
	case *arrow.Date32Type, *arrow.Date64Type:
		d.stride = 1
	case *arrow.Int32Type, *arrow.Int64Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.TimestampType,
		*arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType,
		*arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
	default:
		d.limit = 0
	}
	return d
}

// append appends the value for id to b, the builder of d.dt.
func (d *distinct) append(b array.Builder, id int) {
	x := d.base + int64(id)*d.stride
	str := fmt.Sprintf("%s-%07d", d.prefix, id)
	bin := fmt.Appendf(nil, "%s\x00%c%c%c", d.prefix, byte(id>>16), byte(id>>8), byte(id))
	if AppendInt(b, x) {
		return
	}
	switch b := b.(type) {
	case *array.Float32Builder:
		b.Append(float32(x) + 0.5)
	case *array.Float64Builder:
		b.Append(float64(x) + 0.25)
	case *array.Date32Builder:
		b.Append(arrow.Date32(7305 + x))
	case *array.Date64Builder:
		b.Append(arrow.Date64((7305 + x) * 86_400_000))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(1_600_000_000*unitsPerSecond(b.Type().(*arrow.TimestampType).Unit) + x))
	case *array.Decimal32Builder:
		b.Append(decimal.Decimal32(x))
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(x))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(x))
	case *array.Decimal256Builder:
		b.Append(decimal256.FromI64(x))
	case *array.FixedSizeBinaryBuilder:
		w := b.Type().(*arrow.FixedSizeBinaryType).ByteWidth
		v := make([]byte, w)
		for i := range min(w, 3) {
			v[w-1-i] = byte(id >> (8 * i))
		}
		b.Append(v)
	case *array.StringBuilder:
		b.Append(str)
	case *array.LargeStringBuilder:
		b.Append(str)
	case *array.StringViewBuilder:
		b.Append(str)
	case *array.BinaryBuilder:
		b.Append(bin)
	case *array.BinaryViewBuilder:
		b.Append(bin)
	default:
		panic(fmt.Sprintf("randbatch: no distinct values for %s", d.dt))
	}
}

// distinctIDs returns k distinct ids below limit (k is cut to limit), drawn
// from a small pool so that the same ids recur from one call to the next, in
// ascending order when sorted.
func (g *gen) distinctIDs(k int, sorted bool, limit int) []int {
	k = min(k, limit)
	pool := min(limit, max(2*k, 16))
	ids := g.r.Perm(pool)[:k]
	if sorted {
		slices.Sort(ids)
	}
	return ids
}

// AppendInt appends x, truncated to the width, to b if b builds an integer
// type, and reports whether it did.
func AppendInt(b array.Builder, x int64) bool {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(x))
	case *array.Int16Builder:
		b.Append(int16(x))
	case *array.Int32Builder:
		b.Append(int32(x))
	case *array.Int64Builder:
		b.Append(x)
	case *array.Uint8Builder:
		b.Append(uint8(x))
	case *array.Uint16Builder:
		b.Append(uint16(x))
	case *array.Uint32Builder:
		b.Append(uint32(x))
	case *array.Uint64Builder:
		b.Append(uint64(x))
	default:
		return false
	}
	return true
}
