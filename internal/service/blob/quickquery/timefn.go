package quickquery

import (
	"strconv"
	"strings"
	"time"
)

// parseTimestamp reads the ISO 8601 forms the language accepts: a year,
// year-month or date (each optionally followed by T), and a date with a
// time of minutes, seconds or fractions, with Z or an offset (UTC when
// none): 2007T, 2007-01-02T, 2007-01-02T03:04Z, 2017-01-02T03:04:05.006+05:30.
func parseTimestamp(s string) (time.Time, error) {
	p := tsParser{s: s}
	year, ok := p.digits(4)
	if !ok {
		return time.Time{}, errTypeConversion
	}
	month, day := 1, 1
	if p.take('-') {
		if month, ok = p.digits(2); !ok {
			return time.Time{}, errTypeConversion
		}
		if p.take('-') {
			if day, ok = p.digits(2); !ok {
				return time.Time{}, errTypeConversion
			}
		}
	}
	var hour, minute, second, nanos int
	loc := time.UTC
	if p.take('T') && p.more() {
		if hour, minute, second, nanos, ok = p.clock(); !ok {
			return time.Time{}, errTypeConversion
		}
		if loc, ok = p.offset(); !ok {
			return time.Time{}, errTypeConversion
		}
	}
	if p.more() || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, errTypeConversion
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nanos, loc)
	if t.Day() != day {
		return time.Time{}, errTypeConversion // February 30th and the like
	}
	return t, nil
}

type tsParser struct {
	s string
	i int
}

func (p *tsParser) more() bool { return p.i < len(p.s) }

func (p *tsParser) take(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *tsParser) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// clock reads hh:mm[:ss[.fraction]].
func (p *tsParser) clock() (hour, minute, second, nanos int, ok bool) {
	if hour, ok = p.digits(2); !ok || !p.take(':') {
		return 0, 0, 0, 0, false
	}
	if minute, ok = p.digits(2); !ok {
		return 0, 0, 0, 0, false
	}
	if p.take(':') {
		if second, ok = p.digits(2); !ok {
			return 0, 0, 0, 0, false
		}
		if p.take('.') {
			start := p.i
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
			frac := p.s[start:p.i]
			if frac == "" || len(frac) > 9 {
				return 0, 0, 0, 0, false
			}
			n, _ := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
			nanos = n
		}
	}
	return hour, minute, second, nanos, true
}

// offset reads Z, ±hh:mm or ±hhmm; none means UTC.
func (p *tsParser) offset() (*time.Location, bool) {
	if !p.more() || p.take('Z') {
		return time.UTC, true
	}
	sign := 1
	switch {
	case p.take('+'):
	case p.take('-'):
		sign = -1
	default:
		return nil, false
	}
	h, ok := p.digits(2)
	if !ok {
		return nil, false
	}
	p.take(':')
	m, ok := p.digits(2)
	if !ok || h > 23 || m > 59 {
		return nil, false
	}
	secs := sign * (h*3600 + m*60)
	if secs == 0 {
		return time.UTC, true
	}
	return time.FixedZone("", secs), true
}

// formatTimestamp writes a timestamp in ISO 8601 with its own offset.
func formatTimestamp(t time.Time) string {
	return t.Format("2006-01-02T15:04:05.999999999Z07:00")
}

func (ev *evaluator) timeFunction(name string, args []value) (value, error) {
	switch name {
	case "TO_TIMESTAMP":
		t, err := args[0].asTime()
		return timeValue(t), err
	case "TO_STRING":
		t, err1 := args[0].asTime()
		layout, err2 := args[1].asString()
		if err1 != nil || err2 != nil {
			return null, errTypeConversion
		}
		return stringValue(formatWith(t, layout)), nil
	case "EXTRACT":
		part, _ := args[0].asString()
		t, err := args[1].asTime()
		if err != nil {
			return null, err
		}
		return intValue(extract(part, t)), nil
	case "DATE_ADD":
		part, _ := args[0].asString()
		n, err1 := args[1].asInt()
		t, err2 := args[2].asTime()
		if err1 != nil || err2 != nil {
			return null, errTypeConversion
		}
		return timeValue(dateAdd(part, n, t)), nil
	case "DATE_DIFF":
		part, _ := args[0].asString()
		a, err1 := args[1].asTime()
		b, err2 := args[2].asTime()
		if err1 != nil || err2 != nil {
			return null, errTypeConversion
		}
		return intValue(dateDiff(part, a, b)), nil
	}
	return null, errInvalidArgument
}

