package codec

import "github.com/apache/arrow-go/v18/arrow"

// dictsChecked is what a checker remembers of the dictionaries it checked
// whole in one call of an Encoder: per dictionary column (its plan), the
// last dictionary that passed. Pieces cut from one batch share their
// dictionary (the same ArrayData), which is then checked once for the
// block instead of once per piece; a dictionary is immutable, so the same
// ArrayData checks the same every time.
type dictsChecked struct {
	last []planDict
}

// planDict is the last dictionary checked whole for a plan.
type planDict struct {
	p *plan
	d arrow.ArrayData
}

// has reports whether d is the dictionary last checked for p. A nil
// dictsChecked remembers nothing.
func (c *dictsChecked) has(p *plan, d arrow.ArrayData) bool {
	if c == nil {
		return false
	}
	for _, e := range c.last {
		if e.p == p {
			return e.d == d
		}
	}
	return false
}

// add notes d as the dictionary last checked for p.
func (c *dictsChecked) add(p *plan, d arrow.ArrayData) {
	if c == nil {
		return
	}
	for i := range c.last {
		if c.last[i].p == p {
			c.last[i].d = d
			return
		}
	}
	c.last = append(c.last, planDict{p, d})
}

// reset forgets every dictionary, so that a pooled encoding keeps none
// alive.
func (c *dictsChecked) reset() {
	clear(c.last)
	c.last = c.last[:0]
}
