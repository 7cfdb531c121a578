package bench

import (
	"errors"
	"fmt"
)

// The SDK driver (sdk*.go) is built only with the sdkbench tag: it links
// the Azure SDK for Go and its dependencies, which the server does not
// need, so the lazuli binary leaves it out unless asked:
//
//	go build -tags sdkbench -o lazuli ./cmd/lazuli

// sdkSetups is each scenario's SDK setup by name; empty without sdkbench.
var sdkSetups map[string]setupFunc

// sdkResponseStatus reads an SDK error's status; nil without sdkbench.
var sdkResponseStatus func(error) (int, string, bool)

// errNoSDK answers --sdk in a build without the SDK driver.
var errNoSDK = errors.New("this lazuli was built without the Azure SDK driver, which keeps the SDK out of the server binary: build it with `go build -tags sdkbench ./cmd/lazuli` to use --sdk")

// connect gives e the client of the driver its options select and returns
// that driver's setup for s.
func (e *env) connect(t Target, s scenario, conns int) (setupFunc, error) {
	if !e.opts.SDK {
		c, err := newClient(t, conns)
		e.c = c
		return s.setup, err
	}
	if sdkSetups == nil {
		return nil, errNoSDK
	}
	setup := sdkSetups[s.name]
	if setup == nil {
		return nil, fmt.Errorf("scenario %s has no SDK version", s.name)
	}
	c, err := newSDKClient(t, s.svc, conns)
	e.sdk = c
	return setup, err
}

// responseStatus is the HTTP status and Azure error code of a failed
// request, from either driver.
func responseStatus(err error) (status int, code string, ok bool) {
	var se *statusError
	if errors.As(err, &se) {
		return se.status, se.code, true
	}
	if sdkResponseStatus != nil {
		return sdkResponseStatus(err)
	}
	return 0, "", false
}
