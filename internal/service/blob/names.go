package blob

import (
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// maxBlobNameChars is the longest blob name, in characters.
const maxBlobNameChars = 1024

// validContainerName applies Azure's container naming rules: 3 to 63
// characters of lower-case letters, digits and hyphens, starting and ending
// with a letter or digit, no two hyphens in a row. The system containers
// $root, $logs and $web are also valid.
func validContainerName(name string) error {
	switch name {
	case rootContainer, "$logs", "$web":
		return nil
	}
	if len(name) < 3 || len(name) > 63 {
		return azerr.NameLengthOutOfRange()
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-':
		default:
			return invalidName()
		}
	}
	return nil
}

// validBlobName checks a blob name is 1 to 1024 characters long.
func validBlobName(name string) error {
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxBlobNameChars {
		return invalidName()
	}
	return nil
}

func invalidName() *azerr.Error {
	return azerr.Newf(azerr.InvalidResourceName, "The specified resource name contains invalid characters.")
}
