package table_test

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestDateTimeEcho pins how an Edm.DateTime property reads back. Azure
// writes the fraction without trailing zeros and leaves it out on a whole
// second, while Timestamp keeps seven digits in every recording:
//   - azure-sdk-for-js sdk/tables/data-tables/recordings/node/
//     tableclient_createentity_getentity_and_delete/recording_should_createentity_with_datetime.json
//     ("2020-09-17T00:00:00.99999Z" is answered as sent) and
//     recording_should_createentity_with_date.json (".111Z" likewise);
//   - the response body captured from Azure in azure-sdk-for-python's
//     azure-data-tables tests ("DatetimeTypeProperty":"1970-10-04T00:00:00Z").
func TestDateTimeEcho(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "dtecho")
	cases := map[string]string{
		"2020-09-17T00:00:00.99999Z":   "2020-09-17T00:00:00.99999Z",
		"2020-09-17T00:00:00.111Z":     "2020-09-17T00:00:00.111Z",
		"1970-10-04T00:00:00Z":         "1970-10-04T00:00:00Z",
		"1970-10-04T00:00:00.000000Z":  "1970-10-04T00:00:00Z",
		"2021-06-09T16:21:44.5327563Z": "2021-06-09T16:21:44.5327563Z",
		"2021-06-09T16:21:44.1200000Z": "2021-06-09T16:21:44.12Z",
	}
	i := 0
	for sent, want := range cases {
		i++
		rk := string(rune('a' + i))
		body := `{"PartitionKey":"p","RowKey":"` + rk + `","testField":"` + sent + `","testField@odata.type":"Edm.DateTime"}`
		resp, got := e.raw(t, "POST", "/dtecho", http.Header{
			"Content-Type": {"application/json;odata=nometadata"}, "Accept": {"application/json;odata=minimalmetadata"},
			"Prefer": {"return-no-content"}, "DataServiceVersion": {"3.0"},
		}, body)
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("insert %s: %d %s", sent, resp.StatusCode, got)
		}
		resp, got = e.raw(t, "GET", "/dtecho(PartitionKey='p',RowKey='"+rk+"')", http.Header{
			"Accept": {"application/json;odata=minimalmetadata"}, "DataServiceVersion": {"3.0"},
		}, "")
		m := decode(t, []byte(got))
		if resp.StatusCode != http.StatusOK || m["testField"] != want || m["testField@odata.type"] != "Edm.DateTime" {
			t.Errorf("%s read back as %v (%v), want %s", sent, m["testField"], m["testField@odata.type"], want)
		}
		if ts, _ := m["Timestamp"].(string); len(ts) != len("2021-06-09T16:21:44.5327563Z") {
			t.Errorf("Timestamp %q, want seven fraction digits", ts)
		}
	}
}
