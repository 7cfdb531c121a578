package table

import (
	"unsafe"

	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// partBuilder collects the records of one partition during a store scan,
// to decode them into a cache entry once the scan has visited the whole
// partition. It copies the RowKeys and records into one arena; decoding
// then makes every string a view of that arena, so a partition of n
// entities costs a handful of allocations, not n times as many.
type partBuilder struct {
	arena []byte
	spans []uint32 // per row: RowKey start, record start; a row ends where the next begins
	props int      // properties announced by the records
	limit int64    // give up past this estimated size
	over  bool
}

func newPartBuilder(limit int64) *partBuilder { return &partBuilder{limit: limit} }

// add appends a row; rk and rec may alias the store's buffers.
func (b *partBuilder) add(rk string, rec []byte) {
	if b.over {
		return
	}
	_, r := openRecord(rec)
	b.props += r.n
	if b.estimate()+int64(len(rk)+len(rec)) > b.limit || len(b.arena)+len(rk)+len(rec) > 1<<31 {
		b.over, b.arena, b.spans = true, nil, nil
		return
	}
	b.spans = append(b.spans, uint32(len(b.arena)), uint32(len(b.arena)+len(rk)))
	b.arena = append(b.arena, rk...)
	b.arena = append(b.arena, rec...)
}

// estimate is the memory the decoded partition will take.
func (b *partBuilder) estimate() int64 {
	return int64(len(b.arena)) + int64(len(b.spans)/2)*entitySize + int64(b.props)*propertySize
}

// build decodes the collected rows as partition pk's entities. The arena is
// never written again, which is what makes the string views safe.
func (b *partBuilder) build(pk string) ([]Entity, int64, error) {
	n := len(b.spans) / 2
	rows := make([]Entity, n)
	props := make([]Property, 0, min(b.props, len(b.arena)/3+1))
	names := map[string]string{}
	for i := 0; i < n; i++ {
		rkAt, recAt, end := b.spans[2*i], b.spans[2*i+1], uint32(len(b.arena))
		if i+1 < n {
			end = b.spans[2*i+2]
		}
		ts, r := openRecord(b.arena[recAt:end:end])
		first := len(props)
		for {
			name, kind, payload, ok := r.next()
			if !ok {
				break
			}
			nm, seen := names[string(name)]
			if !seen {
				nm = arenaString(name)
				names[nm] = nm
			}
			props = append(props, Property{Name: nm, Value: arenaValue(kind, payload)})
		}
		if r.err != nil {
			return nil, 0, r.err
		}
		rows[i] = Entity{PK: pk, RK: arenaString(b.arena[rkAt:recAt]), Timestamp: ts, Props: props[first:len(props):len(props)]}
	}
	return rows, ghostBytes + b.estimate() + int64(len(pk)), nil
}

// arenaString views arena bytes as a string without copying.
func arenaString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// arenaValue is decodeValue for bytes that stay valid and unchanged:
// strings and binaries are views, not copies.
func arenaValue(kind odata.Kind, p []byte) odata.Value {
	switch kind {
	case odata.KindString:
		return odata.Value{Kind: kind, Str: arenaString(p)}
	case odata.KindBinary:
		return odata.Value{Kind: kind, Bytes: p[:len(p):len(p)]}
	}
	return decodeValue(kind, p)
}
