package blob_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestStorageAnalyticsLogging: with Logging on for reads and writes, each
// such request to the Blob and Queue services becomes a line of log format
// 1.0 in the account's $logs container ("Storage Analytics log format" in
// the Azure reference), a system container listed only with
// include=system; deletes, not selected, are not logged, and the
// retention policy deletes old files.
func TestStorageAnalyticsLogging(t *testing.T) {
	e := start(t)
	logging := &service.Logging{Version: to.Ptr("1.0"), Read: to.Ptr(true), Write: to.Ptr(true), Delete: to.Ptr(false),
		RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr(int32(2))}}
	must(e.svc.SetProperties(e.ctx, &service.SetPropertiesOptions{Logging: logging})).on(t)
	c := e.container("logged")
	b := e.upload(c, "a;b", []byte("hello"))
	e.download(b)
	must(b.Delete(e.ctx, nil)).on(t)

	q, err := azqueue.NewServiceClientFromConnectionString(e.in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	qprops := &azqueue.SetPropertiesOptions{Logging: &azqueue.Logging{Version: to.Ptr("1.0"), Read: to.Ptr(false),
		Write: to.Ptr(true), Delete: to.Ptr(false), RetentionPolicy: &azqueue.RetentionPolicy{Enabled: to.Ptr(false)}}}
	must(q.SetProperties(e.ctx, qprops)).on(t)
	must(q.NewQueueClient("jobs").Create(e.ctx, nil)).on(t)

	tables, err := aztables.NewServiceClientFromConnectionString(e.in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	must(tables.SetProperties(e.ctx, aztables.ServiceProperties{Logging: &aztables.Logging{Version: to.Ptr("1.0"),
		Read: to.Ptr(false), Write: to.Ptr(true), Delete: to.Ptr(false),
		RetentionPolicy: &aztables.RetentionPolicy{Enabled: to.Ptr(false)}}}, nil)).on(t)
	must(tables.CreateTable(e.ctx, "things", nil)).on(t)

	e.in.App.Analytics.Flush(e.ctx)

	// $logs is a system container.
	for _, system := range []bool{false, true} {
		page := must(e.svc.NewListContainersPager(&service.ListContainersOptions{
			Include: service.ListContainersInclude{System: system}}).NextPage(e.ctx)).on(t)
		listed := false
		for _, it := range page.ContainerItems {
			listed = listed || *it.Name == "$logs"
		}
		if listed != system {
			t.Fatalf("$logs listed %v with include=system %v", listed, system)
		}
	}

	logs := e.svc.NewContainerClient("$logs")
	items := e.listAll(logs, container.ListBlobsInclude{Metadata: true}, 0)
	name := regexp.MustCompile(`^(blob|queue|table)/\d{4}/\d{2}/\d{2}/\d{2}00/000000\.log$`)
	var blobLog, queueLog, tableLog string
	for _, it := range items {
		if !name.MatchString(*it.Name) {
			t.Fatalf("log file name %q", *it.Name)
		}
		// Lazuli keeps metadata names in lower case.
		if v := it.Metadata["logversion"]; v == nil || *v != "1.0" {
			t.Fatalf("%s: LogVersion %v", *it.Name, it.Metadata)
		}
		text := e.read(logs.NewBlobClient(*it.Name))
		if strings.HasPrefix(*it.Name, "blob/") {
			blobLog = text
			if v := it.Metadata["logtype"]; v == nil || *v != "read,write" {
				t.Fatalf("blob log LogType %v", it.Metadata["logtype"])
			}
		} else if strings.HasPrefix(*it.Name, "queue/") {
			queueLog = text
		} else {
			tableLog = text
		}
	}

	put := logLine(t, blobLog, "PutBlob")
	want := map[int]string{0: "1.0", 3: "Success", 4: "201", 7: "authenticated", 8: "devstoreaccount1",
		9: "devstoreaccount1", 10: "blob", 12: `"/devstoreaccount1/logged/a;b"`}
	for i, v := range want {
		if put[i] != v {
			t.Errorf("PutBlob field %d = %q, want %q (line %q)", i, put[i], v, strings.Join(put, ";"))
		}
	}
	if _, err := time.Parse("2006-01-02T15:04:05.0000000Z", put[1]); err != nil {
		t.Errorf("request start time %q: %v", put[1], err)
	}
	if get := logLine(t, blobLog, "GetBlob"); get[4] != "200" || get[20] != "5" {
		t.Errorf("GetBlob status %s, response bytes %s", get[4], get[20])
	}
	if strings.Contains(blobLog, ";DeleteBlob;") {
		t.Error("a delete was logged with Delete off")
	}
	if create := logLine(t, queueLog, "CreateQueue"); create[10] != "queue" || create[4] != "201" {
		t.Errorf("queue log line %q", strings.Join(create, ";"))
	}
	if create := logLine(t, tableLog, "CreateTable"); create[10] != "table" || create[4] != "201" {
		t.Errorf("table log line %q", strings.Join(create, ";"))
	}

	// Two days after the hour ended, the blob log files go; the queue's
	// and the table's (no retention) stay.
	e.in.App.Analytics.Purge(e.ctx, e.in.Clock.Now().Add(3*24*time.Hour))
	left := e.listAll(logs, container.ListBlobsInclude{}, 0)
	if len(left) != 2 || !strings.HasPrefix(*left[0].Name, "queue/") || !strings.HasPrefix(*left[1].Name, "table/") {
		t.Fatalf("after the retention: %d log files", len(left))
	}
}

// logLine returns the fields of the first line of text logging op.
func logLine(t *testing.T, text, op string) []string {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		fields := splitLogLine(line)
		if len(fields) != 30 {
			t.Fatalf("%d fields in %q", len(fields), line)
		}
		if fields[2] == op {
			return fields
		}
	}
	t.Fatalf("no %s line in:\n%s", op, text)
	return nil
}

// splitLogLine splits a log line at the semicolons outside quotes.
func splitLogLine(line string) []string {
	var fields []string
	quoted, start := false, 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			quoted = !quoted
		case ';':
			if !quoted {
				fields = append(fields, line[start:i])
				start = i + 1
			}
		}
	}
	return append(fields, line[start:])
}

// TestStorageAnalyticsFlushedAtShutdown: lines still buffered when the
// server stops in order are written before its storage closes.
func TestStorageAnalyticsFlushedAtShutdown(t *testing.T) {
	e := startWith(t, lazulitest.Options{}) // on disk, to outlive the restart
	logging := &service.Logging{Version: to.Ptr("1.0"), Read: to.Ptr(false), Write: to.Ptr(true), Delete: to.Ptr(false),
		RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(false)}}
	must(e.svc.SetProperties(e.ctx, &service.SetPropertiesOptions{Logging: logging})).on(t)
	e.upload(e.container("before-stop"), "b", []byte("x"))

	e.in.Restart(t)
	e.connect()
	logs := e.svc.NewContainerClient("$logs")
	items := e.listAll(logs, container.ListBlobsInclude{}, 0)
	if len(items) != 1 {
		t.Fatalf("%d log files after the restart", len(items))
	}
	logLine(t, e.read(logs.NewBlobClient(*items[0].Name)), "PutBlob")
}
