package blobdata

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// AuthTarget is the blob (or container, with object "") a request
// addresses, for the authorizer of either API over blobs (Blob, Data
// Lake). The container's stored access policies and public access level
// are read, in their own snapshot, only for the callers that need them: a
// service SAS naming a policy, an anonymous caller.
func AuthTarget(ctx context.Context, st store.Store, account, container, object string) auth.Target {
	a := auth.Target{Service: auth.Blob, Container: container, Object: object}
	if container == "" {
		return a
	}
	load := func() (c *Container, err error) {
		err = st.View(ctx, func(tx store.Tx) error {
			c, _, err = LoadContainer(tx, account, container)
			return err
		})
		return c, err
	}
	a.Policy = func(id string) (*auth.AccessPolicy, error) {
		c, err := load()
		if err != nil {
			return nil, err
		}
		return c.Policy(id)
	}
	a.Public = func() (auth.PublicLevel, error) {
		c, err := load()
		return c.PublicLevel(), err
	}
	return a
}
