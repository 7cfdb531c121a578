package auth

// Azure sorts the x-ms-* headers of a Shared Key string-to-sign with a
// culture-aware collation, not byte order: '-' and '\'' are ignored at the
// first level, punctuation sorts before digits and digits before letters,
// and letters compare case-insensitively. The newer Azure SDKs (azblob,
// azfile) reproduce this collation, so it must be reproduced here too or
// requests with headers such as x-ms-meta-a_b and x-ms-meta-a1 fail to
// verify. Only characters legal in an HTTP header name matter.

// primaryOrder lists the characters that count at the first level, in
// ascending order. Every character not listed (and every uppercase letter,
// which folds to lowercase first) is ignored at that level.
const primaryOrder = "!#$%&*.^_`|~+0123456789abcdefghijklmnopqrstuvwxyz"

// Weights: 0 means "ignored at this level", endWeight marks the end of a
// string and sorts before every real weight.
const endWeight = 1

var primaryWeights = func() [256]int {
	var w [256]int
	for i := 0; i < len(primaryOrder); i++ {
		c := primaryOrder[i]
		w[c] = endWeight + 1 + i
		if c >= 'a' && c <= 'z' {
			w[c-'a'+'A'] = w[c]
		}
	}
	return w
}()

// secondaryWeight breaks ties between names equal at the first level: they
// differ only in ignored characters, of which only '\” and '-' count here.
func secondaryWeight(c byte) int {
	switch c {
	case '\'':
		return endWeight + 1
	case '-':
		return endWeight + 2
	}
	return 0
}

func weightAt(s string, i int, level int) int {
	if i >= len(s) {
		return endWeight
	}
	if level == 0 {
		return primaryWeights[s[i]]
	}
	return secondaryWeight(s[i])
}

// collateHeaderNames compares two header names in Azure's order: negative
// when a sorts first, positive when b does, 0 when equal.
func collateHeaderNames(a, b string) int {
	if c := comparePrimary(a, b); c != 0 {
		return c
	}
	return compareSecondary(a, b)
}

// comparePrimary walks both names skipping ignored characters and compares
// the first differing weights.
func comparePrimary(a, b string) int {
	i, j := 0, 0
	for {
		wa, wb := weightAt(a, i, 0), weightAt(b, j, 0)
		switch {
		case wa == endWeight && wb == endWeight:
			return 0
		case wa == wb:
			i++
			j++
		case wa == 0:
			i++
		case wb == 0:
			j++
		case wa < wb:
			return -1
		default:
			return 1
		}
	}
}

// compareSecondary walks both names in step. The first time one side holds
// a weighted character where the other holds an unweighted one, the name
// that got ahead — the one whose weighted character comes later — sorts
// first; two different weighted characters compare by weight.
func compareSecondary(a, b string) int {
	i, j := 0, 0
	for {
		if i != j {
			if i > j {
				return -1
			}
			return 1
		}
		wa, wb := weightAt(a, i, 1), weightAt(b, j, 1)
		switch {
		case wa == endWeight && wb == endWeight:
			return 0
		case wa == wb:
			i++
			j++
		case wa == 0:
			i++
		case wb == 0:
			j++
		case wa < wb:
			return -1
		default:
			return 1
		}
	}
}
