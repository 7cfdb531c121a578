package sqlite

import (
	"context"
	"errors"
	"fmt"
)

// readPool hands out read connections, opening them lazily up to a cap.
type readPool struct {
	path  string
	opts  Options
	idle  chan *conn    // connections ready for a View
	slots chan struct{} // one token per open connection, capacity = the cap
}

func newReadPool(path string, opts Options) *readPool {
	return &readPool{
		path:  path,
		opts:  opts,
		idle:  make(chan *conn, opts.ReadConns),
		slots: make(chan struct{}, opts.ReadConns),
	}
}

// acquire returns an idle connection, opens a new one if the cap allows, or
// waits for one to come back.
func (p *readPool) acquire(ctx context.Context) (*conn, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		c, err := p.open()
		if err != nil {
			<-p.slots
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *readPool) open() (*conn, error) {
	c, err := openConn(p.path, p.opts)
	if err != nil {
		return nil, err
	}
	// query_only turns any write that slipped through into an error.
	if err := c.execSQL("PRAGMA query_only = 1"); err != nil {
		c.close()
		return nil, err
	}
	mmap := fmt.Sprintf("PRAGMA mmap_size = %d", p.opts.ReadMmapBytes)
	if err := c.execSQL(mmap); err != nil {
		c.close()
		return nil, err
	}
	if err := c.prepareRead(); err != nil {
		c.close()
		return nil, fmt.Errorf("sqlite: %s: %w", p.path, err)
	}
	return c, nil
}

// release returns c to the pool, or closes it if a transaction-control
// statement failed on it and its state is unknown.
func (p *readPool) release(c *conn) {
	if c.broken {
		c.close()
		<-p.slots
		return
	}
	p.idle <- c
}

// close closes every connection. The caller guarantees none is checked out.
func (p *readPool) close() error {
	var errs []error
	for {
		select {
		case c := <-p.idle:
			errs = append(errs, c.close())
			<-p.slots
		default:
			return errors.Join(errs...)
		}
	}
}
