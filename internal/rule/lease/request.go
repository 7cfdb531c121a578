package lease

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Lease actions (x-ms-lease-action values).
const (
	Acquire = "acquire"
	Renew   = "renew"
	Change  = "change"
	Release = "release"
	Break   = "break"
)

// Request headers of a lease operation.
const (
	HeaderAction      = "x-ms-lease-action"
	HeaderID          = "x-ms-lease-id"
	HeaderProposedID  = "x-ms-proposed-lease-id"
	HeaderDuration    = "x-ms-lease-duration"
	HeaderBreakPeriod = "x-ms-lease-break-period"
)

// Request is a parsed Lease Blob/Container/File/Share request.
type Request struct {
	// Action is one of Acquire, Renew, Change, Release, Break.
	Action string
	// ID and ProposedID are canonical lower-case GUIDs, "" when absent.
	ID, ProposedID string
	// Duration is set for acquire: Infinite or 15..60 seconds.
	Duration *int
	// BreakPeriod is the requested break period in seconds, nil when absent.
	BreakPeriod *int
}

// ParseRequest reads the lease headers of h for a resource of kind k. A
// missing required header is 400 MissingRequiredHeader and a malformed or
// out-of-range one 400 InvalidHeaderValue, each naming the header.
func ParseRequest(h http.Header, k Kind) (Request, error) {
	var req Request
	var err error
	if req.Action, err = parseAction(h, k); err != nil {
		return Request{}, err
	}
	needID := req.Action == Renew || req.Action == Change || req.Action == Release
	if req.ID, err = parseGUIDHeader(h, HeaderID, needID); err != nil {
		return Request{}, err
	}
	if req.Action == Acquire || req.Action == Change {
		if req.ProposedID, err = parseGUIDHeader(h, HeaderProposedID, req.Action == Change); err != nil {
			return Request{}, err
		}
	}
	switch {
	case req.Action == Acquire:
		req.Duration, err = parseDuration(h, k)
	case req.Action == Break && k != File:
		// A file break is always immediate: Lease File has no break period.
		req.BreakPeriod, err = parseBreakPeriod(h)
	}
	if err != nil {
		return Request{}, err
	}
	return req, nil
}

func parseAction(h http.Header, k Kind) (string, error) {
	raw := h.Get(HeaderAction)
	if raw == "" {
		return "", azerr.MissingHeader(HeaderAction)
	}
	action := strings.ToLower(strings.TrimSpace(raw))
	switch action {
	case Acquire, Change, Release, Break:
		return action, nil
	case Renew:
		if k != File {
			return action, nil
		}
	}
	return "", azerr.InvalidHeader(HeaderAction, raw)
}

// parseGUIDHeader reads an optional or required lease ID header.
func parseGUIDHeader(h http.Header, name string, required bool) (string, error) {
	raw := h.Get(name)
	if raw == "" {
		if required {
			return "", azerr.MissingHeader(name)
		}
		return "", nil
	}
	id, ok := ParseID(raw)
	if !ok {
		return "", azerr.InvalidHeader(name, raw)
	}
	return id, nil
}

func parseDuration(h http.Header, k Kind) (*int, error) {
	raw := h.Get(HeaderDuration)
	if raw == "" {
		return nil, azerr.MissingHeader(HeaderDuration)
	}
	d, err := strconv.Atoi(strings.TrimSpace(raw))
	valid := err == nil && (d == Infinite || (k != File && d >= MinDuration && d <= MaxDuration))
	if !valid {
		return nil, azerr.InvalidHeader(HeaderDuration, raw)
	}
	return &d, nil
}

func parseBreakPeriod(h http.Header) (*int, error) {
	raw := h.Get(HeaderBreakPeriod)
	if raw == "" {
		return nil, nil
	}
	p, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || p < 0 || p > MaxBreakPeriod {
		return nil, azerr.InvalidHeader(HeaderBreakPeriod, raw)
	}
	return &p, nil
}

// ParseID reads a lease ID in any of the GUID forms .NET accepts (32 hex
// digits, hyphenated, in braces or in parentheses) and returns it in the
// canonical lower-case hyphenated form, so that equal GUIDs compare equal.
func ParseID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) == 38 && (s[0] == '{' && s[37] == '}' || s[0] == '(' && s[37] == ')') {
		s = s[1:37]
	}
	var digits string
	switch len(s) {
	case 32:
		digits = s
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return "", false
		}
		digits = s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	default:
		return "", false
	}
	var raw [16]byte
	if _, err := hex.Decode(raw[:], []byte(digits)); err != nil {
		return "", false
	}
	return guid.Format(raw), true
}
