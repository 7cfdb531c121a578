package queue

import (
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestCheckName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"abc", true},
		{"my-queue-3", true},
		{"0queue", true},
		{strings.Repeat("a", 63), true},
		{"ab", false},
		{strings.Repeat("a", 64), false},
		{"MyQueue", false},
		{"my queue", false},
		{"-nogood", false},
		{"x-", false},
		{"abc-", false},
		{"a--b", false},
		{"bad(name)", false},
		{"my_queue", false},
		{"queue.name", false},
		{"", false},
	}
	for _, c := range cases {
		err := checkName(c.name)
		if c.ok != (err == nil) {
			t.Errorf("checkName(%q) = %v, want ok=%v", c.name, err, c.ok)
		}
		want := azerr.InvalidResourceName
		if len(c.name) < minNameLen || len(c.name) > maxNameLen {
			want = azerr.OutOfRangeInput
		}
		if err != nil && !azerr.Is(err, want) {
			t.Errorf("checkName(%q) code = %v, want %s", c.name, err, want)
		}
	}
}
