package randbatch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// fill appends n random rows of dt to b, a builder made for dt. Nested
// builders are filled recursively through their child builders; dt must be
// builderFriendly.
func (g *gen) fill(b array.Builder, dt arrow.DataType, n int, nullable bool) {
	switch dt := dt.(type) {
	case *arrow.ListType, *arrow.LargeListType, *arrow.ListViewType, *arrow.LargeListViewType:
		g.fillList(b.(array.VarLenListLikeBuilder), dt.(arrow.ListLikeType).ElemField(), n, nullable)
	case *arrow.FixedSizeListType:
		lb := b.(*array.FixedSizeListBuilder)
		for range n {
			if g.null(nullable) {
				lb.AppendNull()
				continue
			}
			lb.Append(true)
			g.fill(lb.ValueBuilder(), dt.Elem(), int(dt.Len()), dt.ElemField().Nullable)
		}
	case *arrow.MapType:
		g.fillMap(b.(*array.MapBuilder), dt, n, nullable)
	case *arrow.StructType:
		sb := b.(*array.StructBuilder)
		for range n {
			if g.null(nullable) {
				sb.AppendNull()
				continue
			}
			sb.Append(true)
			for i, f := range dt.Fields() {
				g.fill(sb.FieldBuilder(i), f.Type, 1, f.Nullable)
			}
		}
	case *arrow.SparseUnionType:
		g.fillSparseUnion(b.(*array.SparseUnionBuilder), dt, n)
	case *arrow.DenseUnionType:
		g.fillDenseUnion(b.(*array.DenseUnionBuilder), dt, n)
	case arrow.ExtensionType:
		eb, ok := b.(interface{ StorageBuilder() array.Builder })
		if !ok {
			panic(fmt.Sprintf("randbatch: no storage builder for %s", dt))
		}
		g.fill(eb.StorageBuilder(), dt.StorageType(), n, nullable)
	default:
		g.fillLeaf(b, dt, n, nullable)
	}
}

// fillList fills a list, large list, list view or large list view builder. A
// list view builder lays its views out in order, like a list.
func (g *gen) fillList(lb array.VarLenListLikeBuilder, elem arrow.Field, n int, nullable bool) {
	maxLen := g.listMax()
	for range n {
		if g.null(nullable) {
			lb.AppendNull()
			continue
		}
		k := g.r.IntN(maxLen + 1)
		lb.AppendWithSize(true, k)
		g.fill(lb.ValueBuilder(), elem.Type, k, elem.Nullable)
	}
}

// fillMap fills a map builder with maps whose keys are distinct (and sorted
// when the type says so).
func (g *gen) fillMap(mb *array.MapBuilder, dt *arrow.MapType, n int, nullable bool) {
	maxLen := g.listMax()
	keys := g.newDistinct(dt.KeyType())
	for range n {
		if g.null(nullable) {
			mb.AppendNull()
			continue
		}
		k := g.r.IntN(maxLen + 1)
		mb.Append(true)
		for _, id := range g.distinctIDs(k, dt.KeysSorted, keys.limit) {
			keys.append(mb.KeyBuilder(), id)
		}
		g.fill(mb.ItemBuilder(), dt.ItemType(), k, dt.ItemField().Nullable)
	}
}

// fillSparseUnion appends n rows to a sparse union builder: one value to the
// chosen child and an empty value or a null to every other child.
func (g *gen) fillSparseUnion(ub *array.SparseUnionBuilder, dt *arrow.SparseUnionType, n int) {
	codes, fields := dt.TypeCodes(), dt.Fields()
	for range n {
		c := g.r.IntN(len(codes))
		ub.Append(codes[c])
		for i, f := range fields {
			switch {
			case i == c:
				g.fill(ub.Child(i), f.Type, 1, f.Nullable)
			case g.null(f.Nullable):
				ub.Child(i).AppendNull()
			default:
				ub.Child(i).AppendEmptyValue()
			}
		}
	}
}

// fillDenseUnion appends n rows to a dense union builder, now and then as a
// run of nulls that all point at one child value.
func (g *gen) fillDenseUnion(ub *array.DenseUnionBuilder, dt *arrow.DenseUnionType, n int) {
	codes, fields := dt.TypeCodes(), dt.Fields()
	for i := 0; i < n; i++ {
		if g.r.IntN(4) == 0 && g.null(fields[0].Nullable) {
			run := min(1+g.r.IntN(4), n-i)
			ub.AppendNulls(run)
			i += run - 1
			continue
		}
		c := g.r.IntN(len(codes))
		ub.Append(codes[c])
		g.fill(ub.Child(c), fields[c].Type, 1, fields[c].Nullable)
	}
}

// listMax returns the longest list of the next list array: usually
// Options.MaxListLen, sometimes 0 (an array of empty lists).
func (g *gen) listMax() int {
	if g.r.IntN(10) == 0 {
		return 0
	}
	return g.maxLen
}

// fillLeaf appends n random values, or nulls, to the builder of a leaf type.
func (g *gen) fillLeaf(b array.Builder, dt arrow.DataType, n int, nullable bool) {
	if dt.ID() == arrow.NULL {
		b.AppendNulls(n)
		return
	}
	v := g.vals[b]
	if v == nil {
		v = newValueGen(g.r, dt)
		g.vals[b] = v
		if vb, ok := b.(interface{ SetBlockSize(uint) }); ok && g.r.IntN(3) == 0 {
			// Small blocks spread out-of-line view data over several buffers.
			vb.SetBlockSize(uint(64 << g.r.IntN(4)))
		}
	}
	for range n {
		if g.null(nullable) {
			b.AppendNull()
			continue
		}
		v.append(b)
	}
}
