package quickquery

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// collect is a Sink that keeps everything, for assertions.
type collect struct {
	data     strings.Builder
	errors   []string
	progress int
	ended    bool
}

func (c *collect) Data(p []byte) error { c.data.Write(p); return nil }
func (c *collect) Progress(scanned, total int64) error {
	c.progress++
	return nil
}
func (c *collect) Error(fatal bool, name, description string, position int64) error {
	c.errors = append(c.errors, fmt.Sprintf("%v %s @%d", fatal, name, position))
	return nil
}
func (c *collect) End(int64) error { c.ended = true; return nil }

const people = "name,age,city,joined\n" +
	"Ada,36,London,2019-03-01T10:00:00Z\n" +
	"Linus,28,Helsinki,2021-07-15T08:30:00Z\n" +
	"Grace,85,\"New York, NY\",2015-12-09T00:00:00Z\n" +
	"alan,41,london,2020-01-31T23:59:59Z\n"

const products = `{"id":1,"name":"mouse","price":12.5,"tags":["wireless","accessory"],"dimensions":{"length":3,"width":2},"warehouses":[{"lat":41.8,"lon":-87.6}]}
{"id":2,"name":"keyboard","price":30,"tags":["wired"],"dimensions":{"length":45,"width":15},"warehouses":[{"lat":47.6,"lon":-122.3},{"lat":40.7,"lon":-74}]}
{"id":3,"name":"cable","price":null,"tags":[]}
`

var fixedNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func run(t *testing.T, query, data string, input Input, output Output) *collect {
	t.Helper()
	q, err := Parse(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	c := &collect{}
	if err := Run(context.Background(), q, strings.NewReader(data), int64(len(data)), input, output, c, fixedNow); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if !c.ended {
		t.Fatalf("%s: no end record", query)
	}
	return c
}

var (
	csvWithHeaders = Input{CSV: CSV{ColumnSeparator: ",", FieldQuote: `"`, RecordSeparator: "\n", HasHeaders: true}}
	csvNoHeaders   = Input{CSV: DefaultCSV}
	jsonLines      = Input{JSON: true, Sep: "\n"}
	csvOut         = Output{CSV: DefaultCSV}
	jsonOut_       = Output{JSON: true, Sep: "\n"}
)

func TestQueries(t *testing.T) {
	cases := []struct {
		query  string
		data   string
		in     Input
		out    Output
		want   string
		errors string // non-fatal and fatal error records, joined by ;
	}{
		{"SELECT * FROM BlobStorage", people, csvWithHeaders, csvOut,
			"Ada,36,London,2019-03-01T10:00:00Z\nLinus,28,Helsinki,2021-07-15T08:30:00Z\nGrace,85,\"New York, NY\",2015-12-09T00:00:00Z\nalan,41,london,2020-01-31T23:59:59Z\n", ""},
		{"SELECT name FROM BlobStorage WHERE age > 40", people, csvWithHeaders, csvOut, "Grace\nalan\n", ""},
		{"SELECT _1, _2 FROM BlobStorage WHERE _2 = 28", people, csvWithHeaders, csvOut, "Linus,28\n", ""},
		{`SELECT "name" FROM BlobStorage WHERE "city" = 'London'`, people, csvWithHeaders, csvOut, "Ada\n", ""},
		{"SELECT NAME FROM BlobStorage WHERE CITY = 'london'", people, csvWithHeaders, csvOut, "alan\n", ""},
		{"SELECT name FROM BlobStorage WHERE LOWER(city) = 'london'", people, csvWithHeaders, csvOut, "Ada\nalan\n", ""},
		{"SELECT UPPER(name), CHAR_LENGTH(city) FROM BlobStorage LIMIT 2", people, csvWithHeaders, csvOut, "ADA,6\nLINUS,8\n", ""},
		{"SELECT COUNT(*) FROM BlobStorage", people, csvWithHeaders, csvOut, "4\n", ""},
		{"SELECT COUNT(*) FROM BlobStorage WHERE age BETWEEN 30 AND 50", people, csvWithHeaders, csvOut, "2\n", ""},
		{"SELECT SUM(age), MIN(age), MAX(age) FROM BlobStorage", people, csvWithHeaders, csvOut, "190,28,85\n", ""},
		{"SELECT AVG(age) FROM BlobStorage WHERE age < 40", people, csvWithHeaders, csvOut, "32\n", ""},
		{"SELECT AVERAGE(CAST(age AS FLOAT)) FROM BlobStorage", people, csvWithHeaders, csvOut, "47.5\n", ""},
		{"SELECT name FROM BlobStorage WHERE name LIKE 'a%'", people, csvWithHeaders, csvOut, "alan\n", ""},
		{"SELECT name FROM BlobStorage WHERE name LIKE '_r%'", people, csvWithHeaders, csvOut, "Grace\n", ""},
		{"SELECT name FROM BlobStorage WHERE name NOT LIKE '%a%'", people, csvWithHeaders, csvOut, "Linus\n", ""},
		{"SELECT name FROM BlobStorage WHERE age IN (28, 85)", people, csvWithHeaders, csvOut, "Linus\nGrace\n", ""},
		{"SELECT name FROM BlobStorage WHERE age NOT IN (28, 85) AND NOT city = 'London'", people, csvWithHeaders, csvOut, "alan\n", ""},
		{"SELECT name FROM BlobStorage WHERE age > 30 OR city = 'Helsinki' LIMIT 3", people, csvWithHeaders, csvOut, "Ada\nLinus\nGrace\n", ""},
		{"SELECT age * 2 + 1, age / 10, age % 10, -age FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "73,3,6,-36\n", ""},
		{"SELECT name || '@' || city FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "Ada@London\n", ""},
		{"SELECT SUBSTRING(name, 1, 2), SUBSTRING(name FROM 2) FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "da,a\n", ""},
		{"SELECT TRIM(BOTH '123' FROM '1112211Microsoft22211122'), TRIM('  x  '), TRIM(LEADING 'x' FROM 'xxyxx') FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "Microsoft,x,yxx\n", ""},
		{"SELECT name FROM BlobStorage WHERE CAST(joined AS TIMESTAMP) > CAST('2020-01-01T' AS TIMESTAMP)", people, csvWithHeaders, csvOut, "Linus\nalan\n", ""},
		{"SELECT EXTRACT(YEAR FROM joined), EXTRACT(month FROM joined) FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "2019,3\n", ""},
		{"SELECT DATE_ADD(day, 1, CAST(joined AS TIMESTAMP)) FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "2019-03-02T10:00:00Z\n", ""},
		{"SELECT DATE_DIFF('hour', '2018-11-09T00:00+05:30', '2018-11-09T01:00:23-08:00') FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "14\n", ""},
		{"SELECT TO_STRING(CAST('1969-07-20T20:18Z' AS TIMESTAMP), 'MMMM d, y') FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "\"July 20, 1969\"\n", ""},
		{"SELECT TO_STRING(TO_TIMESTAMP('2007-03-04T05:06:07.891+01:00'), 'yy-MM-dd HH:mm:ss.SSS XXX MMM a') FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "07-03-04 05:06:07.891 +01:00 MAR AM\n", ""},
		{"SELECT UTCNOW() FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, "2026-11-24T12:00:00Z\n", ""},
		{"SELECT NULLIF(city, 'London'), COALESCE(NULLIF(city, 'London'), 'UK') FROM BlobStorage LIMIT 1", people, csvWithHeaders, csvOut, ",UK\n", ""},
		{"SELECT name FROM BlobStorage WHERE missing_column IS NULL LIMIT 1", people, csvWithHeaders, csvOut, "Ada\n", ""},
		{"SELECT _2 FROM BlobStorage WHERE _2 > 30", people, csvNoHeaders, csvOut, "36\n85\n41\n", "false InvalidTypeConversion @0"},
		{"SELECT * FROM BlobStorage", people, csvWithHeaders, jsonOut_,
			`{"name":"Ada","age":"36","city":"London","joined":"2019-03-01T10:00:00Z"}` + "\n" +
				`{"name":"Linus","age":"28","city":"Helsinki","joined":"2021-07-15T08:30:00Z"}` + "\n" +
				`{"name":"Grace","age":"85","city":"New York, NY","joined":"2015-12-09T00:00:00Z"}` + "\n" +
				`{"name":"alan","age":"41","city":"london","joined":"2020-01-31T23:59:59Z"}` + "\n", ""},
		{"SELECT name, CAST(age AS INT) FROM BlobStorage WHERE age < 30", people, csvWithHeaders, jsonOut_, `{"name":"Linus","_2":28}` + "\n", ""},
		{"SELECT * FROM BlobStorage WHERE price > 20", products, jsonLines, jsonOut_,
			`{"id":2,"name":"keyboard","price":30,"tags":["wired"],"dimensions":{"length":45,"width":15},"warehouses":[{"lat":47.6,"lon":-122.3},{"lat":40.7,"lon":-74}]}` + "\n", ""},
		{"SELECT name, price FROM BlobStorage[*] WHERE price IS NOT NULL", products, jsonLines, csvOut, "mouse,12.5\nkeyboard,30\n", ""},
		{"SELECT id FROM BlobStorage WHERE dimensions IS MISSING", products, jsonLines, csvOut, "3\n", ""},
		{"SELECT id, tags[0], dimensions.length, warehouses[0].lon FROM BlobStorage", products, jsonLines, jsonOut_,
			`{"id":1,"tags":"wireless","length":3,"lon":-87.6}` + "\n" + `{"id":2,"tags":"wired","length":45,"lon":-122.3}` + "\n" + `{"id":3}` + "\n", ""},
		{"SELECT lat FROM BlobStorage[*].warehouses[*] WHERE lon < -80", products, jsonLines, csvOut, "41.8\n47.6\n", ""},
		{"SELECT length FROM BlobStorage[*].dimensions", products, jsonLines, csvOut, "3\n45\n", ""},
		{"SELECT COUNT(price), SUM(price) FROM BlobStorage", products, jsonLines, csvOut, "2,42.5\n", ""},
		{"SELECT * FROM BlobStorage", "a;b|c;\"d|e\"|", Input{CSV: CSV{ColumnSeparator: ";", FieldQuote: `"`, RecordSeparator: "|"}},
			Output{CSV: CSV{ColumnSeparator: "\t", FieldQuote: `'`, RecordSeparator: "\r\n"}}, "a\tb\r\nc\td|e\r\n", ""},
		{"SELECT * FROM BlobStorage", "x\\,y,z\n", Input{CSV: CSV{ColumnSeparator: ",", RecordSeparator: "\n", EscapeChar: `\`}}, jsonOut_,
			`{"_1":"x,y","_2":"z"}` + "\n", ""},
		{"SELECT name FROM BlobStorage", `{"name":"a"},{"name":`, jsonLines, csvOut, "a\n", "true InternalError @12"},
		{"SELECT _1 FROM BlobStorage WHERE _1 / 0 = 1", "1\n", csvNoHeaders, csvOut, "", "false DivideByZero @0"},
		{"SELECT sys.split(10) FROM BlobStorage", "aaaa,bbbb\ncccc,dddd\neeee\n", csvNoHeaders, csvOut, "10\n20\n", ""},
		{"SELECT _2 FROM BlobStorage WHERE _1 > 250;", "100,200\n300,400\n", csvNoHeaders, csvOut, "400\n", ""},
	}
	for _, c := range cases {
		got := run(t, c.query, c.data, c.in, c.out)
		if got.data.String() != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.query, got.data.String(), c.want)
		}
		if errs := strings.Join(got.errors, ";"); errs != c.errors {
			t.Errorf("%s: errors %q, want %q", c.query, errs, c.errors)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, q := range []string{
		"", "SELECT", "SELECT * FROM", "SELECT * FROM Other", "SELECT name FROM BlobStorage WHERE",
		"SELECT name, COUNT(*) FROM BlobStorage", "SELECT COUNT(COUNT(*)) FROM BlobStorage",
		"SELECT * FROM BlobStorage WHERE COUNT(*) > 1", "SELECT 'open FROM BlobStorage", "SELECT * FROM BlobStorage LIMIT x",
		"SELECT CAST(a AS BLOB) FROM BlobStorage", "SELECT NOFUNC(a) FROM BlobStorage", "SELECT a FROM BlobStorage extra",
		"SELECT DATE_ADD(week, 1, a) FROM BlobStorage", "SELECT a FROM BlobStorage[0]", "SELECT a ~ b FROM BlobStorage",
		"SELECT a FROM BlobStorage;;", "SELECT a; FROM BlobStorage",
	} {
		if _, err := Parse(q); err == nil {
			t.Errorf("Parse(%q) accepted it", q)
		}
	}
}

func TestLikeMatch(t *testing.T) {
	cases := []struct {
		s, p string
		want bool
	}{
		{"abc", "abc", true}, {"abc", "a%", true}, {"abc", "%c", true}, {"abc", "%b%", true}, {"abc", "a_c", true},
		{"abc", "a_", false}, {"", "%", true}, {"", "_", false}, {"a%c", `a\%c`, true}, {"abc", `a\%c`, false},
		{strings.Repeat("a", 200), strings.Repeat("%a", 50) + "b", false},
	}
	for _, c := range cases {
		if got := likeMatch([]rune(c.s), []rune(c.p), '\\'); got != c.want {
			t.Errorf("%q LIKE %q = %v, want %v", c.s, c.p, got, c.want)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	good := map[string]string{
		"2007T":                         "2007-01-01T00:00:00Z",
		"2007-03T":                      "2007-03-01T00:00:00Z",
		"2010-01-01":                    "2010-01-01T00:00:00Z",
		"2017-01-02T03:04Z":             "2017-01-02T03:04:00Z",
		"2017-01-02T03:04:05.006Z":      "2017-01-02T03:04:05.006Z",
		"2018-11-09T00:00+05:30":        "2018-11-09T00:00:00+05:30",
		"2018-11-09T01:00:23-0800":      "2018-11-09T01:00:23-08:00",
		"2018-11-09T01:00:23.123456789": "2018-11-09T01:00:23.123456789Z",
	}
	for in, want := range good {
		got, err := parseTimestamp(in)
		if err != nil || formatTimestamp(got) != want {
			t.Errorf("parseTimestamp(%q) = %v %v, want %s", in, formatTimestamp(got), err, want)
		}
	}
	for _, bad := range []string{"", "07", "2007-13T", "2007-02-30T", "2007-01-01T25:00Z", "2007-01-01T10", "2007-01-01Tx", "2007-01-01T10:00+5"} {
		if _, err := parseTimestamp(bad); err == nil {
			t.Errorf("parseTimestamp(%q) accepted it", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"SELECT * FROM BlobStorage", "SELECT a, b FROM BlobStorage WHERE a > 1 AND b LIKE 'x%' LIMIT 3",
		"SELECT TRIM(BOTH 'x' FROM a) FROM BlobStorage[*].p[*]", "SELECT COUNT(*) FROM BlobStorage WHERE x IN (1, 'a')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			return
		}
		c := &collect{}
		data := "1,2\n3,x\n"
		_ = Run(context.Background(), q, strings.NewReader(data), int64(len(data)), csvNoHeaders, csvOut, c, fixedNow)
	})
}