func extract(part string, t time.Time) int64 {
	_, offset := t.Zone()
	switch part {
	case "YEAR":
		return int64(t.Year())
	case "MONTH":
		return int64(t.Month())
	case "DAY":
		return int64(t.Day())
	case "HOUR":
		return int64(t.Hour())
	case "MINUTE":
		return int64(t.Minute())
	case "SECOND":
		return int64(t.Second())
	case "TIMEZONE_HOUR":
		return int64(offset / 3600)
	}
	return int64(offset % 3600 / 60) // TIMEZONE_MINUTE
}

func dateAdd(part string, n int64, t time.Time) time.Time {
	switch part {
	case "YEAR":
		return t.AddDate(int(n), 0, 0)
	case "MONTH":
		return t.AddDate(0, int(n), 0)
	case "DAY":
		return t.AddDate(0, 0, int(n))
	case "HOUR":
		return t.Add(time.Duration(n) * time.Hour)
	case "MINUTE":
		return t.Add(time.Duration(n) * time.Minute)
	}
	return t.Add(time.Duration(n) * time.Second)
}

// dateDiff counts the whole parts from a to b (negative when b is
// earlier), on instants: the offsets of a and b are taken into account.
func dateDiff(part string, a, b time.Time) int64 {
	a, b = a.UTC(), b.UTC()
	switch part {
	case "YEAR", "MONTH":
		months := (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
		// A month counts only once the day and time of month are reached.
		if months > 0 && b.AddDate(0, -months, 0).Before(a) {
			months--
		} else if months < 0 && b.AddDate(0, -months, 0).After(a) {
			months++
		}
		if part == "YEAR" {
			return int64(months / 12)
		}
		return int64(months)
	}
	unit := map[string]time.Duration{"DAY": 24 * time.Hour, "HOUR": time.Hour, "MINUTE": time.Minute}[part]
	if unit == 0 {
		unit = time.Second
	}
	return int64(b.Sub(a) / unit)
}

var monthAbbreviations = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

// formatWith renders t with a TO_STRING pattern: runs of the same letter
// are fields (yy, yyyy, M to MMMM, d, dd, a, h, hh, H, HH, m, mm, s, ss, S to
// SSS, X to XXXXX, x to xxxxx); anything else is copied.
func formatWith(t time.Time, layout string) string {
	var b strings.Builder
	for i := 0; i < len(layout); {
		c := layout[i]
		j := i
		for j < len(layout) && layout[j] == c {
			j++
		}
		b.WriteString(formatField(t, c, j-i))
		i = j
	}
	return b.String()
}

func formatField(t time.Time, c byte, n int) string {
	pad := func(v, width int) string {
		s := strconv.Itoa(v)
		for len(s) < width {
			s = "0" + s
		}
		return s
	}
	switch c {
	case 'y':
		if n == 2 {
			return pad(t.Year()%100, 2)
		}
		return pad(t.Year(), 4)
	case 'M':
		switch n {
		case 1:
			return strconv.Itoa(int(t.Month()))
		case 2:
			return pad(int(t.Month()), 2)
		case 3:
			return monthAbbreviations[t.Month()-1]
		}
		return t.Month().String()
	case 'd':
		return pad(t.Day(), n)
	case 'a':
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return pad(h, n)
	case 'H':
		return pad(t.Hour(), n)
	case 'm':
		return pad(t.Minute(), n)
	case 's':
		return pad(t.Second(), n)
	case 'S':
		frac := pad(t.Nanosecond(), 9)
		return frac[:min(n, 9)]
	case 'X', 'x':
		return formatOffset(t, c, n)
	}
	return strings.Repeat(string(c), n)
}

// formatOffset renders the zone offset: X forms write Z for UTC, x forms a
// number; one letter gives hours, two or four +hhmm, three or five +hh:mm.
func formatOffset(t time.Time, c byte, n int) string {
	_, secs := t.Zone()
	if secs == 0 && c == 'X' {
		return "Z"
	}
	sign := "+"
	if secs < 0 {
		sign, secs = "-", -secs
	}
	h, m := secs/3600, secs%3600/60
	switch n {
	case 1:
		if c == 'x' {
			return sign + strconv.Itoa(h)
		}
		return sign + twoDigits(h)
	case 3, 5:
		return sign + twoDigits(h) + ":" + twoDigits(m)
	}
	return sign + twoDigits(h) + twoDigits(m)
}

func twoDigits(v int) string {
	if v < 10 {
		return "0" + strconv.Itoa(v)
	}
	return strconv.Itoa(v)
}
