package lazulitest

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// ClientOptions configure the SDK clients a Server hands out.
type ClientOptions = azcore.ClientOptions

// BlobClient is an azblob client for the server, authorized with the
// account key.
func (s *Server) BlobClient(t testing.TB) *azblob.Client {
	t.Helper()
	c, err := azblob.NewClientFromConnectionString(s.ConnectionString, &azblob.ClientOptions{ClientOptions: s.opts.ClientOptions})
	if err != nil {
		t.Fatalf("lazulitest: blob client: %v", err)
	}
	return c
}

// QueueClient is an azqueue service client for the server.
func (s *Server) QueueClient(t testing.TB) *azqueue.ServiceClient {
	t.Helper()
	c, err := azqueue.NewServiceClientFromConnectionString(s.ConnectionString, &azqueue.ClientOptions{ClientOptions: s.opts.ClientOptions})
	if err != nil {
		t.Fatalf("lazulitest: queue client: %v", err)
	}
	return c
}

// TableClient is an aztables service client for the server.
func (s *Server) TableClient(t testing.TB) *aztables.ServiceClient {
	t.Helper()
	c, err := aztables.NewServiceClientFromConnectionString(s.ConnectionString, &aztables.ClientOptions{ClientOptions: s.opts.ClientOptions})
	if err != nil {
		t.Fatalf("lazulitest: table client: %v", err)
	}
	return c
}

// FileClient is an azfile service client for the server.
func (s *Server) FileClient(t testing.TB) *service.Client {
	t.Helper()
	c, err := service.NewClientFromConnectionString(s.ConnectionString, &service.ClientOptions{ClientOptions: s.opts.ClientOptions})
	if err != nil {
		t.Fatalf("lazulitest: file client: %v", err)
	}
	return c
}
