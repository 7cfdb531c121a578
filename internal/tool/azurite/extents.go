package azurite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// chunk is where Azurite keeps a range of content: Count bytes of extent
// ID from Offset (Azurite's IExtentChunk, a document's "persistency").
type chunk struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Count  int64  `json:"count"`
}

// extentFolder is one service's extent files and their catalogue.
type extentFolder struct {
	dir, name string
	// paths maps an extent ID to its file name, from the catalogue;
	// an ID the catalogue does not list is looked for under its own name.
	paths map[string]string
}

// readExtentFolder reads a service's extent catalogue.
func readExtentFolder(dir, catalogue, name string) (*extentFolder, error) {
	db, _, err := readLoki(dir, catalogue)
	if err != nil {
		return nil, err
	}
	f := &extentFolder{dir: dir, name: name, paths: map[string]string{}}
	err = each(db, "$EXTENTS_COLLECTION$", func(e *struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}) error {
		f.paths[e.ID] = e.Path
		return nil
	})
	return f, err
}

// file is the workspace-relative path of extent id.
func (f *extentFolder) file(id string) string {
	p, ok := f.paths[id]
	if !ok || p == "" {
		p = id
	}
	return filepath.Join(f.name, filepath.Base(p))
}

// copier reads chunks out of Azurite's extent files and copies each
// distinct one into an extent of its own.
type copier struct {
	ctx    context.Context
	ext    extent.Engine
	open   map[string]*os.File
	copied map[copyKey]string
	// Bytes counts the content copied.
	Bytes int64
}

type copyKey struct {
	file string
	c    chunk
}

func newCopier(ctx context.Context, ext extent.Engine) *copier {
	return &copier{ctx: ctx, ext: ext, open: map[string]*os.File{}, copied: map[copyKey]string{}}
}

// section is the chunk's bytes; what names the object it belongs to for
// the error of a chunk that cannot be read.
func (c *copier) section(f *extentFolder, ch chunk, what string) (*io.SectionReader, error) {
	name := f.file(ch.ID)
	file, ok := c.open[name]
	if !ok {
		var err error
		if file, err = os.Open(filepath.Join(f.dir, name)); err != nil {
			return nil, fmt.Errorf("%s: content extent %s: %w", what, name, err)
		}
		c.open[name] = file
	}
	info, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: content extent %s: %w", what, name, err)
	}
	if ch.Offset < 0 || ch.Count < 0 || ch.Offset+ch.Count > info.Size() {
		return nil, fmt.Errorf("%s: content extent %s holds %d bytes, not the %d at offset %d its record names",
			what, name, info.Size(), ch.Count, ch.Offset)
	}
	return io.NewSectionReader(file, ch.Offset, ch.Count), nil
}

// read returns a chunk's bytes.
func (c *copier) read(f *extentFolder, ch chunk, what string) ([]byte, error) {
	r, err := c.section(f, ch, what)
	if err != nil {
		return nil, err
	}
	b := make([]byte, ch.Count)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("%s: content extent %s: %w", what, f.file(ch.ID), err)
	}
	return b, nil
}

// copy writes a chunk into a new extent, once per distinct chunk (a
// snapshot shares its base blob's), and returns the extent's ID.
func (c *copier) copy(f *extentFolder, ch chunk, what string) (string, error) {
	key := copyKey{f.file(ch.ID), ch}
	if id, ok := c.copied[key]; ok {
		return id, nil
	}
	r, err := c.section(f, ch, what)
	if err != nil {
		return "", err
	}
	info, err := c.ext.Write(c.ctx, r, ch.Count)
	if err == nil && info.Size != ch.Count {
		err = fmt.Errorf("%d bytes copied, not %d", info.Size, ch.Count)
	}
	if err != nil {
		return "", fmt.Errorf("%s: copying content extent %s: %w", what, key.file, err)
	}
	c.copied[key] = info.ID
	c.Bytes += ch.Count
	return info.ID, nil
}

// Close closes the extent files read.
func (c *copier) Close() error {
	var errs []error
	for _, f := range c.open {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
