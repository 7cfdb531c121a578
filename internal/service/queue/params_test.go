package queue

import (
	"net/url"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

const newVersion = "2024-08-04"

func query(s string) url.Values {
	q, err := url.ParseQuery(s)
	if err != nil {
		panic(err)
	}
	return q
}

// detail returns the value of an error body element, or "".
func detail(err error, name string) string {
	e, ok := azerr.As(err)
	if !ok {
		return ""
	}
	for _, d := range e.Details {
		if d.Name == name {
			return d.Value
		}
	}
	return ""
}

// TestParsePutParams pins Put Message's visibilitytimeout and messagettl.
// The reference allows "any positive number" of seconds for messagettl
// from 2017-07-29, and -1 for never; the REST specification types it as a
// 32-bit integer (azure-rest-api-specs queue.json, which the SDKs generate
// from: azqueue's MessageTimeToLive is an *int32), so 2147483648 is out of
// range.
func TestParsePutParams(t *testing.T) {
	week := 7 * 24 * time.Hour
	cases := []struct {
		q, version string
		vis, ttl   time.Duration
		code       string
		max        string
	}{
		{"", newVersion, 0, week, "", ""},
		{"visibilitytimeout=10&messagettl=20", newVersion, 10 * time.Second, 20 * time.Second, "", ""},
		{"messagettl=-1", newVersion, 0, -time.Second, "", ""},
		{"messagettl=-1&visibilitytimeout=604800", newVersion, week, -time.Second, "", ""},
		{"messagettl=2592000", newVersion, 0, 30 * 24 * time.Hour, "", ""},
		{"messagettl=0", newVersion, 0, 0, azerr.OutOfRangeQueryParameterValue, "2147483647"},
		{"messagettl=-2", newVersion, 0, 0, azerr.OutOfRangeQueryParameterValue, "2147483647"},
		{"messagettl=2147483648", newVersion, 0, 0, azerr.OutOfRangeQueryParameterValue, "2147483647"},
		{"messagettl=-1", "2017-04-17", 0, 0, azerr.OutOfRangeQueryParameterValue, "604800"},
		{"messagettl=604801", "2017-04-17", 0, 0, azerr.OutOfRangeQueryParameterValue, "604800"},
		{"messagettl=abc", newVersion, 0, 0, azerr.InvalidQueryParameterValue, ""},
		{"visibilitytimeout=-1", newVersion, 0, 0, azerr.OutOfRangeQueryParameterValue, "604800"},
		{"visibilitytimeout=604801&messagettl=-1", newVersion, 0, 0, azerr.OutOfRangeQueryParameterValue, "604800"},
		{"visibilitytimeout=20&messagettl=20", newVersion, 0, 0, azerr.InvalidQueryParameterValue, ""},
		{"visibilitytimeout=1.5", newVersion, 0, 0, azerr.InvalidQueryParameterValue, ""},
	}
	for _, c := range cases {
		p, err := parsePutParams(query(c.q), c.version)
		if c.code != "" {
			if !azerr.Is(err, c.code) || detail(err, "MaximumAllowed") != c.max {
				t.Errorf("%s@%s: err = %v (max %q), want %s max %q", c.q, c.version, err, detail(err, "MaximumAllowed"), c.code, c.max)
			}
			continue
		}
		if err != nil || p.Visibility != c.vis || p.TTL != c.ttl {
			t.Errorf("%s: got %+v, %v; want vis %v ttl %v", c.q, p, err, c.vis, c.ttl)
		}
	}
}

func TestParseGetParams(t *testing.T) {
	cases := []struct {
		q, version string
		want       getParams
		code       string
		min, max   string
	}{
		{"", newVersion, getParams{Count: 1, Visibility: 30 * time.Second}, "", "", ""},
		{"numofmessages=32&visibilitytimeout=604800", newVersion, getParams{Count: 32, Visibility: 7 * 24 * time.Hour}, "", "", ""},
		{"peekonly=true&numofmessages=5&visibilitytimeout=0", newVersion, getParams{Peek: true, Count: 5}, "", "", ""},
		{"peekonly=TRUE", newVersion, getParams{Peek: true, Count: 1}, "", "", ""},
		{"peekonly=false", newVersion, getParams{Count: 1, Visibility: 30 * time.Second}, "", "", ""},
		{"peekonly=maybe", newVersion, getParams{}, azerr.InvalidQueryParameterValue, "", ""},
		{"numofmessages=0", newVersion, getParams{}, azerr.OutOfRangeQueryParameterValue, "1", "32"},
		{"numofmessages=33", newVersion, getParams{}, azerr.OutOfRangeQueryParameterValue, "1", "32"},
		{"peekonly=true&numofmessages=33", newVersion, getParams{}, azerr.OutOfRangeQueryParameterValue, "1", "32"},
		{"visibilitytimeout=0", newVersion, getParams{}, azerr.OutOfRangeQueryParameterValue, "1", "604800"},
		{"visibilitytimeout=604801", newVersion, getParams{}, azerr.OutOfRangeQueryParameterValue, "1", "604800"},
		{"visibilitytimeout=7201", "2009-09-19", getParams{}, azerr.OutOfRangeQueryParameterValue, "1", "7200"},
		{"numofmessages=x", newVersion, getParams{}, azerr.InvalidQueryParameterValue, "", ""},
	}
	for _, c := range cases {
		p, err := parseGetParams(query(c.q), c.version)
		if c.code != "" {
			if !azerr.Is(err, c.code) || detail(err, "MinimumAllowed") != c.min || detail(err, "MaximumAllowed") != c.max {
				t.Errorf("%s: err = %v, want %s [%s, %s]", c.q, err, c.code, c.min, c.max)
			}
			continue
		}
		if err != nil || p != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.q, p, err, c.want)
		}
	}
}

func TestParseUpdateVisibility(t *testing.T) {
	if _, err := parseUpdateVisibility(query("")); !azerr.Is(err, azerr.MissingRequiredQueryParameter) {
		t.Errorf("missing: %v", err)
	}
	if v, err := parseUpdateVisibility(query("visibilitytimeout=0")); err != nil || v != 0 {
		t.Errorf("0: %v %v", v, err)
	}
	if _, err := parseUpdateVisibility(query("visibilitytimeout=604801")); !azerr.Is(err, azerr.OutOfRangeQueryParameterValue) {
		t.Errorf("too long: %v", err)
	}
}

func TestMaxResults(t *testing.T) {
	for q, want := range map[string]int{"": 5000, "maxresults=1": 1, "maxresults=6000": 5000} {
		if n, err := maxResults(query(q)); err != nil || n != want {
			t.Errorf("%s: %d %v, want %d", q, n, err, want)
		}
	}
	if _, err := maxResults(query("maxresults=0")); !azerr.Is(err, azerr.OutOfRangeQueryParameterValue) {
		t.Errorf("0: %v", err)
	}
}
