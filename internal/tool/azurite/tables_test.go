package azurite

import "testing"

// Azurite's base64 of an Edm.Guid's text is undone; other members, and
// their order, stay as they were.
func TestEntityBodyGuids(t *testing.T) {
	in := `{"PartitionKey":"p","RowKey":"r","Id":"MGI5YTNjMWUtNmYyZC00ZThhLTljNWItN2QxZTJmM2E0YjVj","Id@odata.type":"Edm.Guid",` +
		`"Plain":"0b9a3c1e-6f2d-4e8a-9c5b-7d1e2f3a4b5c","Plain@odata.type":"Edm.Guid","Bare":"0b9a3c1e6f2d4e8a9c5b7d1e2f3a4b5c",` +
		`"Bare@odata.type":"Edm.Guid","Text":"MGI5YTNj","N":1.50}`
	want := `{"PartitionKey":"p","RowKey":"r","Id":"0b9a3c1e-6f2d-4e8a-9c5b-7d1e2f3a4b5c","Id@odata.type":"Edm.Guid",` +
		`"Plain":"0b9a3c1e-6f2d-4e8a-9c5b-7d1e2f3a4b5c","Plain@odata.type":"Edm.Guid","Bare":"0b9a3c1e6f2d4e8a9c5b7d1e2f3a4b5c",` +
		`"Bare@odata.type":"Edm.Guid","Text":"MGI5YTNj","N":1.50}`
	got, err := entityBody([]byte(in))
	if err != nil || string(got) != want {
		t.Errorf("entityBody:\n got %s (%v)\nwant %s", got, err, want)
	}
}
