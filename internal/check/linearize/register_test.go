package linearize

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/anishathalye/porcupine"
)

// registerState is the blob as the model knows it: its content and ETag.
type registerState struct{ value, etag string }

// registerInput is a read, or a write conditional on an ETag.
type registerInput struct {
	write    bool
	ifMatch  string
	newValue string
}

// registerOutput is what the service answered: a read's content and ETag,
// or a write's success (with the new ETag) or 412.
type registerOutput struct {
	value, etag string
	ok          bool
}

// register is the sequential model of one blob under reads and If-Match
// writes: a read returns the current content and ETag; a write succeeds
// exactly when its If-Match names the current ETag, and then the blob has
// the new content and the ETag the service answered with.
func register(initial registerState) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(registerState), input.(registerInput), output.(registerOutput)
			if !in.write {
				return out.value == s.value && out.etag == s.etag, s
			}
			if out.ok {
				return in.ifMatch == s.etag, registerState{in.newValue, out.etag}
			}
			return in.ifMatch != s.etag, s
		},
		Equal: func(a, b any) bool { return a.(registerState) == b.(registerState) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(registerInput), output.(registerOutput)
			if in.write {
				return fmt.Sprintf("write %s if %s -> %v %s", in.newValue, in.ifMatch, out.ok, out.etag)
			}
			return fmt.Sprintf("read -> %s %s", out.value, out.etag)
		},
	}
}

// checkRegister records 8 clients (spread over the given connection
// strings) doing reads and conditional writes of one blob whose content is
// each value padded to size bytes, and checks the history against the
// register model.
func checkRegister(t *testing.T, connStrs []string, size int) {
	ctx := context.Background()
	owner, _ := azblob.NewClientFromConnectionString(connStrs[0], nil)
	if _, err := owner.CreateContainer(ctx, "reg", nil); err != nil {
		t.Fatal(err)
	}
	first, err := owner.UploadBuffer(ctx, "reg", "r", padded("v0", size), nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]stepFunc, clients)
	for id := range steps {
		c, err := azblob.NewClientFromConnectionString(connStrs[id%len(connStrs)], &azblob.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		b := c.ServiceClient().NewContainerClient("reg").NewBlockBlobClient("r")
		steps[id] = func(i int) (any, any, error) { return step(ctx, b, id, i, size) }
	}
	history := record(t, steps)
	check(t, register(registerState{"v0", string(*first.ETag)}), history, "reads and If-Match writes", len(connStrs), registerOutcome)
}

// registerOutcome names a read, or a write and its result.
func registerOutcome(input, output any) string {
	if !input.(registerInput).write {
		return "read"
	}
	return result("write", output.(registerOutput).ok, "412")
}

// padded is the content that holds value: value itself, or, to reach size
// bytes, value and ";" repeated and cut at size.
func padded(value string, size int) []byte {
	if len(value) >= size {
		return []byte(value)
	}
	return bytes.Repeat([]byte(value+";"), size/(len(value)+1)+1)[:size]
}

// unpadded is the value content holds; content that is not exactly the
// padding of one value (torn, or mixed from two writes) is returned whole,
// a value no write made, which the model then refuses.
func unpadded(content []byte, size int) string {
	value, _, _ := strings.Cut(string(content), ";")
	if !bytes.Equal(padded(value, size), content) {
		return string(content)
	}
	return value
}

// step does one read, or one write conditional on the ETag the client last
// read (every other step), of content padded to size.
func step(ctx context.Context, b *blockblob.Client, id, i, size int) (registerInput, registerOutput, error) {
	resp, err := b.DownloadStream(ctx, nil)
	if err != nil {
		return registerInput{}, registerOutput{}, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return registerInput{}, registerOutput{}, err
	}
	if i%2 == 0 {
		return registerInput{}, registerOutput{value: unpadded(data, size), etag: string(*resp.ETag)}, nil
	}
	in := registerInput{write: true, ifMatch: string(*resp.ETag), newValue: fmt.Sprintf("c%d-%d", id, i)}
	w, err := b.Upload(ctx, nopSeekCloser{bytes.NewReader(padded(in.newValue, size))}, &blockblob.UploadOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
	if refused, err := refusedWith(err, 412); err != nil || refused {
		return in, registerOutput{}, err
	}
	return in, registerOutput{ok: true, etag: string(*w.ETag)}, nil
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

// TestRegisterModelRefusesAStaleRead: the checker is not vacuous — a read
// that starts after a write completed and still returns the old content is
// found not linearizable.
func TestRegisterModelRefusesAStaleRead(t *testing.T) {
	initial := registerState{"v0", "e0"}
	history := []porcupine.Operation{
		{ClientId: 0, Input: registerInput{write: true, ifMatch: "e0", newValue: "v1"}, Call: 0, Output: registerOutput{ok: true, etag: "e1"}, Return: 10},
		{ClientId: 1, Input: registerInput{}, Call: 20, Output: registerOutput{value: "v0", etag: "e0"}, Return: 30},
	}
	if porcupine.CheckOperations(register(initial), history) {
		t.Fatal("a stale read after a completed write was accepted")
	}
	history[1].Output = registerOutput{value: "v1", etag: "e1"}
	if !porcupine.CheckOperations(register(initial), history) {
		t.Fatal("a read of the completed write was refused")
	}
}

// TestUnpaddedRefusesMixedContent: content made of two writes' paddings
// reads as no value any write made, so a torn read of an S3-backed blob
// cannot pass as one of them.
func TestUnpaddedRefusesMixedContent(t *testing.T) {
	const size = 64
	if got := unpadded(padded("c1-3", size), size); got != "c1-3" {
		t.Fatalf("unpadded(padded(c1-3)) = %q", got)
	}
	mixed := append(padded("c1-3", size)[:size/2:size/2], padded("c2-5", size)[size/2:]...)
	if got := unpadded(mixed, size); got == "c1-3" || got == "c2-5" {
		t.Fatalf("mixed content read as the value %q", got)
	}
	if got := unpadded(padded("c1-3", size)[:size-1], size); got == "c1-3" {
		t.Fatal("content one byte short read as the value")
	}
}
