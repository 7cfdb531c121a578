package blobdata

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

// Container record fields of its life cycle beyond creation.
const (
	ctagDeleted = 5 // soft delete: deleted and purge instants, version
	ctagMove    = 6 // a move of the container's records in progress
)

// ContainerLife is the soft delete and move state of a container record
// (service/blob container_softdelete.go, container_move.go).
type ContainerLife struct {
	// DeletedAt is when a soft-deleted container was deleted (zero for a
	// live one); Purge when its retention ends; Version the deleted
	// version that Restore Container names.
	DeletedAt, Purge time.Time
	Version          string
	// MoveTo is set on a container whose records are moving to another
	// key name, MoveFrom on the record that receives them; both hide the
	// container until the move ends.
	MoveTo, MoveFrom string
}

// Hidden reports whether requests see the container as absent: being
// deleted, soft-deleted, or in a move.
func (c *Container) Hidden() bool {
	return c.Deleting || !c.DeletedAt.IsZero() || c.MoveTo != "" || c.MoveFrom != ""
}

func (l *ContainerLife) encode(e *record.Encoder) {
	if !l.DeletedAt.IsZero() {
		e.Field(ctagDeleted, func(e *record.Encoder) {
			e.Time(l.DeletedAt)
			e.Time(l.Purge)
			e.Str(l.Version)
		})
	}
	if l.MoveTo != "" || l.MoveFrom != "" {
		e.Field(ctagMove, func(e *record.Encoder) {
			e.Str(l.MoveTo)
			e.Str(l.MoveFrom)
		})
	}
}

func (l *ContainerLife) decodeField(tag byte, p *record.Decoder) {
	switch tag {
	case ctagDeleted:
		l.DeletedAt, l.Purge, l.Version = p.Time(), p.Time(), p.Str()
	case ctagMove:
		l.MoveTo, l.MoveFrom = p.Str(), p.Str()
	}
}

// ExpiredAt reports whether a deleted container's retention has ended.
func (l *ContainerLife) ExpiredAt(now time.Time) bool {
	return !l.DeletedAt.IsZero() && !now.Before(l.Purge)
}
