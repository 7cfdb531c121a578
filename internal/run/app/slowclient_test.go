package app_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// startWithLimits runs Lazuli with short stall timeouts and a connection cap.
func startWithLimits(t *testing.T, body, write time.Duration, maxConns int) *lazulitest.Instance {
	return lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.BodyTimeout, c.WriteTimeout, c.MaxConns = body, write, maxConns
	}})
}

// stalledUpload opens a connection, sends a signed Put Blob's headers for a
// 1,000,000-byte body and 10 bytes of it, and stops.
func stalledUpload(t *testing.T, blobURL, name string) net.Conn {
	return startUpload(t, blobURL+"stall/"+name, 1_000_000)
}

// startUpload opens a connection, sends a signed Put Blob's headers for a
// body of length bytes and the first 10 of them, and stops.
func startUpload(t *testing.T, blobURL string, length int) net.Conn {
	t.Helper()
	u, _ := url.Parse(blobURL)
	req, _ := http.NewRequest(http.MethodPut, u.String(), nil)
	req.ContentLength = int64(length)
	req.Header.Set("x-ms-blob-type", "BlockBlob")
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Content-Length", fmt.Sprint(length))
	auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "PUT %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	for k, vs := range req.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n0123456789")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	return conn
}

// timedOutAnswer reports whether got, all a cut upload's connection
// received, is Azure's answer to a write that took too long: 500
// OperationTimedOut.
func timedOutAnswer(got []byte) bool {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), nil)
	return err == nil && resp.StatusCode == http.StatusInternalServerError && resp.Header.Get("x-ms-error-code") == "OperationTimedOut"
}

// TestStalledUploadsAreReleased: 200 uploads that stop sending their body
// are answered 500 OperationTimedOut and dropped once BodyTimeout passes
// without progress, and none of them leaves a blob behind. Before, they
// held their handlers for minutes.
func TestStalledUploadsAreReleased(t *testing.T) {
	in := startWithLimits(t, time.Second, time.Minute, 0)
	client, err := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateContainer(context.Background(), "stall", nil); err != nil {
		t.Fatal(err)
	}
	const stalled = 200
	conns := make([]net.Conn, stalled)
	for i := range conns {
		conns[i] = stalledUpload(t, in.BlobURL, fmt.Sprintf("b%d", i))
	}
	began := time.Now()
	var wg sync.WaitGroup
	answers := make([][]byte, stalled)
	for i, c := range conns {
		wg.Go(func() {
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			answers[i], _ = io.ReadAll(c) // returns when the server drops the connection
		})
	}
	wg.Wait()
	for i, got := range answers {
		if !timedOutAnswer(got) {
			t.Fatalf("stalled upload %d was answered %q", i, got)
		}
	}
	held := time.Since(began)
	if held > 25*time.Second {
		t.Fatalf("200 stalled uploads held the server %v", held)
	}
	t.Logf("200 stalled uploads released after %v (BodyTimeout 1s)", held.Round(10*time.Millisecond))
	pager := client.NewListBlobsFlatPager("stall", nil)
	page, err := pager.NextPage(context.Background())
	if err != nil || len(page.Segment.BlobItems) != 0 {
		t.Fatalf("stalled uploads left %d blobs (%v)", len(page.Segment.BlobItems), err)
	}
	// A slow upload that keeps moving is not cut: a byte every 300 ms for
	// 3 s with a 1 s timeout.
	conn := stalledUpload(t, in.BlobURL, "slow")
	defer conn.Close()
	for i := 0; i < 10; i++ {
		time.Sleep(300 * time.Millisecond)
		if _, err := conn.Write([]byte("x")); err != nil {
			t.Fatalf("a slow but moving upload was cut after %d bytes: %v", 10+i, err)
		}
	}
}

// TestUnreadDownloadIsAbandoned: a client that stops reading a large
// download is dropped once WriteTimeout passes without progress.
func TestUnreadDownloadIsAbandoned(t *testing.T) {
	in := startWithLimits(t, time.Minute, time.Second, 0)
	client, _ := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "big", nil); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<20) // 64 MiB
	if _, err := client.UploadBuffer(ctx, "big", "b", data, nil); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(in.BlobURL + "big/b")
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // read nothing
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	if n >= int64(len(data)) {
		t.Fatalf("the whole %d bytes arrived after the client stalled past WriteTimeout", n)
	}
}

// TestConnectionCap: past MaxConns, a new connection waits to be accepted
// until one closes.
func TestConnectionCap(t *testing.T) {
	in := startWithLimits(t, time.Minute, time.Minute, 2)
	host := strings.TrimPrefix(strings.SplitN(in.BlobURL, "/", 4)[2], "")
	held := []net.Conn{}
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		fmt.Fprintf(c, "GET /devstoreaccount1?comp=list HTTP/1.1\r\nHost: %s\r\n\r\n", host)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	third, err := net.Dial("tcp", host) // the kernel completes the handshake; Lazuli does not accept yet
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	fmt.Fprintf(third, "GET /devstoreaccount1?comp=list HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	_ = third.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := http.ReadResponse(bufio.NewReader(third), nil); err == nil {
		t.Fatal("a third connection was served while two were open under MaxConns 2")
	}
	held[0].Close()
	_ = third.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(third)
	if resp, err := http.ReadResponse(r, nil); err != nil {
		t.Fatalf("the third connection was not served once a slot freed: %v", err)
	} else {
		resp.Body.Close()
	}
	held[1].Close()
}

