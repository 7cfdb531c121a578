//go:build !sdkbench

package bench

import "github.com/lazuli-storage/lazuli/internal/rule/auth"

// sdkClient is empty in a build without the SDK driver.
type sdkClient struct{}

func newSDKClient(Target, auth.Service, int) (*sdkClient, error) { return nil, errNoSDK }
