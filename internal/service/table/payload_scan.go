package table

import "encoding/json"

// Entity bodies are small JSON objects that arrive on every insert and
// update. encoding/json's streaming decoder spends several microseconds
// and a hundred allocations on one; a body that json.Valid accepts as a
// single object is instead walked here, which only has to find where each
// member starts and ends. Any other body goes through the decoder
// (decodeMembers), whose progress decides which error it gets.

// startsObject reports whether the first non-space byte of body is '{'.
func startsObject(body []byte) bool {
	i := skipSpace(body, 0)
	return i < len(body) && body[i] == '{'
}

// eachMember hands the name and raw value of each member of body to
// collect, in order. body must be one valid JSON object (json.Valid).
func eachMember(body []byte, collect func(name string, raw json.RawMessage) error) error {
	i := skipSpace(body, 0) + 1 // past '{'
	for {
		i = skipSpace(body, i)
		switch body[i] {
		case '}':
			return nil
		case ',':
			i = skipSpace(body, i+1)
		}
		end := valueEnd(body, i)
		name, _ := jsonString(body[i:end])
		i = skipSpace(body, end) + 1 // past ':'
		i = skipSpace(body, i)
		end = valueEnd(body, i)
		if err := collect(name, json.RawMessage(body[i:end:end])); err != nil {
			return err
		}
		i = end
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the valid JSON value starting at i.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		for j := i + 1; ; j++ {
			switch b[j] {
			case '\\':
				j++ // the escaped byte cannot end the string
			case '"':
				return j + 1
			}
		}
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				j = valueEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i // a number, true, false or null
	for j < len(b) && !isValueDelimiter(b[j]) {
		j++
	}
	return j
}

func isValueDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// jsonString decodes raw as json.Unmarshal into a string would, reporting
// whether it succeeded: a plain ASCII literal without escapes is its own
// text, anything else (escapes, non-ASCII bytes, null, a non-string) goes
// through json.Unmarshal.
func jsonString(raw []byte) (string, bool) {
	if plain := len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"'; plain {
		inner := raw[1 : len(raw)-1]
		for _, c := range inner {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				plain = false
				break
			}
		}
		if plain {
			return string(inner), true
		}
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}
