package postgres

import (
	"bytes"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Scan reads the range in pages, each one query with ORDER BY k [DESC] and
// a LIMIT, read completely and its rows closed before fn sees them. Paging
// rather than one open cursor has two reasons:
//
//   - fn may call Get on the same Tx (scan an index, then load each record);
//     a connection with an unfinished result cannot run another query.
//   - when fn stops early, closing an unfinished result still makes pgx read
//     it to its end; a page bounds what is fetched in vain.
//
// Each page resumes after the last key of the previous one, inside the same
// transaction, hence on the same snapshot. The first page is small, so a
// Scan that stops after a few records costs little; later pages grow up to
// maxPage rows or about pageBytes of data. The Update's pending writes are
// sent first, so that the pages include them.
func (t *tx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	if err := t.usable(false); err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	lo, hi := nonNil(start), end
	remaining := opts.Limit
	size := firstPage
	for {
		if hi != nil && bytes.Compare(lo, hi) >= 0 {
			return nil
		}
		n := size
		if opts.Limit > 0 && remaining < n {
			n = remaining
		}
		recs, total, err := t.page(lo, hi, opts.Reverse, n)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if !fn(r.k, r.v) {
				return nil
			}
		}
		remaining -= len(recs)
		if len(recs) < n || (opts.Limit > 0 && remaining == 0) {
			return nil
		}
		last := recs[len(recs)-1].k
		if opts.Reverse {
			hi = last
		} else {
			// last+0x00 is the smallest key after last.
			lo = append(bytes.Clone(last), 0)
		}
		size = nextPageSize(total, len(recs))
	}
}

const (
	firstPage = 64
	maxPage   = 1024
	minPage   = 16
	pageBytes = 4 << 20
)

// nextPageSize sizes the next page from the average record of the last one.
func nextPageSize(total, rows int) int {
	avg := max(total/rows, 1)
	return min(max(pageBytes/avg, minPage), maxPage)
}

type record struct{ k, v []byte }

// page fetches at most n records of [lo, hi) (hi nil: unbounded) in the
// requested order and returns them with their total size in bytes.
func (t *tx) page(lo, hi []byte, reverse bool, n int) ([]record, int, error) {
	args := []any{lo}
	bounded, order := 0, 0
	if hi != nil {
		args = append(args, hi)
		bounded = 1
	}
	if reverse {
		order = 1
	}
	args = append(args, n)
	rows, err := t.tx.Query(t.ctx, t.sql.scan[order][bounded], args...)
	if err != nil {
		return nil, 0, t.fail("scan", err)
	}
	defer rows.Close()
	recs := make([]record, 0, min(n, firstPage))
	total := 0
	for rows.Next() {
		var r record
		if err := rows.Scan(&r.k, &r.v); err != nil {
			return nil, 0, t.fail("scan", err)
		}
		r.v = nonNil(r.v)
		total += len(r.k) + len(r.v)
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, t.fail("scan", err)
	}
	return recs, total, nil
}
