package codec

import "github.com/apache/arrow-go/v18/arrow"

// dictsChecked is what a checker remembers of the dictionaries it checked
// whole in one call of an Encoder: per dictionary column (its plan), the
// last dictionary that passed and its head. Pieces cut from one batch share
// their dictionary (the same ArrayData), which is then checked once for the
// block instead of once per piece; a dictionary is immutable, so the same
// ArrayData checks the same every time. The writer pushes the dictionary's
// seg with the head the check read (encoding.dict).
type dictsChecked struct {
	last []planDict
}

// planDict is the last dictionary checked whole for a plan, and its head.
type planDict struct {
	p *plan
	d arrow.ArrayData
	h arrayHead
}

// head returns the head of d if d is the dictionary last checked for p,
// else nil.
func (c *dictsChecked) head(p *plan, d arrow.ArrayData) *arrayHead {
	for i := range c.last {
		if e := &c.last[i]; e.p == p {
			if e.d != d {
				return nil
			}
			return &e.h
		}
	}
	return nil
}

// slot returns the entry of p, added empty when p has none, for a
// checker to read a dictionary's head into and, once the dictionary
// passes, to note it in (d).
func (c *dictsChecked) slot(p *plan) *planDict {
	var free *planDict
	for i := range c.last {
		switch e := &c.last[i]; e.p {
		case p:
			return e
		case nil:
			if free == nil {
				free = e
			}
		}
	}
	if free == nil {
		c.last = append(c.last, planDict{})
		free = &c.last[len(c.last)-1]
	}
	free.p = p
	return free
}

// reset forgets every dictionary, so that a pooled encoding keeps none
// alive; the entries stay, empty, for slot to fill again.
func (c *dictsChecked) reset() {
	clear(c.last)
}
