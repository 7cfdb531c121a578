package queue

import (
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Limits of queue names (Naming Queues and Metadata).
const (
	minNameLen = 3
	maxNameLen = 63
)

// checkName enforces the queue naming rules: 3 to 63 characters, lower-case
// letters, digits and single hyphens, starting and ending with a letter or
// digit.
func checkName(name string) error {
	if len(name) < minNameLen || len(name) > maxNameLen {
		return azerr.NameLengthOutOfRange()
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-':
		default:
			return azerr.New(azerr.InvalidResourceName)
		}
	}
	return nil
}
