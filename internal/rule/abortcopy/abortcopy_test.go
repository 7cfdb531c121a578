package abortcopy

import (
	"net/http/httptest"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestParse(t *testing.T) {
	const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
	for _, tc := range []struct {
		name, action, query, code string
	}{
		{"abort", "abort", "copyid=" + id, ""},
		{"any case", "Abort", "copyid=" + id, ""},
		{"no action", "", "copyid=" + id, azerr.MissingRequiredHeader},
		{"other action", "cancel", "copyid=" + id, azerr.InvalidHeaderValue},
		{"no copy id", "abort", "", azerr.MissingRequiredQueryParameter},
		{"empty copy id", "abort", "copyid=", azerr.MissingRequiredQueryParameter},
		{"not a GUID", "abort", "copyid=copynotstarted", azerr.InvalidQueryParameterValue},
	} {
		r := httptest.NewRequest("PUT", "/c/b?comp=copy&"+tc.query, nil)
		if tc.action != "" {
			r.Header.Set("X-Ms-Copy-Action", tc.action)
		}
		got, err := Parse(r)
		switch {
		case tc.code == "" && (err != nil || got != id):
			t.Errorf("%s: Parse = %q, %v", tc.name, got, err)
		case tc.code != "" && !azerr.Is(err, tc.code):
			t.Errorf("%s: Parse error %v, want %s", tc.name, err, tc.code)
		}
	}
}
