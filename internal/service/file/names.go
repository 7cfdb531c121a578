package file

import (
	"strings"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Limits of the Azure Files namespace ("Naming and referencing shares,
// directories, files, and metadata").
const (
	maxComponentChars = 255  // one directory or file name
	maxPathChars      = 2048 // a whole path inside a share
	maxDepth          = 250  // subdirectories in a path
)

// validShareName applies the share naming rules: 3 to 63 lower-case
// letters, digits and hyphens, starting and ending with a letter or digit,
// no two hyphens in a row.
func validShareName(name string) error {
	if len(name) < 3 || len(name) > 63 {
		return invalidName("share name must be 3 to 63 characters long")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-':
		default:
			return invalidName("share names use lower-case letters, digits and single hyphens")
		}
	}
	return nil
}

func invalidName(why string) *azerr.Error {
	return azerr.Newf(azerr.InvalidResourceName, "The specified resource name contains invalid characters: %s.", why)
}

// reservedNames are device names Windows will not create.
var reservedNames = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true, "CLOCK$": true,
	"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true,
	"COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true,
	"LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
}

// filePath is a validated path inside a share: the names as the client
// wrote them and their case-folded forms, which are what keys and
// comparisons use (Azure Files names are case-preserving and
// case-insensitive).
type filePath struct {
	names  []string
	folded []string
}

// parsePath validates p ("a/b/c", no leading slash; "" is the share's
// root directory). A trailing slash is dropped, as Azure does for
// directories. Without x-ms-allow-trailing-dot, trailing dots of every name
// are dropped too (the service's historic behaviour); with it they are
// kept.
func parsePath(p string, keepTrailingDots bool) (filePath, error) {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return filePath{}, nil
	}
	if !utf8.ValidString(p) {
		return filePath{}, invalidName("the path is not valid UTF-8")
	}
	if utf8.RuneCountInString(p) > maxPathChars {
		return filePath{}, azerr.Newf(azerr.InvalidFileOrDirectoryPathName, "File or directory path is too long.")
	}
	parts := strings.Split(p, "/")
	if len(parts) > maxDepth+1 {
		return filePath{}, azerr.Newf(azerr.InvalidFileOrDirectoryPathName, "File or directory path has too many subdirectories.")
	}
	fp := filePath{names: make([]string, len(parts)), folded: make([]string, len(parts))}
	for i, name := range parts {
		if !keepTrailingDots {
			name = strings.TrimRight(name, ".")
		}
		if err := validComponent(name); err != nil {
			return filePath{}, err
		}
		fp.names[i] = name
		fp.folded[i] = fold(name)
	}
	return fp, nil
}

// validComponent checks one directory or file name.
func validComponent(name string) error {
	if name == "" || name == "." || name == ".." {
		return invalidName("empty, '.' and '..' are not names")
	}
	if utf8.RuneCountInString(name) > maxComponentChars {
		return azerr.Newf(azerr.InvalidFileOrDirectoryPathName, "File or directory name is longer than %d characters.", maxComponentChars)
	}
	for _, r := range name {
		switch {
		case r < 0x20, r == 0x7f:
			return invalidName("control characters are not allowed")
		case strings.ContainsRune(`"\:|<>*?`, r):
			return invalidName(`the characters " \ : | < > * ? are not allowed`)
		case r >= 0xD800 && r <= 0xDFFF, r == utf8.RuneError:
			return invalidName("invalid Unicode characters are not allowed")
		}
	}
	if reservedNames[strings.ToUpper(name)] {
		return invalidName("the name is reserved")
	}
	return nil
}

// fold is the case-insensitive form of a name.
func fold(name string) string { return strings.ToUpper(name) }

// isRoot reports whether the path is the share's root directory.
func (p filePath) isRoot() bool { return len(p.names) == 0 }

// name is the last component as written ("" for the root).
func (p filePath) name() string {
	if p.isRoot() {
		return ""
	}
	return p.names[len(p.names)-1]
}

// String is the path as written, '/'-separated.
func (p filePath) String() string { return strings.Join(p.names, "/") }

// key is the folded path, '/'-separated: the identity of the entry.
func (p filePath) key() string { return strings.Join(p.folded, "/") }

// parentKey is the folded path of the parent directory ("" for entries of
// the root, and for the root itself).
func (p filePath) parentKey() string {
	if len(p.folded) <= 1 {
		return ""
	}
	return strings.Join(p.folded[:len(p.folded)-1], "/")
}

// parent is the parent directory's path.
func (p filePath) parent() filePath {
	if len(p.names) <= 1 {
		return filePath{}
	}
	n := len(p.names) - 1
	return filePath{names: p.names[:n], folded: p.folded[:n]}
}

// within reports whether p is dir or lies below it.
func (p filePath) within(dir filePath) bool {
	if len(p.folded) < len(dir.folded) {
		return false
	}
	for i := range dir.folded {
		if p.folded[i] != dir.folded[i] {
			return false
		}
	}
	return true
}
