package azurite

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// AtStart is the start-up step (app.Options.Prepare) of a server whose
// data folder holds the Azurite workspace dir: it imports the workspace
// unless the store already holds an import of it, and then writes one
// line to log saying what it imported.
func AtStart(dir string, log io.Writer) func(context.Context, store.Store, extent.Engine) error {
	return func(ctx context.Context, st store.Store, ext extent.Engine) error {
		c, done, err := ImportOnce(ctx, dir, st, ext, time.Now())
		if err != nil {
			return err
		}
		if done {
			where, _ := filepath.Abs(dir)
			fmt.Fprintf(log, "Imported the Azurite workspace in %s: %s.\n", where, c)
		}
		return nil
	}
}
