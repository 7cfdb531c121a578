package pgextent

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Remove deletes extent id, or, while readers have it open, marks it
// removed so that their Close deletes it. The row lock taken first makes a
// concurrent Open's registration visible to the check that follows.
func (e *Engine) Remove(ctx context.Context, id string) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, e.sql.lock, id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, e.sql.purge, id)
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		_, err = tx.Exec(ctx, e.sql.markRemoved, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgextent: remove %s: %w", id, err)
	}
	return nil
}

// List reports every extent, in id order, with its age by the database's
// clock. Extents being written are
// included (their age counts from their last chunk), so the sweep collects
// writes a crash cut short, and so are removed extents still held by
// readers, so a later Remove retries them. Rows are read a page at a time,
// never held open while fn runs, so fn may call Remove.
func (e *Engine) List(ctx context.Context, fn func(id string, ageSeconds float64) error) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	after := ""
	for {
		page, err := e.listPage(ctx, after)
		if err != nil {
			return fmt.Errorf("pgextent: list: %w", err)
		}
		for _, x := range page {
			if err := fn(x.id, x.age); err != nil {
				return err
			}
		}
		if len(page) < listPage {
			return nil
		}
		after = page[len(page)-1].id
	}
}

type listed struct {
	id  string
	age float64
}

// listPage returns up to listPage extents with ids after after, in id order.
func (e *Engine) listPage(ctx context.Context, after string) ([]listed, error) {
	rows, err := e.pool.Query(ctx, e.sql.list, after, listPage)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (listed, error) {
		var x listed
		err := row.Scan(&x.id, &x.age)
		return x, err
	})
}

// isForeignKeyViolation reports SQLSTATE 23503, met by a chunk insert whose
// extent row is gone.
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}
