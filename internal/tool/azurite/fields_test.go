package azurite

import (
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// Each of Azurite's lease states becomes the instants that give the same
// state in Lazuli, at a time before and after the lease's own instants.
func TestLeaseOf(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	later := at.Add(time.Minute)
	id := "C0FFEE00-0000-4000-8000-000000000001"
	for _, c := range []struct {
		state, duration string
		az              azLease
		want            lease.State
		wantAfter       lease.State
	}{
		{"available", "", azLease{}, lease.Available, lease.Available},
		{"leased", "infinite", azLease{ID: id, DurationSeconds: -1}, lease.Leased, lease.Leased},
		{"leased", "fixed", azLease{ID: id, DurationSeconds: 30, ExpireTime: &later}, lease.Leased, lease.Expired},
		{"expired", "fixed", azLease{ID: id, DurationSeconds: 30, ExpireTime: &at}, lease.Expired, lease.Expired},
		{"breaking", "infinite", azLease{ID: id, DurationSeconds: -1, BreakTime: &later}, lease.Breaking, lease.Broken},
		{"broken", "", azLease{ID: id, BreakTime: &at}, lease.Broken, lease.Broken},
	} {
		l, err := leaseOf(c.state, c.duration, c.az)
		if err != nil {
			t.Errorf("%s: %v", c.state, err)
			continue
		}
		if got, after := l.State(at), l.State(later.Add(time.Second)); got != c.want || after != c.wantAfter {
			t.Errorf("%s %s: %s then %s, want %s then %s", c.state, c.duration, got, after, c.want, c.wantAfter)
		}
		if c.az.ID != "" && l.ID != "c0ffee00-0000-4000-8000-000000000001" {
			t.Errorf("%s: lease ID %q not in canonical lower case", c.state, l.ID)
		}
	}
	for _, bad := range []struct {
		state string
		az    azLease
	}{{"leased", azLease{}}, {"breaking", azLease{ID: id}}, {"stolen", azLease{ID: id}}} {
		if _, err := leaseOf(bad.state, "infinite", bad.az); err == nil {
			t.Errorf("%s %+v: no error", bad.state, bad.az)
		}
	}
}