// Body-rate settings of the tests below: four connections, a body may stop
// for 3 s, and must average 16 KiB/s once its first second has passed.
const (
	rateConns   = 4
	rateStall   = 3 * time.Second
	rateGrace   = time.Second
	rateMinimum = 16 << 10
)

// startWithBodyRate runs the Blob service with the settings above.
func startWithBodyRate(t *testing.T) *lazulitest.Instance {
	return lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.BodyTimeout, c.MaxConns = rateStall, rateConns
		c.MinBodyRate, c.BodyRateGrace = rateMinimum, rateGrace
	}})
}

// oneShotClient is an SDK client that opens a connection for each request
// and closes it after, so that no idle connection of its own keeps one of
// the few slots.
func oneShotClient(t *testing.T, in *lazulitest.Instance) *azblob.Client {
	t.Helper()
	transport := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	client, err := azblob.NewClientFromConnectionString(in.ConnectionString,
		&azblob.ClientOptions{ClientOptions: policy.ClientOptions{Transport: transport}})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// drip starts an upload and sends one more byte of it every interval, until
// the server closes the connection or stop is closed. What the server sent
// before closing comes on the channel; nothing comes if it never closed.
func drip(t *testing.T, blobURL string, every time.Duration, stop <-chan struct{}) <-chan []byte {
	conn := startUpload(t, blobURL, 1_000_000)
	answer, closed := make(chan []byte, 1), make(chan struct{})
	go func() {
		got, _ := io.ReadAll(conn) // returns when the server closes the connection
		close(closed)
		answer <- got
	}()
	go func() {
		defer conn.Close()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-closed:
				return
			case <-tick.C:
				_, _ = conn.Write([]byte("x"))
			}
		}
	}()
	return answer
}

// TestDripFedUploadsAreCut: uploads that send a byte every 100 ms never
// stop long enough for BodyTimeout, and as many of them as there are
// connection slots used to lock every other client out. Once the grace has
// passed they fall below the minimum rate and are answered as a stalled
// body is, then closed, without leaving a blob; the next client is served.
func TestDripFedUploadsAreCut(t *testing.T) {
	in := startWithBodyRate(t)
	client := oneShotClient(t, in)
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "drip", nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	drippers := make([]<-chan []byte, rateConns)
	for i := range drippers {
		drippers[i] = drip(t, fmt.Sprintf("%sdrip/b%d", in.BlobURL, i), 100*time.Millisecond, stop)
	}
	// Dialled after the drippers, this client waits behind them in the
	// accept queue until one of them is closed.
	served, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := client.ServiceClient().GetProperties(served, nil); err != nil {
		t.Fatalf("a client was not served while %d uploads dripped into %d connection slots: %v", rateConns, rateConns, err)
	}
	for i, answer := range drippers {
		select {
		case got := <-answer:
			if !timedOutAnswer(got) {
				t.Errorf("dripper %d was answered %q", i, got)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("dripper %d still holds its connection", i)
		}
	}
	page, err := client.NewListBlobsFlatPager("drip", nil).NextPage(ctx)
	if err != nil || len(page.Segment.BlobItems) != 0 {
		t.Fatalf("cut uploads left %d blobs (%v)", len(page.Segment.BlobItems), err)
	}
}

// TestHonestUploadsMeetTheBodyRate: an upload at full speed, and one that
// pauses for longer than the grace (but less than BodyTimeout) after
// sending well ahead of the minimum rate, both complete.
func TestHonestUploadsMeetTheBodyRate(t *testing.T) {
	in := startWithBodyRate(t)
	client := oneShotClient(t, in)
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "honest", nil); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 512<<10) // 8 MiB
	if _, err := client.UploadBuffer(ctx, "honest", "fast", data, &azblob.UploadBufferOptions{BlockSize: int64(len(data))}); err != nil {
		t.Fatalf("an 8 MiB upload at full speed: %v", err)
	}

	const length = 1 << 20
	conn := startUpload(t, in.BlobURL+"honest/paused", length)
	defer conn.Close()
	ahead := 256<<10 - 10 // with startUpload's 10 bytes, 16 s of the minimum rate
	if _, err := conn.Write(bytes.Repeat([]byte("y"), ahead)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(rateGrace + rateStall/3) // the pause: 2 s
	if _, err := conn.Write(bytes.Repeat([]byte("z"), length-10-ahead)); err != nil {
		t.Fatalf("the paused upload was cut: %v", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the paused upload was not answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the paused upload was answered %s", resp.Status)
	}
	props, err := client.ServiceClient().NewContainerClient("honest").NewBlobClient("paused").GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ContentLength != length {
		t.Fatalf("the paused upload stored %d bytes, want %d", *props.ContentLength, length)
	}
}
