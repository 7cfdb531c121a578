package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// The crash storm's observations: what the restarted server holds of every
// object the storm wrote, read back with no writer running.

// maxReported bounds the violations printed per cycle; all are counted.
const maxReported = 20

// verifyStorm reads what the restarted server holds and settles the ledger
// against it. Blobs written since the last restart, and on the last cycle
// all blobs, are read back byte for byte; the others are compared by the
// length and Content-MD5 List Blobs gives.
func verifyStorm(t *testing.T, ctx context.Context, c stormClients, l *ledger, killed time.Time, last bool) {
	t.Helper()
	observed := map[objectKey]state{}
	observeBlobs(t, ctx, c, l, observed, last)
	observeFiles(t, ctx, c, observed)
	observeEntities(t, ctx, c, observed)
	drained := drainQueue(t, ctx, c, observed, killed)
	for i, v := range l.settle(observed) {
		if i == maxReported {
			t.Errorf("... and more this cycle (see the totals)")
			break
		}
		t.Error(v.text)
	}
	// The drained messages are deleted, so each cycle's queue starts empty
	// and none of them may ever come back.
	for _, m := range drained {
		if _, err := c.queue.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
			t.Fatalf("delete message %s after restart: %v", *m.MessageText, err)
		}
		l.consumed(objectKey{kindMessage, *m.MessageText})
	}
}

func observeBlobs(t *testing.T, ctx context.Context, c stormClients, l *ledger, observed map[objectKey]state, readAll bool) {
	t.Helper()
	pager := c.blob.NewListBlobsFlatPager("storm", nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("list blobs after restart: %v", err)
		}
		for _, item := range page.Segment.BlobItems {
			name := *item.Name
			if strings.HasPrefix(name, "counter-") {
				observed[objectKey{kindCounter, name}] = readBlob(ctx, c, name, func(b []byte) string { return string(b) })
				continue
			}
			key := objectKey{kindBlob, name}
			if readAll || l.wasTouched(key) {
				observed[key] = readBlob(ctx, c, name, blobDigest)
				continue
			}
			var size int64
			if item.Properties.ContentLength != nil {
				size = *item.Properties.ContentLength
			}
			observed[key] = present(fmt.Sprintf("%d bytes, MD5 %x", size, item.Properties.ContentMD5))
		}
	}
}

// readBlob is a listed blob's state: its content as value gives it, or
// what stops it being read (a listed blob that cannot be read is not the
// blob that was written).
func readBlob(ctx context.Context, c stormClients, name string, value func([]byte) string) state {
	resp, err := c.blob.DownloadStream(ctx, "storm", name, nil)
	if err != nil {
		return present(fmt.Sprintf("listed, but reading it failed: %v", err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return present(fmt.Sprintf("listed, but reading it failed: %v", err))
	}
	return present(value(data))
}

// observeFiles reads each file whole and cuts it into its ranges; a
// missing file leaves its ranges absent.
func observeFiles(t *testing.T, ctx context.Context, c stormClients, observed map[objectKey]state) {
	t.Helper()
	for f := 0; f < stormFiles; f++ {
		resp, err := c.file.NewShareClient("storm").NewRootDirectoryClient().NewFileClient(fileName(f)).DownloadStream(ctx, nil)
		var re *azcore.ResponseError
		if errors.As(err, &re) && re.StatusCode == http.StatusNotFound {
			continue
		}
		if err != nil {
			t.Fatalf("read file %s after restart: %v", fileName(f), err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("read file %s after restart: %v", fileName(f), err)
		}
		for index := 0; index < fileRanges && (index+1)*rangeSize <= len(data); index++ {
			observed[rangeKey(f, index)] = present(string(data[index*rangeSize : (index+1)*rangeSize]))
		}
	}
}

func observeEntities(t *testing.T, ctx context.Context, c stormClients, observed map[objectKey]state) {
	t.Helper()
	pager := c.table.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: toString("PartitionKey eq 'p'")})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("list entities after restart: %v", err)
		}
		for _, raw := range page.Entities {
			var e struct {
				RowKey string
				V      *string `json:"v"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatalf("entity after restart: %v: %s", err, raw)
			}
			s := present(fmt.Sprintf("no property v: %s", raw))
			if e.V != nil {
				s = present(*e.V)
			}
			observed[objectKey{kindEntity, e.RowKey}] = s
		}
	}
}

// drainQueue receives every message in the queue. It first waits out the
// visibility the writers received with, counted from the kill: a message
// received then and not deleted is visible again, so a missing message was
// deleted or lost, never merely hidden.
func drainQueue(t *testing.T, ctx context.Context, c stormClients, observed map[objectKey]state, killed time.Time) []azqueue.DequeuedMessage {
	t.Helper()
	time.Sleep(time.Until(killed.Add(receiveVisibility + 100*time.Millisecond)))
	copies := map[string]int{}
	var drained []azqueue.DequeuedMessage
	for {
		got, err := c.queue.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: toInt32(32), VisibilityTimeout: toInt32(300)})
		if err != nil {
			t.Fatalf("receive after restart: %v", err)
		}
		if len(got.Messages) == 0 {
			break
		}
		for _, m := range got.Messages {
			copies[*m.MessageText]++
			drained = append(drained, *m)
		}
	}
	for text, n := range copies {
		observed[objectKey{kindMessage, text}] = messageCopies(n)
	}
	return drained
}

// messageCopies is the state of a message found n times: one copy is the
// message the ledger expects, more are copies no put made.
func messageCopies(n int) state {
	if n == 1 {
		return present("")
	}
	return present(fmt.Sprintf("%d copies", n))
}

func toInt32(n int32) *int32    { return &n }
func toString(s string) *string { return &s }
