package storetest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The kill test runs a writer in a child process: the test binary itself,
// re-executed with -test.run selecting the test that called Run, and these
// variables telling Run to be the writer.
const (
	envRole     = "LAZULI_STORETEST_ROLE"
	envEngine   = "LAZULI_STORETEST_ENGINE"
	envLocation = "LAZULI_STORETEST_LOCATION"
	roleWriter  = "kill-writer"

	ackPrefix   = "LAZULI-ACK"
	killWriters = 4
	// childLifetime stops an orphaned child whose parent died before
	// killing it.
	childLifetime = 2 * time.Minute
)

func testReopen(t *testing.T, e Engine) {
	location := e.NewLocation(t)
	first := openAt(t, e, location)
	putAll(t, first, map[string]string{"\x11keep": "v", "\x11empty": "", "\x11gone": "x"})
	update(t, first, func(tx store.Tx) error { return tx.Delete([]byte("\x11gone")) })
	if err := first.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	second := openAt(t, e, location)
	view(t, second, func(tx store.Tx) error {
		wantValue(t, tx, "\x11keep", "v")
		wantValue(t, tx, "\x11empty", "")
		wantMissing(t, tx, "\x11gone")
		return nil
	})
	putAll(t, second, map[string]string{"\x11after": "reopen"})
	view(t, second, func(tx store.Tx) error {
		wantValue(t, tx, "\x11after", "reopen")
		return nil
	})
}

func killKey(writer int, seq uint64) []byte {
	return store.NewKey(store.SpaceBlob).Str("kill").Uint(uint64(writer)).Uint(seq).Bytes()
}

func killCounterKey(writer int) []byte {
	return store.NewKey(store.SpaceBlob).Str("kill-last").Uint(uint64(writer)).Bytes()
}

// killValue is the value the writer stores at killKey(writer, seq).
func killValue(writer int, seq uint64) []byte {
	return fmt.Appendf(nil, "writer %d seq %d %s", writer, seq, strings.Repeat("x", 64))
}

// testSurvivesKill starts a writer child, collects the writes it
// acknowledges for about a second, SIGKILLs it and checks that every
// acknowledged write is in the reopened store.
func testSurvivesKill(t *testing.T, e Engine) {
	location := e.NewLocation(t)
	acks, stderr := runAndKillWriter(t, e, location)
	if len(acks) == 0 {
		t.Fatalf("the writer child acknowledged nothing; its stderr:\n%s", stderr)
	}
	s := openAt(t, e, location)
	view(t, s, func(tx store.Tx) error {
		// One Scan reads every record the child wrote; looking each
		// acknowledgement up in it is far cheaper than a Get per write.
		stored := map[string]string{}
		prefix := store.NewKey(store.SpaceBlob).Str("kill").Bytes()
		err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
			stored[string(k)] = string(v)
			return true
		})
		if err != nil {
			return err
		}
		last := make(map[int]uint64)
		for _, a := range acks {
			got, ok := stored[string(killKey(a.writer, a.seq))]
			if !ok || got != string(killValue(a.writer, a.seq)) {
				t.Fatalf("acknowledged write %d/%d lost after SIGKILL: %q, present %v", a.writer, a.seq, got, ok)
			}
			last[a.writer] = max(last[a.writer], a.seq)
		}
		for w, seq := range last {
			n, err := readInt(tx, killCounterKey(w))
			if err != nil {
				return err
			}
			if uint64(n) < seq {
				t.Errorf("writer %d: counter %d, but seq %d was acknowledged", w, n, seq)
			}
		}
		return nil
	})
	t.Logf("%d acknowledged writes survived SIGKILL", len(acks))
	putAll(t, s, map[string]string{"\x11after-kill": "ok"})
}

type ack struct {
	writer int
	seq    uint64
}

// runAndKillWriter starts the child, reads its acknowledgements until about
// a second has passed since the first, kills it and returns every
// acknowledgement it printed, those still in the pipe included.
func runAndKillWriter(t *testing.T, e Engine, location string) ([]ack, string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("find test binary: %v", err)
	}
	cmd := exec.Command(exe, "-test.run="+topLevelPattern(t), "-test.count=1", "-test.timeout=3m")
	cmd.Env = append(os.Environ(), envRole+"="+roleWriter, envEngine+"="+e.Name, envLocation+"="+location)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start writer child: %v", err)
	}
	firstAck := make(chan struct{})
	var acks []ack
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		acks = readAcks(stdout, firstAck)
	}()
	select {
	case <-firstAck:
		time.Sleep(time.Second)
	case <-readDone:
	case <-time.After(30 * time.Second):
	}
	select {
	case <-readDone:
		// The writer never stops by itself: it failed.
		t.Errorf("writer child exited before it was killed: %v; stderr:\n%s", cmd.Wait(), &stderr)
		return acks, stderr.String()
	default:
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	// The pipe ends once the dead child's descriptors are closed; only then
	// may Wait close it.
	<-readDone
	_ = cmd.Wait() // reports the kill
	return acks, stderr.String()
}

// readAcks parses acknowledgement lines until the pipe ends, closing
// firstAck when the first one arrives. Other lines (test framework output)
// are ignored.
func readAcks(r io.Reader, firstAck chan struct{}) []ack {
	var acks []ack
	var once sync.Once
	lines := bufio.NewScanner(r)
	for lines.Scan() {
		var a ack
		if _, err := fmt.Sscanf(lines.Text(), ackPrefix+" %d %d", &a.writer, &a.seq); err != nil {
			continue
		}
		acks = append(acks, a)
		once.Do(func() { close(firstAck) })
	}
	return acks
}

// topLevelPattern is a -test.run pattern selecting exactly the running
// test, each level anchored.
func topLevelPattern(t *testing.T) string {
	parts := strings.Split(t.Name(), "/")
	// The child only needs the test that calls Run; Run switches to the
	// writer role before starting any subtest.
	return "^" + regexp.QuoteMeta(parts[0]) + "$"
}

// runKillChildIfAsked runs the kill test's writer when this process is that
// child, and reports whether it was.
func runKillChildIfAsked(t *testing.T, e Engine) bool {
	if os.Getenv(envRole) != roleWriter {
		return false
	}
	if os.Getenv(envEngine) != e.Name {
		return true // the child of another engine's kill test: stay idle
	}
	s, err := e.Open(t, os.Getenv(envLocation))
	if err != nil {
		fmt.Fprintf(os.Stderr, "writer child: open: %v\n", err)
		os.Exit(3)
	}
	time.AfterFunc(childLifetime, func() { os.Exit(4) })
	var wg sync.WaitGroup
	for w := range killWriters {
		wg.Go(func() { writeUntilKilled(s, w) })
	}
	wg.Wait()
	os.Exit(5) // only reached when every writer failed
	return true
}

// writeUntilKilled writes one record and its writer's counter per Update and
// prints an acknowledgement once Update has returned.
func writeUntilKilled(s store.Store, writer int) {
	for seq := uint64(1); ; seq++ {
		err := s.Update(context.Background(), func(tx store.Tx) error {
			if err := tx.Put(killKey(writer, seq), killValue(writer, seq)); err != nil {
				return err
			}
			return tx.Put(killCounterKey(writer), encodeInt(int64(seq)))
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "writer child %d: update %d: %v\n", writer, seq, err)
			return
		}
		// One Write call per line: a pipe write this small is atomic, so
		// lines from different writers never interleave.
		os.Stdout.Write(fmt.Appendf(nil, "%s %d %d\n", ackPrefix, writer, seq))
	}
}
